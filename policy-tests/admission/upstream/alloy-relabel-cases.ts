/**
 * Alloy's own relabelling tests (`internal/component/common/relabel/relabel_test.go`): TestRelabelValidate's rules
 * (each `Config{…}` as the test builds it, its fields Go's zero values where it sets none, through the gate's port of
 * relabel.Config.Validate, model/alloy/validators.ts) and TestTargetLabelValidity's target labels (the port's
 * relabelTarget). A rule Validate passes or refuses by a label name's scheme, which Alloy's build sets and the gate
 * does not read, is said not judged and counted against the port. The relabelling itself (TestRelabel) is not ported.
 */
import { fromValue } from '../../model/alloy/evaluated.ts';
import { ownValidation, RELABEL_TARGET, type Fields } from '../../model/alloy/validators.ts';
import type { AlloyValue } from '../../model/alloy/parser.ts';
import { blockAt, goStringValue } from './go-literals.ts';
import { functionBody } from './go-test-driver.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

/** relabel.go's Action constants, as Alloy writes each. */
const ACTIONS: Readonly<Record<string, string>> = {
  Replace: 'replace',
  Keep: 'keep',
  Drop: 'drop',
  HashMod: 'hashmod',
  LabelMap: 'labelmap',
  LabelDrop: 'labeldrop',
  LabelKeep: 'labelkeep',
  Lowercase: 'lowercase',
  Uppercase: 'uppercase',
  KeepEqual: 'keepequal',
  DropEqual: 'dropequal',
};
/** Config's Go fields, by the attribute each is decoded from. */
const FIELDS: Readonly<Record<string, string>> = {
  SourceLabels: 'source_labels',
  Separator: 'separator',
  Regex: 'regex',
  Modulus: 'modulus',
  TargetLabel: 'target_label',
  Replacement: 'replacement',
  Action: 'action',
};
/** DefaultRelabelConfig's fields the tests name. */
const DEFAULTS: Readonly<Record<string, AlloyValue>> = { Action: 'replace', Separator: ';', Replacement: '$1', Regex: '(.*)' };
const STRING = /`[^`]*`|"(?:[^"\\]|\\.)*"/g;

/** One field's Go expression as the value Alloy would hold; undefined where the reader does not know it. */
function fieldValue(field: string, expr: string): AlloyValue | undefined {
  const literal = /^(`[^`]*`|"(?:[^"\\]|\\.)*")$/.exec(expr);
  if (literal) return goStringValue(literal[1]!);
  if (/^\d+$/.test(expr)) return Number(expr);
  if (Object.hasOwn(ACTIONS, expr)) return ACTIONS[expr]!;
  const fromDefault = /^DefaultRelabelConfig\.(\w+)$/.exec(expr);
  if (fromDefault) return DEFAULTS[fromDefault[1]!];
  const regex = /^(?:Must)?[Nn]ewRegexp\(("(?:[^"\\]|\\.)*")\)$/.exec(expr);
  if (regex) return goStringValue(regex[1]!);
  if (field === 'SourceLabels' && /^\[\]string\{.*\}$/.test(expr)) return [...expr.matchAll(STRING)].map((s) => goStringValue(s[0]));
  return undefined;
}

/**
 * A `Config{…}` literal as the body Validate sees: every field present at its Go value, the zero one where the literal
 * sets none (a nil SourceLabels and a nil Regex absent, as Validate reads them); undefined where a field is not read.
 */
function configFields(literal: string): Fields | undefined {
  const set: Record<string, AlloyValue> = { Separator: '', Modulus: 0, TargetLabel: '', Replacement: '', Action: '' };
  for (const m of literal.matchAll(/^\s*(\w+):\s*(.+?),\s*(?:\/\/.*)?$/gm)) {
    const value = fieldValue(m[1]!, m[2]!.trim());
    if (!Object.hasOwn(FIELDS, m[1]!) || value === undefined) return undefined;
    set[m[1]!] = value;
  }
  const attrs = new Map(Object.entries(set).map(([field, value]) => [FIELDS[field]!, fromValue(value, { line: 1, text: JSON.stringify(value) })]));
  return { attr: (name) => attrs.get(name), block: () => undefined };
}

function validateCases(body: string): TextCase[] {
  const cases: TextCase[] = [];
  for (const m of body.matchAll(/config:\s*Config\{/g)) {
    const open = m.index + m[0].length - 1;
    const literal = blockAt(body, open);
    // What follows the literal's closing brace: its expected error, if the row gives one.
    const after = body.slice(open + literal.length + 1, open + literal.length + 200);
    const expected = /^\},\s*expected:\s*(`[^`]*`|"(?:[^"\\]|\\.)*")/.exec(after);
    const want = expected ? goStringValue(expected[1]!) : '';
    const fields = configFields(literal);
    cases.push({
      test: 'TestRelabelValidate',
      name: `case ${cases.length}`,
      judge: () => {
        if (!fields) return 'not read';
        const verdict = ownValidation('internal/component/common/relabel.Config', fields);
        if (verdict === 'unported' || verdict === undefined) return 'valid';
        if ('unread' in verdict) return `not judged: ${verdict.unread}`;
        // require.ErrorContains: the expected text anywhere in the error.
        return want && verdict.refused.includes(want) ? want : verdict.refused;
      },
      want: want || 'valid',
    });
  }
  return cases;
}

const targetCases = (body: string): TextCase[] =>
  [...body.matchAll(/\{("(?:[^"\\]|\\.)*"), (true|false)\},/g)].map((m) => ({
    test: 'TestTargetLabelValidity',
    name: goStringValue(m[1]!),
    judge: () => String(RELABEL_TARGET.test(goStringValue(m[1]!))),
    want: m[2]!,
  }));

/** The cases of relabel_test.go the gate's port answers; a test the file lacks adds none (and the figure shows it). */
export function alloyRelabelCases(go: string): UpstreamTable<TextCase> {
  const body = (name: string) => functionBody(go, name) ?? '';
  return { cases: [...validateCases(body('TestRelabelValidate')), ...targetCases(body('TestTargetLabelValidity'))], unread: [] };
}

export const alloyRelabelAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'Alloy');
