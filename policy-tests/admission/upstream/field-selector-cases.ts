/**
 * apimachinery's field selector tests (`pkg/fields/selector_test.go`): TestSplitTerms' selectors and their terms,
 * TestSplitTerm's terms and their parts, TestEscapeValue's escaped values read back (its invalid ones refused) and
 * TestSelectorParse's good and bad selectors, each against the gate's reading of a list's field selector
 * (model/programs/field-selectors.ts). EscapeValue itself (the other direction) is not ported: the gate only reads.
 */
import { parseFieldSelector, splitTerm, splitTerms, unescapeValue } from '../../model/programs/field-selectors.ts';
import { declaredList, functionBody } from './go-test-driver.ts';
import { goStringValue as goString } from './go-literals.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

const STRING = /`[^`]*`|"(?:[^"\\]|\\.)*"/g;

const splitTermsCases = (body: string): TextCase[] =>
  [...body.matchAll(/^\t\t(`[^`]*`):\s*(nil|\{.*\}),/gm)].map((m) => ({
    test: 'TestSplitTerms',
    name: goString(m[1]!),
    judge: () => JSON.stringify(splitTerms(goString(m[1]!))),
    want: JSON.stringify(m[2] === 'nil' ? [] : [...m[2]!.matchAll(STRING)].map((s) => goString(s[0]))),
  }));

const splitTermCases = (body: string): TextCase[] =>
  [...body.matchAll(/^\t\t(`[^`]*`):\s*\{lhs: (`[^`]*`), op: (`[^`]*`), rhs: (`[^`]*`), ok: (true|false)\},/gm)].map((m) => ({
    test: 'TestSplitTerm',
    name: goString(m[1]!),
    judge: () => {
      const t = splitTerm(goString(m[1]!));
      return t ? `${t.field}|${t.op}|${t.raw}|true` : '|||false';
    },
    want: `${goString(m[2]!)}|${goString(m[3]!)}|${goString(m[4]!)}|${m[5]}`,
  }));

function escapeCases(body: string): TextCase[] {
  const cut = body.indexOf('invalidTestcases');
  const valid = [...body.slice(0, cut).matchAll(/^\t\t(`[^`]*`):\s*(`[^`]*`),/gm)].map((m) => ({
    test: 'TestEscapeValue',
    name: `unescape ${goString(m[2]!)}`,
    judge: () => {
      const read = unescapeValue(goString(m[2]!));
      return 'error' in read ? read.error : read.value;
    },
    want: goString(m[1]!),
  }));
  const invalid = [...body.slice(cut).matchAll(/^\t\t(`[^`]*`),/gm)].map((m) => ({
    test: 'TestEscapeValue',
    name: `refuse ${goString(m[1]!)}`,
    judge: () => {
      const read = unescapeValue(goString(m[1]!));
      return 'error' in read && read.error.includes('invalid escape sequence') ? 'an invalid escape sequence' : JSON.stringify(read);
    },
    want: 'an invalid escape sequence',
  }));
  return [...valid, ...invalid];
}

function parseCases(body: string): TextCase[] {
  const list = (name: string) => (body.includes(`${name} := []string{`) ? (declaredList(body, name) as string[]) : []);
  const judged = (selector: string) => ('error' in parseFieldSelector(selector) ? 'refused' : 'parsed');
  return [
    ...list('testGoodStrings').map((s) => ({ test: 'TestSelectorParse', name: `good ${s}`, judge: () => judged(s), want: 'parsed' })),
    ...list('testBadStrings').map((s) => ({ test: 'TestSelectorParse', name: `bad ${s}`, judge: () => judged(s), want: 'refused' })),
  ];
}

/** The cases of selector_test.go the gate's reading answers; a test the file lacks adds none (and the figure shows it). */
export function fieldSelectorCases(go: string): UpstreamTable<TextCase> {
  const body = (name: string) => functionBody(go, name) ?? '';
  return {
    cases: [
      ...splitTermsCases(body('TestSplitTerms')),
      ...splitTermCases(body('TestSplitTerm')),
      ...escapeCases(body('TestEscapeValue')),
      ...parseCases(body('TestSelectorParse')),
    ],
    unread: [],
  };
}

export const fieldSelectorAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'apimachinery');
