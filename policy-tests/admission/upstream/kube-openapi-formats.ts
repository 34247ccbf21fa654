/**
 * kube-openapi's own cases of the formats a custom resource's values are held to (k8s.io/kube-openapi at the
 * checkout), read as data and judged through the schema layer's CRD validator (schema/repo-crds.ts
 * `schemaValueFailures`, with the API server's formats, model/go/strfmt.ts):
 * - `pkg/validation/validate/fixtures/formats/extended-format.json`, which its validator runs end to end
 *   (`TestFormat_JSONSchemaExtended`): each schema and datum, valid or not;
 * - `pkg/validation/strfmt`'s format tests: each `testStringFormat` call's value, valid samples and invalid ones
 *   (`default_test.go`, `kubernetes-extensions_test.go`), `TestDate_IsDate`'s table, and each `IsDateTime` and
 *   `IsDuration` the tests assert of a literal.
 * A value this reader cannot evaluate is counted as not read, never guessed.
 */
import { schemaValueFailures } from '../../schema/repo-crds.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, callArgumentTexts, GoParser, goBuiltin, NOT_BUILTIN, tokenize, type GoEnvironment } from './go-literals.ts';

export interface FormatCase {
  test: string;
  /** The schema node, as a CRD would write it. */
  schema: Record<string, unknown>;
  value: unknown;
  valid: boolean;
}

/** The extended-format fixture: an array of `{description, schema, tests: [{description, data, valid}]}`. */
export function extendedFormatCases(json: string): FormatCase[] {
  const groups = JSON.parse(json) as {
    description: string;
    schema: Record<string, unknown>;
    tests: { description: string; data: unknown; valid: boolean }[];
  }[];
  return groups.flatMap((g) =>
    g.tests.map((t) => ({ test: `extended-format/${g.description}/${t.description}`, schema: g.schema, value: t.data, valid: t.valid })),
  );
}

/** Package-level and local `name = expr` / `name := expr` bindings a test file makes, evaluated on demand. */
function fileEnvironment(goSource: string): GoEnvironment {
  const cache = new Map<string, unknown>();
  const env: GoEnvironment = {
    value(name) {
      if (cache.has(name)) return cache.get(name);
      const at = new RegExp(`(?:^|\\n)\\s*(?:var\\s+)?${name}\\s*:?=\\s*`).exec(goSource);
      if (!at) throw new Error(`unknown identifier ${name}`);
      const value = evaluate(goSource.slice(at.index + at[0].length), env);
      cache.set(name, value);
      return value;
    },
    call(name, args) {
      const built = goBuiltin(name, args);
      if (built !== NOT_BUILTIN) return built;
      if (name === 'strings.Join') return (args[0] as string[]).join(String(args[1]));
      if (name === 'append') return (args as unknown[][]).flat();
      throw new Error(`unknown function ${name}`);
    },
  };
  return env;
}

/** The Go expression at the start of `text` (to its line's end, or the end of the line its literal closes on), as data. */
function evaluate(text: string, env: GoEnvironment): unknown {
  const braced = /^[^\n]*?\{/.exec(text);
  // A literal that spans lines ends on the line its brace closes.
  const from = braced ? braced[0].length + blockAt(text, braced[0].length - 1).length + 1 : 0;
  const end = text.indexOf('\n', from);
  // A variadic spread (`append(a, b...)`) reads as its list: `append` flattens.
  const expr = text.slice(0, end < 0 ? undefined : end).replace(/\.\.\.\)/g, ')');
  return new GoParser(tokenize(expr), env).expr();
}

const asStrings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** strfmt's own format tests, each sample a case of its format; a call this reader cannot evaluate is said. */
export function strfmtCases(files: readonly { name: string; source: string }[]): { cases: FormatCase[]; unread: string[] } {
  const cases: FormatCase[] = [];
  const unread: string[] = [];
  const push = (test: string, format: string, values: readonly string[], valid: boolean) =>
    values.forEach((value) => cases.push({ test: `${test}: ${JSON.stringify(value)}`, schema: { type: 'string', format }, value, valid }));
  for (const { name, source } of files) {
    const env = fileEnvironment(source);
    for (const m of source.matchAll(/\btest(StringFormat(?:WithRegistry)?|Valid|Invalid)\(/g)) {
      // A call in the helpers' own bodies (`func testStringFormat(...)`) passes their parameters on: no case.
      const enclosing = /\nfunc (\w+)/g;
      let fnName = '';
      for (const f of source.slice(0, m.index).matchAll(enclosing)) fnName = f[1]!;
      if (/^\s*func\b/.test(source.slice(source.lastIndexOf('\n', m.index) + 1, m.index)) || /^test/.test(fnName)) continue;
      const args = callArgumentTexts(source, m.index + m[0].length - 1);
      const fn = m[1]!;
      const at = `${name}:${source.slice(0, m.index).split('\n').length}`;
      try {
        // Each test function's own `str := ...` first, then the file's.
        const body = source.slice(source.lastIndexOf('\nfunc ', m.index), m.index);
        const local = fileEnvironment(body);
        const scoped: GoEnvironment = {
          value: (n) => (new RegExp(`\\b${n}\\s*:?=`).test(body) ? local.value(n) : env.value(n)),
          call: (n, callArgs) => env.call(n, callArgs),
        };
        const read = (expr: string) => new GoParser(tokenize(expr.replace(/\.\.\.\)/g, ')')), scoped).expr();
        if (fn === 'Valid' || fn === 'Invalid') push(at, String(read(args[1]!)), [String(read(args[2]!))], fn === 'Valid');
        else {
          const [format, withValue, valid, invalid] = (fn === 'StringFormat' ? args.slice(2) : args.slice(3)).map(read);
          push(at, String(format), [...asStrings(valid), String(withValue)], true);
          push(at, String(format), asStrings(invalid), false);
        }
      } catch (err) {
        unread.push(`${at}: ${(err as Error).message}`);
      }
    }
    for (const row of source.matchAll(/^\s*\{"((?:[^"\\]|\\.)*)", (true|false)\},/gm))
      if (/func TestDate_IsDate/.test(source)) push(`${name} TestDate_IsDate`, 'date', [JSON.parse(`"${row[1]}"`) as string], row[2] === 'true');
    for (const a of source.matchAll(/(\w+) :?= Is(DateTime|Duration)\("((?:[^"\\]|\\.)*)"\)\s*\n\s*assert\.(True|False)\(t, \1\b/g))
      push(`${name} Is${a[2]}`, a[2] === 'DateTime' ? 'date-time' : 'duration', [JSON.parse(`"${a[3]}"`) as string], a[4] === 'True');
  }
  return { cases, unread };
}

/** Each value judged by the schema layer's CRD validator, held to kube-openapi's verdict. */
export function formatAgreement(cases: readonly FormatCase[], unread: readonly string[] = []): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const failures = schemaValueFailures(c.schema, c.value);
    const format = typeof c.schema.format === 'string' ? c.schema.format : 'no format';
    count(a, {
      group: format,
      ok: (failures.length === 0) === c.valid,
      file: c.test,
      why: c.valid ? `refused: ${failures.map((f) => f.message).join('; ')}` : 'admitted, kube-openapi refuses it',
    });
  }
  for (const u of unread) count(a, { group: 'not read', ok: false, file: u, why: 'not read' });
  return a;
}
