/**
 * The few statements a Go table test's driver uses to build what it passes on, followed as data: a variable made from
 * a composite literal or a helper that returns one (`p := defaultPrometheus()`), a field set on it
 * (`p.Spec.Version = tc.version`), and the arguments of named calls (`cg.GenerateServerConfiguration(p, ...)`,
 * `golden.Assert(t, s, tc.golden)`), each read in the order written, once per row of the test's table with the row as
 * `tc`. A branch is not followed: a field set inside an `if` is set (the drivers read here set one only where the row
 * gives it). Anything else is a GoUnsupported error, so a row this reader cannot follow is counted apart.
 */
import {
  asJson,
  blockAt,
  builtinEnvironment,
  callArgumentTexts,
  goBuiltin,
  GoParser,
  GoUnsupported,
  NOT_BUILTIN,
  tableRows,
  tokenize,
  type GoEnvironment,
} from './go-literals.ts';

/** A test's table (none: the body is one row), the name its loop gives each row, and the statements around it. */
export interface DriverTable {
  loopVariable: string;
  /** The table's body, its rows parsed once the statements before it have run (they may name what those made). */
  table?: string;
  before: string;
  after: string;
}

/** The body of `func <name>(`, or undefined where the file has none. */
export function functionBody(src: string, name: string): string | undefined {
  const at = src.indexOf(`func ${name}(`);
  return at === -1 ? undefined : blockAt(src, src.indexOf('{', src.indexOf(')', at)));
}

/**
 * The test's table: `for _, tc := range []struct {...}{rows}`, `cases := []struct {...}{rows}` or
 * `cases := []namedType{rows}` then `for _, tc := range cases`; else the whole body as one row.
 */
