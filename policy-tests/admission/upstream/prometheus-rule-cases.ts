/**
 * The tests of what the prometheus-operator's webhook runs, read as data from upstream checkouts (nothing upstream is
 * committed): Go's text/template parser tests (text/template/parse/parse_test.go: parseTests, errorTests,
 * numberTests), Prometheus's PromQL parser tests (promql/parser/parse_test.go: testExpr, each row's input and whether
 * it fails) and its rule file tests (model/rulefmt: the testdata files TestParseFileSuccess and TestParseFileFailure
 * read, and TestTemplateParsing's rules).
 */
import { parse } from 'yaml';
import { templateParseError } from '../../model/go/template-parse.ts';
import { templateNumber } from '../../model/go/template-number.ts';
import { lexTemplate } from '../../model/go/template-lex.ts';
import { promqlProblems } from '../../model/monitoring/promql-lint.ts';
import { prometheusRuleRefusals, WEBHOOK_PARSE } from '../webhooks/prometheus-rules.ts';
import { asManifest, blockAt, builtinEnvironment, structTableRows, tableRows, tokenize } from './go-literals.ts';
import { dig, type Obj } from '../../model/core/dig.ts';
import { promVersion, relabelRuleError } from '../../model/prometheus-operator/relabel.ts';
import { textAgreement, type Agreement, type DecliningTable, type RowNote, type TextCase, type UpstreamTable } from './agreement.ts';

/** The rows of a package-level `var <name> = []T{...}` table, each parsed alone (a row not read keeps why). */
function varTableRows(src: string, name: string, constants: Readonly<Record<string, unknown>> = {}): { text: string; row?: unknown; why?: string }[] {
  const at = src.indexOf(`var ${name} = []`);
  return at === -1 ? [] : tableRows(blockAt(src, src.indexOf('{', at)), builtinEnvironment(constants));
}

/** Go's text/template parser tests: whether each parses, the error it must carry, and what each number is. */
export function goTemplateCases(parseTest: string): UpstreamTable<TextCase> {
  const cases: TextCase[] = [];
  const unread: RowNote[] = [];
  const builtins = new Set(['printf', 'contains']);
  const said = (error: string | undefined) => (error === undefined ? 'parses' : 'refused');
  for (const { text, row, why } of varTableRows(parseTest, 'parseTests', { noError: true, hasError: false })) {
    const [name, input, ok] = (row ?? []) as unknown[];
    if (typeof name !== 'string' || typeof input !== 'string') unread.push({ name: text.slice(0, 40), why: why ?? 'not a row' });
    else cases.push({ test: 'parseTests', name, judge: () => said(templateParseError(name, input, builtins)), want: ok ? 'parses' : 'refused' });
  }
  for (const { text, row, why } of varTableRows(parseTest, 'errorTests', { noError: true, hasError: false })) {
    const [name, input, , result] = (row ?? []) as unknown[];
    if (typeof name !== 'string' || typeof input !== 'string' || typeof result !== 'string') unread.push({ name: text.slice(0, 40), why: why ?? 'not a row' });
    else
      cases.push({
        test: 'errorTests',
        name,
        judge: () => {
          const error = templateParseError(name, input, new Set());
          return error?.includes(result) ? result : (error ?? 'parses');
        },
        want: result,
      });
  }
  const numbers = blockAt(parseTest, parseTest.indexOf('{', parseTest.indexOf('var numberTests = []')));
  for (let i = numbers.indexOf('{'); i !== -1;) {
    const text = blockAt(numbers, i);
    i = numbers.indexOf('{', i + text.length + 2);
    // The constant and its four kinds (the values after them are Go constants this reader does not need).
    const m = /^(?:text: )?(\x60[^\x60]*\x60|"(?:[^"\\]|\\.)*")(?:,\s*(true|false),\s*(true|false),\s*(true|false),\s*(true|false))?/.exec(text.trim());
    if (!m) {
      unread.push({ name: text.slice(0, 40), why: 'not a row' });
      continue;
    }
    const number = tokenize(m[1]!)[0]!.value as string;
    const want = ['int', 'uint', 'float', 'complex'].filter((_, k) => m[k + 2] === 'true').join(',') || 'refused';
    cases.push({ test: 'numberTests', name: number, judge: () => numberKinds(number), want });
  }
  return { cases, unread };
}

/** What newNumber makes of a constant, typed as the lexer types it (a character, a complex, else a number). */
function numberKinds(text: string): string {
  const item = lexTemplate(`{{${text}}}`)[1];
  const type = text.startsWith("'") ? 'charConstant' : item?.type === 'complex' && item.val === text ? 'complex' : 'number';
  const n = templateNumber(text, type);
  if ('error' in n) return 'refused';
  return ['int', 'uint', 'float', 'complex'].filter((_, i) => [n.isInt, n.isUint, n.isFloat, n.isComplex][i]).join(',') || 'refused';
}

