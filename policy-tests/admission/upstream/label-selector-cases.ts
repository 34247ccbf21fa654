/**
 * apimachinery's label selector tests (`pkg/labels/selector_test.go`): TestLexer's tokens, TestLexerSequence's
 * sequences, TestSelectorParse's good selectors (each read back as written, blanks aside) and bad ones,
 * TestSetSelectorParser's selectors (valid or not, and where the test compares them, the requirements parsed), and
 * TestRequirementConstructor's requirements (the fields NewRequirement's errors name), each against the gate's reading
 * of a list's label selector (model/programs/label-selectors.ts). Matching labels is not ported: the gate only reads
 * whether the API server takes a selector.
 */
import { labelSelectorString, lex, parseLabelSelector } from '../../model/programs/label-selectors.ts';
import { requirementErrors } from '../../model/scheduling/label-syntax.ts';
import { declaredList, functionBody } from './go-test-driver.ts';
import { goStringValue as goString } from './go-literals.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

const STRING = /`[^`]*`|"(?:[^"\\]|\\.)*"/g;
const strings = (text: string) => [...text.matchAll(STRING)].map((s) => goString(s[0]));

/** The Lexer's Token names, as the gate's lexer names each kind. */
const TOKENS: Readonly<Record<string, string>> = {
  EndOfStringToken: 'end',
  ErrorToken: 'error',
  IdentifierToken: 'identifier',
  CommaToken: ',',
  NotInToken: 'notin',
  InToken: 'in',
  EqualsToken: '=',
  DoubleEqualsToken: '==',
  GreaterThanToken: '>',
  LessThanToken: '<',
  DoesNotExistToken: '!',
  NotEqualsToken: '!=',
  OpenParToken: '(',
  ClosedParToken: ')',
};
/** selection's operators, as the gate names each. */
const OPERATORS: Readonly<Record<string, string>> = {
  In: 'in',
  NotIn: 'notin',
  Equals: '=',
  DoubleEquals: '==',
  NotEquals: '!=',
  GreaterThan: 'gt',
  LessThan: 'lt',
  Exists: 'exists',
  DoesNotExist: '!',
};

const lexerCases = (body: string): TextCase[] =>
  [...body.matchAll(/^\t\t\{("(?:[^"\\]|\\.)*"), (\w+)\},/gm)].map((m) => {
    const s = goString(m[1]!);
    return {
      test: 'TestLexer',
      name: JSON.stringify(s),
      judge: () => `${lex(s)[0]!.kind} ${lex(s)[0]!.literal}`,
      want: `${TOKENS[m[2]!] ?? m[2]} ${s}`,
    };
  });

const sequenceCases = (body: string): TextCase[] =>
  [...body.matchAll(/^\t\t\{("(?:[^"\\]|\\.)*"), \[\]Token\{([^}]*)\}\},/gm)].map((m) => {
    const s = goString(m[1]!);
    return {
      test: 'TestLexerSequence',
      name: JSON.stringify(s),
      judge: () =>
        lex(s)
          .filter((t) => t.kind !== 'end')
          .map((t) => t.kind)
          .join(' '),
      want: m[2]!
        .split(',')
        .map((t) => TOKENS[t.trim()] ?? t.trim())
        .join(' '),
    };
  });

/** What the gate reads of a selector: its requirements read back, or that it is refused. */
const readBack = (s: string) => {
  const parsed = parseLabelSelector(s);
  return 'error' in parsed ? 'refused' : labelSelectorString(parsed.requirements);
};

function parseCases(body: string): TextCase[] {
  const list = (name: string) => (body.includes(`${name} := []string{`) ? (declaredList(body, name) as string[]) : []);
  return [
    ...list('testGoodStrings').map((s) => ({
      test: 'TestSelectorParse',
      name: `good ${JSON.stringify(s)}`,
      judge: () => readBack(s),
      want: s.replaceAll(' ', ''),
    })),
    ...list('testBadStrings').map((s) => ({ test: 'TestSelectorParse', name: `bad ${JSON.stringify(s)}`, judge: () => readBack(s), want: 'refused' })),
  ];
}

/** getRequirement(key, selection.Op, values, t) calls, as the gate writes requirements. */
const requirementsIn = (text: string) =>
  [...text.matchAll(/getRequirement\(("[^"]*"), selection\.(\w+), (nil|sets\.NewString\(([^)]*)\)), t\)/g)].map((m) => ({
    key: goString(m[1]!),
    operator: OPERATORS[m[2]!] ?? m[2]!,
    values: [...new Set(strings(m[4] ?? ''))].sort(),
  }));

const setParserCases = (body: string): TextCase[] =>
  [...body.matchAll(/\{("(?:[^"\\]|\\.)*"),\s*(internalSelector\{[\s\S]*?\}|NewSelector\(\)|nil),\s*(true|false),\s*(true|false)\}/g)].map((m) => {
    const s = goString(m[1]!);
    const [compared, valid] = [m[3] === 'true' && m[2] !== 'nil', m[4] === 'true'];
    return {
      test: 'TestSetSelectorParser',
      name: JSON.stringify(s),
      judge: () => {
        const parsed = parseLabelSelector(s);
        return 'error' in parsed ? 'refused' : compared ? JSON.stringify(parsed.requirements) : 'parsed';
      },
      want: !valid ? 'refused' : compared ? JSON.stringify(requirementsIn(m[2]!)) : 'parsed',
    };
  });

/** Go string expressions: literals, and `strings.Repeat("a", 254)` as the text it builds. */
const goValues = (text: string) =>
  [...text.matchAll(/strings\.Repeat\(("[^"]*"), (\d+)\)|`[^`]*`|"(?:[^"\\]|\\.)*"/g)].map((m) =>
    m[1] ? goString(m[1]).repeat(Number(m[2])) : goString(m[0]),
  );

