/**
 * Alloy's own expression tests (grafana/alloy `syntax/vm/vm_test.go` and `vm_stdlib_test.go`, at the tag the chart
 * runs: TestVM_Evaluate, TestVM_Evaluate_Literals, TestVM_Stdlib, TestVM_Stdlib_Errors, TestStdlibCoalesce,
 * TestStdlib_StringFunc): each case's expression worked out by the gate's evaluator (model/alloy/evaluate.ts, with the
 * standard library of stdlib.ts) and decoded into the Go type the test decodes it into, as the vm converts (a number
 * to text, text that reads whole as a number to a number), against the value the test expects, or the error text it
 * expects within Alloy's. A value the gate does not work out (a function it has no port of, a variable of the test's
 * scope or environment) disagrees: the gate never passes what it did not compute.
 */
import { parseAlloy, type AlloyValue } from '../../model/alloy/parser.ts';
import { evaluate } from '../../model/alloy/evaluate.ts';
import { plainValue } from '../../model/alloy/evaluated.ts';
import { textAgreement, type RowNote, type TextCase, type UpstreamTable } from './agreement.ts';
import { builtinEnvironment, goBuiltin, NOT_BUILTIN, structTableRows, type GoEnvironment } from './go-literals.ts';
import { functionBody } from './go-test-driver.ts';

export interface AlloyEvaluateRow {
  test: string;
  name: string;
  input: string;
  /** The value the test expects (as JSON holds it) and the Go type it decodes into (`int`, `string`, `[]any`...), or the error text it expects within Alloy's. */
  want: { value: unknown; goType: string } | { error: string };
}

const NO_NODES = { nodeValue: () => undefined };

/** A value as JSON with each object's keys sorted: Go's require.Equal compares maps by their entries, not an order. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
  );

/** The vm's conversion of a value into a Go scalar type: a number to text, text that reads whole as a number to one. */
function converted(value: AlloyValue, goType: string): AlloyValue {
  if (goType === 'string' && typeof value === 'number') return String(value);
  if (/^(?:u?int\d*|float\d+)$/.test(goType) && typeof value === 'string' && /^-?[0-9]+(?:\.[0-9]+)?$/.test(value)) return Number(value);
  return value;
}

/** The gate's answer for a row: the value as JSON, the error's text, or why it was not worked out. */
function answer(row: AlloyEvaluateRow): string {
  const { body, errors } = parseAlloy(`v = ${row.input}`);
  if (errors[0]) return `parse error: ${errors[0].message}`;
  const statement = body[0];
  if (statement?.kind !== 'attribute') return 'the input is no expression';
  const e = evaluate(statement.value, NO_NODES);
  if (e.kind === 'failed') return `error: ${e.message}`;
  const value = plainValue(e);
  if (value === undefined) return `not worked out: ${e.kind === 'unread' ? e.why : `a ${e.kind === 'typed' ? e.type : e.kind} read at run time`}`;
  return 'value' in row.want ? canonical(converted(value, row.want.goType)) : `value ${JSON.stringify(value)}`;
}

/** Go's conversions the tables write a value with (`int8(13)`, `float64(0.6)`, `string("24")`), and `value.Null`. */
const ENV: GoEnvironment = {
  value: (name) => (name === 'value.Null' ? null : builtinEnvironment().value(name)),
  call(name, args) {
    if (/^(?:u?int(?:8|16|32|64)?|float(?:32|64)|bool|string)$/.test(name)) return args[0];
    const built = goBuiltin(name, args);
    return built === NOT_BUILTIN ? builtinEnvironment().call(name, args) : built;
  },
};

/** The tests whose tables are rows of an expression and a value (or an error), each by where its input and expectation stand. */
const TABLES: readonly { file: 'vm' | 'stdlib'; test: string; input: number; expect: number; error?: true }[] = [
  { file: 'vm', test: 'TestVM_Evaluate', input: 0, expect: 1 },
  { file: 'stdlib', test: 'TestVM_Stdlib', input: 1, expect: 2 },
  { file: 'stdlib', test: 'TestVM_Stdlib_Errors', input: 1, expect: 2, error: true },
  { file: 'stdlib', test: 'TestStdlibCoalesce', input: 1, expect: 2 },
  { file: 'stdlib', test: 'TestStdlib_StringFunc', input: 1, expect: 2 },
];

/** TestVM_Evaluate_Literals' map of rows, `"name": {\`input\`, type(value)}`: the Go type each value decodes into. */
function literalRows(body: string): AlloyEvaluateRow[] {
  return [...body.matchAll(/^\t\t"([^"]+)":\s*\{`([^`]*)`, (\w+)\(([^)]*)\)\},$/gm)].map((m) => ({
    test: 'TestVM_Evaluate_Literals',
    name: m[1]!,
    input: m[2]!,
    want: { value: m[4]!.startsWith('"') ? (JSON.parse(m[4]!) as string) : Number(m[4]!), goType: m[3]! },
  }));
}

/** The rows of vm_test.go's and vm_stdlib_test.go's expression tables, and the rows the reader could not follow. */
export function alloyEvaluateRows(go: { vm: string; stdlib: string }): { rows: AlloyEvaluateRow[]; unread: RowNote[] } {
  const rows: AlloyEvaluateRow[] = literalRows(functionBody(go.vm, 'TestVM_Evaluate_Literals') ?? '');
  const unread: RowNote[] = [];
  for (const t of TABLES) {
    const body = functionBody(go[t.file], t.test) ?? '';
    for (const [i, r] of structTableRows(body, /tt/, ENV).entries()) {
      const cells = Array.isArray(r.row) ? (r.row as unknown[]) : undefined;
      const [input, expect] = [cells?.[t.input], cells?.[t.expect]];
      const name = t.input === 1 && typeof cells?.[0] === 'string' ? `${cells[0]} (row ${i + 1})` : typeof input === 'string' ? input : `row ${i + 1}`;
      if (typeof input !== 'string' || expect === undefined || (t.error && typeof expect !== 'string'))
        unread.push({ name: `${t.test}/${name}`, why: r.why ?? 'its row is no expression and expectation the reader reads' });
      else rows.push({ test: t.test, name, input, want: t.error ? { error: expect as string } : { value: expect, goType: 'any' } });
    }
  }
  return { rows, unread };
}

/** The cases the evaluator is held to, and the rows the reader could not follow. */
export function alloyEvaluateCases(rows: readonly AlloyEvaluateRow[], unread: readonly RowNote[]): UpstreamTable<TextCase> {
  return {
    cases: rows.map((row) => ({
      test: row.test,
      name: row.name,
      judge: () => {
        const got = answer(row);
        // require.ErrorContains: the expected text anywhere in the error.
        return 'error' in row.want && got.startsWith('error: ') && got.includes(row.want.error) ? `error: ${row.want.error}` : got;
      },
      want: 'value' in row.want ? canonical(row.want.value) : `error: ${row.want.error}`,
    })),
    unread: [...unread],
  };
}

export const alloyEvaluateAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'Alloy');