export function driverTable(body: string): DriverTable {
  const m = /(?:for _, (\w+) := range |(\w+) := )\[\](struct \{|\w+\{)/.exec(body);
  if (!m) return { loopVariable: 'tc', before: body, after: '' };
  let open = body.indexOf('{', m.index + m[0].length - 1);
  if (m[3] === 'struct {') open = body.indexOf('{', open + blockAt(body, open).length + 2);
  const table = blockAt(body, open);
  const loop = m[1] ?? new RegExp(`for _, (\\w+) := range ${m[2]} \\{`).exec(body)?.[1];
  if (!loop) throw new GoUnsupported(`no loop over the table ${m[2]}`);
  return { loopVariable: loop, table, before: body.slice(0, m.index), after: body.slice(open + table.length + 2) };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';

/** The structs Go embeds in the operator's types, whose fields a selector reaches through them (`sm.Namespace`). */
const EMBEDDED = ['ObjectMeta', 'TypeMeta', 'CommonPrometheusFields', 'SafeTLSConfig', 'LocalObjectReference', 'ProberSpec'];

/** The struct that holds a field: the value itself, or the embedded struct that has it (Go's promotion). */
function holderOf(v: Record<string, unknown>, field: string): Record<string, unknown> {
  if (field in v) return v;
  const embedded = EMBEDDED.map((e) => v[e]).find((e): e is Record<string, unknown> => isObject(e) && field in e);
  return embedded ?? v;
}

/** The value of a dotted name in the scope (`tc.ServiceMonitor.Spec`), Go's field names as written. */
function lookup(scope: ReadonlyMap<string, unknown>, name: string): unknown {
  const [head, ...path] = name.split('.');
  if (!scope.has(head!)) throw new GoUnsupported(`unknown identifier ${name}`);
  let v = scope.get(head!);
  for (const field of path) v = isObject(v) ? holderOf(v, field)[field] : undefined;
  return v;
}

/** Set a field path on a variable, Go's way: a nil value clears it; missing structs on the way are made. */
function assign(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = target;
  for (const field of path.slice(0, -1)) {
    at = holderOf(at, field);
    if (!isObject(at[field])) at[field] = {};
    at = at[field] as Record<string, unknown>;
  }
  const last = path.at(-1)!;
  at = holderOf(at, last);
  if (value === null || value === undefined) delete at[last];
  else at[last] = value;
}

/**
 * An environment over the scope and the file's helpers: identifiers from the scope (else the constants), calls to a
 * helper that returns a literal (`func defaultPrometheus() *T { return &T{...} }`), the given calls, then goBuiltin.
 */
export function driverEnvironment(
  src: string,
  scope: ReadonlyMap<string, unknown>,
  constants: Readonly<Record<string, unknown>>,
  calls: Readonly<Record<string, (args: unknown[]) => unknown>>,
): GoEnvironment {
  const env: GoEnvironment = {
    value: (name) => (scope.has(name.split('.')[0]!) ? lookup(scope, name) : name in constants ? constants[name] : lookup(scope, name)),
    call(name, args) {
      if (name in calls) return calls[name]!(args);
      const helper = src.indexOf(`func ${name}() `);
      if (helper !== -1 && args.length === 0) {
        const ret = src.indexOf('return ', helper);
        return asJson(new GoParser(tokenize(src.slice(ret + 'return '.length, src.indexOf('\n}', ret))), env).expr());
      }
      const built = goBuiltin(name, args);
      if (built === NOT_BUILTIN) throw new GoUnsupported(`unknown function ${name}`);
      return built;
    },
  };
  return env;
}

/** One expression parsed from the start of `text`, as JSON. */
export const expressionAt = (text: string, env: GoEnvironment): unknown => asJson(new GoParser(tokenize(text), env).expr());

/** An argument this reader could not follow (an identifier it does not know, a call it does not make): read only if used. */
export const UNREAD = Symbol('an argument not read');

/** A call's arguments, each parsed alone from the `(` at `open` (one it cannot follow is UNREAD, its why kept). */
export const callArguments = (text: string, open: number, env: GoEnvironment): unknown[] =>
  callArgumentTexts(text, open)
    .filter((arg) => arg !== '')
    .map((arg) => readArgument(arg, env));

function readArgument(arg: string, env: GoEnvironment): unknown {
  try {
    return expressionAt(arg, env);
  } catch (err) {
    if (err instanceof GoUnsupported) return UNREAD;
    throw err;
  }
}

/**
 * Run the driver's statements on one row: each `name := <literal or helper>` and `name.Field.Path = <expr>`, in order,
 * into the scope (Go-shaped JSON); then the arguments of each named call, in the order written.
 */
export function followDriver(driver: string, scope: Map<string, unknown>, env: GoEnvironment, calls: readonly string[]): { call: string; args: unknown[] }[] {
  const out: { call: string; args: unknown[] }[] = [];
  const statement = new RegExp(
    `(?:^|\\n)\\s*(?:var (\\w+) [\\w.*\\[\\]]+\\n|(\\w+) :?= (?=&?[\\w.]+\\{|default\\w*\\(\\))|(\\w+)((?:\\.\\w+)+) = )|(${calls.map((c) => c.replace(/\./g, '\\.')).join('|')})\\(`,
    'g',
  );
  for (let m = statement.exec(driver); m; m = statement.exec(driver)) {
    const rest = driver.slice(m.index + m[0].length);
    if (m[1]) scope.set(m[1], null); // declared, nil until a statement sets it
    else if (m[2]) {
      // A variable this reader cannot build (a `yaml.MapSlice` of what it made) is left out: using it is unsupported.
      const value = readArgument(rest, env);
      if (value === UNREAD) scope.delete(m[2]);
      else scope.set(m[2], value);
    } else if (m[3] && isObject(scope.get(m[3]))) assign(scope.get(m[3]) as Record<string, unknown>, m[4]!.slice(1).split('.'), expressionAt(rest, env));
    else if (m[5]) out.push({ call: m[5], args: callArguments(driver, m.index + m[0].length - 1, env) });
    if (m[0].length === 0) statement.lastIndex++;
  }
  return out;
}

/** A named call's arguments, as followDriver reads them. */
export interface DriverCall {
  call: string;
  args: unknown[];
}

/** One row driven: its name (its `name` field, else its index) and the named calls it makes, or why it is not read. */
export interface DrivenRow {
  name: string;
  calls?: DriverCall[];
  why?: string;
}

/**
 * Each row of a test driven alone, as its loop runs it: the statements before the table, then the row as the loop's
 * variable and the statements after it, in a scope of its own.
 */
export function driveRows(
  src: string,
  body: string,
  environment: { constants: Readonly<Record<string, unknown>>; calls: Readonly<Record<string, (args: unknown[]) => unknown>> },
  named: readonly string[],
): DrivenRow[] {
  const t = driverTable(body);
  const prepare = () => {
    const scope = new Map<string, unknown>([['t', null]]);
    const env = driverEnvironment(src, scope, environment.constants, environment.calls);
    return { scope, env, early: followDriver(t.before, scope, env, named) };
  };
  const first = prepare();
  const rows = t.table === undefined ? [{ text: '', row: {} as Record<string, unknown>, why: undefined }] : tableRows(t.table, first.env);
  return rows.map(({ row, why }, i) => {
    const name = typeof row?.name === 'string' && row.name !== '' ? row.name : String(i);
    if (!row) return { name, why: why ?? 'not a row' };
    const { scope, env, early } = i === 0 ? first : prepare();
    scope.set(t.loopVariable, row);
    try {
      return { name, calls: [...early, ...followDriver(t.after, scope, env, named)] };
    } catch (err) {
      if (err instanceof GoUnsupported) return { name, why: err.message };
      throw err;
    }
  });
}

/** A list literal declared in a test body (`name := []string{...}`), read as data; throws GoUnsupported where there is none. */
export function declaredList(body: string, name: string, env: GoEnvironment = builtinEnvironment()): unknown[] {
  const at = new RegExp(`\\b${name} := (\\[\\](?:string|int)\\{)`).exec(body);
  if (!at) throw new GoUnsupported(`${name} is not a list literal`);
  const open = at.index + at[0].length - 1;
  const text = body.slice(at.index + at[0].length - at[1]!.length, open + blockAt(body, open).length + 2);
  return (new GoParser(tokenize(text), env).expr() as unknown[]).map((v) => (typeof v === 'bigint' ? Number(v) : v));
}