const ROW =
  /\{\s*Key:\s*(strings\.Repeat\("(\w)", (\d+)\)|"[^"]*"),[^\n]*\n\s*Op:\s*(?:selection\.(\w+)|("\w+")),\s*\n(?:\s*Vals:\s*sets\.NewString\(((?:[^()]|\([^()]*\))*)\),\s*\n)?(?:\s*WantErr:\s*field\.ErrorList\{([\s\S]*?)\n\t\t\t\},\s*\n)?\s*\},/g;

const constructorCases = (body: string): TextCase[] =>
  [...body.matchAll(ROW)].map((m) => {
    const key = m[2] ? m[2].repeat(Number(m[3])) : goString(m[1]!);
    const operator = m[4] ? (OPERATORS[m[4]] ?? m[4]) : goString(m[5]!);
    const values = [...new Set(goValues(m[6] ?? ''))].sort();
    return {
      test: 'TestRequirementConstructor',
      name: key.length > 20 ? `${key.slice(0, 8)}… (${key.length})` : key,
      judge: () =>
        requirementErrors({ key, operator, values })
          .map((e) => e.slice(0, e.indexOf(': ')))
          .join(' '),
      want: [...(m[7] ?? '').matchAll(/Field:\s*"([^"]*)"/g)].map((f) => f[1]).join(' '),
    };
  });

/** The cases of selector_test.go the gate's reading answers; a test the file lacks adds none (and the figure shows it). */
export function labelSelectorCases(go: string): UpstreamTable<TextCase> {
  const body = (name: string) => functionBody(go, name) ?? '';
  return {
    cases: [
      ...lexerCases(body('TestLexer')),
      ...sequenceCases(body('TestLexerSequence')),
      ...parseCases(body('TestSelectorParse')),
      ...setParserCases(body('TestSetSelectorParser')),
      ...constructorCases(body('TestRequirementConstructor')),
    ],
    unread: [],
  };
}

export const labelSelectorAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'apimachinery');