export const goTemplateAgreement = (table: UpstreamTable<TextCase>): Agreement => textAgreement(table, 'Go');

/** A Go string literal with a byte that is not UTF-8 (`\xff`, `\377`): no YAML, and so no manifest, can hold it. */
const NOT_UTF8 = /\\x[89a-fA-F][0-9a-fA-F]|\\[23][0-7]{2}/;

/**
 * Prometheus's PromQL parser tests (testExpr), as TestParseExpressions runs them: experimental functions, duration
 * expressions and extended range selectors on, fill modifiers off. A row is its input (literals joined by `+`) and
 * whether it fails; an input built otherwise (fmt.Sprintf) is not read.
 */
export function promqlCases(parseTest: string): DecliningTable<TextCase> {
  const at = parseTest.indexOf('var testExpr = []struct');
  const table = blockAt(parseTest, parseTest.indexOf('}{', at) + 1);
  const cases: TextCase[] = [];
  const unread: RowNote[] = [];
  const declined: RowNote[] = [];
  const features = { experimentalFunctions: true, durationExpressions: true, extendedRangeSelectors: true, fillModifiers: false };
  for (let i = table.indexOf('{'); i !== -1;) {
    const row = blockAt(table, i);
    i = table.indexOf('{', i + row.length + 2);
    const source = /^\s*(?:\/\/[^\n]*\n\s*)*input:\s*([^\n]+?),\n/.exec(row)?.[1];
    const parts = source ? tokenize(source) : [];
    const literal = parts.length > 0 && parts.every((t, k) => (k % 2 === 0 ? t.kind === 'string' : t.text === '+'));
    if (!source || !literal) {
      unread.push({ name: row.trim().slice(0, 60), why: 'an input that is not string literals' });
      continue;
    }
    const input = parts
      .filter((t) => t.kind === 'string')
      .map((t) => t.value as string)
      .join('');
    if (NOT_UTF8.test(source)) {
      declined.push({ name: input, why: 'a byte that is not UTF-8, which no manifest can hold' });
      continue;
    }
    const fails = /\n\s*fail:\s*true/.test(row);
    cases.push({
      test: 'testExpr',
      name: input,
      judge: () => (promqlProblems(input, features).length > 0 ? 'fails' : 'parses'),
      want: fails ? 'fails' : 'parses',
    });
  }
  return { cases, unread, declined };
}

export const promqlAgreement = (table: UpstreamTable<TextCase>): Agreement => textAgreement(table, 'Prometheus');

/** A rule file of rulefmt's testdata or TestTemplateParsing, and what its test expects of it. */
export interface RuleFileCase {
  name: string;
  content: string;
  /** The message one of its errors must contain, or undefined where it must parse. */
  want?: string;
  /** The name scheme the test parses it with. */
  scheme: 'legacy' | 'utf8';
}

/**
 * rulefmt's tests: the files TestParseFileSuccess reads (no error) and TestParseFileFailure's rows (an error carrying
 * its message), read from the test and its testdata; TestTemplateParsing's rules (shouldPass). A row whose error is an
 * unknown field is declined: the operator marshals its own types, so no unknown field reaches rulefmt.
 */
export function ruleFileCases(rulefmtTest: string, testdata: (file: string) => string | undefined): DecliningTable<RuleFileCase> {
  const cases: RuleFileCase[] = [];
  const unread: RowNote[] = [];
  const declined: RowNote[] = [];
  const success = rulefmtTest.slice(rulefmtTest.indexOf('func TestParseFileSuccess'), rulefmtTest.indexOf('func TestParseFileSuccessWithAliases'));
  for (const [, file, scheme] of success.matchAll(/ParseFile\("testdata\/([^"]+)", false, model\.(\w+)Validation/g)) push(file!, undefined, scheme!);
  const failure = rulefmtTest.slice(rulefmtTest.indexOf('func TestParseFileFailure'), rulefmtTest.indexOf('func TestTemplateParsing'));
  for (const [, body] of failure.matchAll(/\{\s*(filename:[\s\S]*?)\n\t\t\}/g)) {
    const file = /filename:\s*"([^"]+)"/.exec(body!)?.[1];
    const message = /errMsg:\s*("(?:[^"\\]|\\.)*")/.exec(body!)?.[1];
    const scheme = /nameValidationScheme:\s*model\.(\w+)Validation/.exec(body!)?.[1] ?? 'UTF8';
    if (!file || !message) unread.push({ name: body!.slice(0, 40), why: 'no filename or errMsg' });
    else if (/field \w+ not found/.test(message)) declined.push({ name: file, why: 'an unknown field, which the operator never marshals' });
    else push(file, JSON.parse(message) as string, scheme);
  }
  const templates = rulefmtTest.slice(rulefmtTest.indexOf('func TestTemplateParsing'), rulefmtTest.indexOf('func TestUniqueErrorNodes'));
  let n = 0;
  for (const [, content, pass] of templates.matchAll(/ruleString: \x60([^\x60]*)\x60,\s*shouldPass: (true|false)/g))
    cases.push({ name: `TestTemplateParsing/${++n}`, content: content!, want: pass === 'true' ? undefined : '', scheme: 'utf8' });
  return { cases, unread, declined };

  function push(file: string, want: string | undefined, scheme: string): void {
    const content = testdata(file);
    if (content === undefined) unread.push({ name: file, why: 'not in the checkout' });
    else cases.push({ name: file, content, want, scheme: scheme === 'Legacy' ? 'legacy' : 'utf8' });
  }
}

/** Each rule file judged by the port of the webhook's parse, as the test judges it. */
export function ruleFileAgreement(table: UpstreamTable<RuleFileCase>): Agreement {
  return textAgreement(
    {
      unread: table.unread,
      cases: table.cases.map((c) => ({
        test: c.name.startsWith('TestTemplateParsing') ? 'TestTemplateParsing' : c.want === undefined ? 'TestParseFileSuccess' : 'TestParseFileFailure',
        name: c.name,
        judge: () => {
          const errors = prometheusRuleRefusals(
            { groups: (parse(c.content) as { groups?: unknown } | null)?.groups },
            { ...WEBHOOK_PARSE, scheme: c.scheme },
          ).map((r) => r.message);
          if (c.want === undefined) return errors.length === 0 ? 'parses' : errors.join('; ');
          return errors.some((e) => e.includes(c.want!)) ? `an error with ${JSON.stringify(c.want)}` : errors.length ? errors.join('; ') : 'parses';
        },
        want: c.want === undefined ? 'parses' : `an error with ${JSON.stringify(c.want)}`,
      })),
    },
    'rulefmt',
  );
}

/** One admission review of the operator's own webhook tests, and what its test expects of it. */
export interface OperatorAdmissionCase {
  name: string;
  /** The PrometheusRule's spec the review carries. */
  spec: unknown;
  scheme: 'legacy' | 'utf8';
  allowed: boolean;
  /** Texts the test requires among the causes of a refusal. */
  causes: string[];
}

/**
 * The prometheus-operator's webhook tests (pkg/admission/admission_test.go): each TestAdmit* of a PrometheusRule
 * review (its golden file, the validation scheme of the api it serves, allowed or not, the causes it looks for) and
 * TestValidationSchemeComparison's rows. A review whose spec holds a non-string label or annotation is declined: the
 * operator's mutating webhook turns those into strings before its validating webhook or the CRD's schema sees them.
 */
export function operatorAdmissionCases(admissionTest: string, golden: (file: string) => string | undefined): DecliningTable<OperatorAdmissionCase> {
  const cases: OperatorAdmissionCase[] = [];
  const unread: RowNote[] = [];
  const declined: RowNote[] = [];
  const add = (name: string, file: string, expect: { api: string; allowed: boolean; causes: string[] }) => {
    const { api, allowed, causes } = expect;
    const text = golden(file);
    const spec = text === undefined ? undefined : (JSON.parse(text) as { request?: { object?: { spec?: unknown } } }).request?.object?.spec;
    if (spec === undefined) unread.push({ name, why: `${file} not in the checkout` });
    else if (/"(?:labels|annotations)":\s*\{[^}]*:\s*(?:true|false|-?\d)/.test(text!))
      declined.push({ name, why: 'a non-string label or annotation, which the mutating webhook turns into a string first' });
    else cases.push({ name, spec, scheme: api === 'api' ? 'legacy' : 'utf8', allowed, causes });
  };
  for (const [, name, body] of admissionTest.matchAll(/func (TestAdmit\w+)\(t \*testing\.T\) \{([\s\S]*?)\n\}/g)) {
    const served = /server\((\w+)\(\)\.servePrometheusRulesValidate\)/.exec(body!);
    const file = /golden\.Get\(t, "([^"]+)"\)/.exec(body!)?.[1];
    if (!served || !file) continue;
    const allowed = /if !resp\.Response\.Allowed \{/.test(body!);
    add(name!, file, { api: served[1]!, allowed, causes: [...body!.matchAll(/exp :?= \x60([^\x60]+)\x60/g)].map((m) => m[1]!) });
  }
  const comparison = admissionTest.slice(admissionTest.indexOf('func TestValidationSchemeComparison'));
  for (const [, row] of comparison.matchAll(/\{\s*(name:[\s\S]*?)\n\t\t\}/g)) {
    const name = /name:\s*"([^"]+)"/.exec(row!)?.[1];
    const api = /admit:\s*(\w+)\(\)/.exec(row!)?.[1];
    const file = /goldenFile:\s*"([^"]+)"/.exec(row!)?.[1];
    const allow = /shouldAllow:\s*(true|false)/.exec(row!)?.[1];
    if (!name || !api || !file || !allow) unread.push({ name: name ?? row!.slice(0, 40), why: 'a row without its api, golden file or expectation' });
    else add(`TestValidationSchemeComparison/${name}`, file, { api, allowed: allow === 'true', causes: [] });
  }
  return { cases, unread, declined };
}

/** Each review judged by the port of the operator's validation: admitted or refused as the test expects, with its causes. */
export function operatorAdmissionAgreement(table: UpstreamTable<OperatorAdmissionCase>): Agreement {
  return textAgreement(
    {
      unread: table.unread,
      cases: table.cases.map((c) => ({
        test: c.name.split('/')[0]!,
        name: c.name,
        judge: () => {
          const causes = prometheusRuleRefusals(c.spec, { ...WEBHOOK_PARSE, scheme: c.scheme }).map((r) => r.message);
          if (causes.length === 0) return 'allowed';
          const missing = c.causes.filter((want) => !causes.some((got) => got.includes(want)));
          return missing.length === 0 ? `refused${c.causes.map((w) => `, with "${w}"`).join('')}` : `refused with ${causes.join('; ')}`;
        },
        want: c.allowed ? 'allowed' : `refused${c.causes.map((w) => `, with "${w}"`).join('')}`,
      })),
    },
    'the operator',
  );
}

/** One relabel rule of the operator's validator tests: the rule as a manifest holds it, the Prometheus version, and whether it is refused. */
export interface RelabelCase {
  name: string;
  rule: Obj;
  version: string;
  refused: boolean;
}

/**
 * The operator's relabel validator tests (pkg/prometheus/validation/validator_test.go, TestValidateRelabelConfig):
 * each scenario's rule (its Go fields by their JSON names), its Prometheus's version, and whether it must be refused.
 */
export function relabelCases(validatorTest: string): UpstreamTable<RelabelCase> {
  const constants = builtinEnvironment({
    defaultRegex: '(.*)',
    defaultSourceLabels: [],
    defaultPrometheusSpec: { Spec: { CommonPrometheusFields: { Version: 'v2.36.0' } } },
    'relabel.DefaultRelabelConfig.Separator': ';',
    'relabel.DefaultRelabelConfig.Replacement': '$1',
    'relabel.DefaultRelabelConfig.Modulus': 0,
  });
  // The default regex as its String method prints it (the anchors trimmed): the one call the table makes.
  const env = {
    ...constants,
    call: (name: string, args: unknown[]) => (name === 'relabel.DefaultRelabelConfig.Regex.String' ? '(.*)' : constants.call(name, args)),
  };
  const cases: RelabelCase[] = [];
  const unread: RowNote[] = [];
  for (const { text, row: read, why } of structTableRows(validatorTest.slice(validatorTest.indexOf('func TestValidateRelabelConfig')), /tc/, env)) {
    const row = read as { scenario?: unknown; relabelConfig?: Obj; prometheus?: Obj; expectedErr?: unknown } | undefined;
    if (!row || typeof row.scenario !== 'string' || !row.relabelConfig) {
      unread.push({ name: text.trim().slice(0, 60), why: why ?? 'not a scenario' });
      continue;
    }
    const version = dig(row.prometheus, ['Spec', 'CommonPrometheusFields', 'Version']);
    cases.push({
      name: row.scenario,
      rule: asManifest(row.relabelConfig) as Obj,
      version: typeof version === 'string' ? version : 'v2.36.0',
      refused: row.expectedErr === true,
    });
  }
  return { cases, unread };
}

export function relabelAgreement(table: UpstreamTable<RelabelCase>): Agreement {
  return textAgreement(
    {
      unread: table.unread,
      cases: table.cases.map((c) => ({
        test: 'TestValidateRelabelConfig',
        name: c.name,
        judge: () => (relabelRuleError(c.rule, promVersion(c.version) ?? [3, 0, 0]) === undefined ? 'accepted' : 'refused'),
        want: c.refused ? 'refused' : 'accepted',
      })),
    },
    'the operator',
  );
}
