/**
 * robfig/cron's own parser tests (robfig/cron v3.0.1 `parser_test.go`), read as data: each test's table of
 * expressions and what the parser makes of them (a bit set, a schedule, the fields it fills in, or an error the
 * test looks for in part), held to the gate's port (model/cron/robfig.ts), which the API server's CronJob validation
 * runs as `cron.ParseStandard`. A row this reader cannot follow is counted as not read.
 */
import {
  all,
  BOUNDS,
  DESCRIPTOR,
  DOM,
  DOW,
  DOW_OPTIONAL,
  getBits,
  getField,
  getRange,
  HOUR,
  MINUTE,
  MONTH,
  normalizeFields,
  parseCron,
  SECOND,
  SECOND_OPTIONAL,
  STANDARD,
  STAR_BIT,
  type Bounds,
  type CronSchedule,
} from '../../model/cron/robfig.ts';
import { textAgreement, type Agreement, type TextCase, type UpstreamTable } from './agreement.ts';
import { blockAt, GoParser, GoUnsupported, tokenize, type GoEnvironment } from './go-literals.ts';

type Row = unknown[] | Record<string, unknown>;

const OPTIONS: Readonly<Record<string, bigint>> = {
  Second: BigInt(SECOND),
  SecondOptional: BigInt(SECOND_OPTIONAL),
  Minute: BigInt(MINUTE),
  Hour: BigInt(HOUR),
  Dom: BigInt(DOM),
  Month: BigInt(MONTH),
  Dow: BigInt(DOW),
  DowOptional: BigInt(DOW_OPTIONAL),
  Descriptor: BigInt(DESCRIPTOR),
};

/** The test file's package-level parsers (`secondParser`, and the package's `standardParser`), by their options. */
const PARSERS: Readonly<Record<string, bigint>> = {
  secondParser: BigInt(SECOND | MINUTE | HOUR | DOM | MONTH | DOW_OPTIONAL | DESCRIPTOR),
  standardParser: BigInt(STANDARD),
};

const NANOSECONDS = { 'time.Second': 1_000_000_000n, 'time.Minute': 60_000_000_000n, 'time.Hour': 3_600_000_000_000n };
const LOCATIONS: Readonly<Record<string, string>> = { 'time.Local': 'Local', 'time.UTC': 'UTC', tokyo: 'Asia/Tokyo' };

/** A SpecSchedule's fields in their declared order, for a literal that lists them without names. */
const SPEC_FIELDS = ['second', 'minute', 'hour', 'dom', 'month', 'dow', 'location'] as const;

const spec = (f: Record<string, unknown>): CronSchedule => ({
  kind: 'spec',
  second: f.second as bigint,
  minute: f.minute as bigint,
  hour: f.hour as bigint,
  dom: f.dom as bigint,
  month: f.month as bigint,
  dow: f.dow as bigint,
  location: f.location as string,
});

/** The test file's own schedule helpers (every5min, every5min5s, midnight, annual), as it defines them. */
function helper(name: string, location: string): CronSchedule | undefined {
  const { seconds, minutes, hours, dom, months, dow } = BOUNDS;
  const first = (r: Bounds) => 1n << BigInt(r.min);
  const rest = { dom: all(dom), month: all(months), dow: all(dow), location };
  if (name === 'every5min') return spec({ second: 1n, minute: 1n << 5n, hour: all(hours), ...rest });
  if (name === 'every5min5s') return spec({ second: 1n << 5n, minute: 1n << 5n, hour: all(hours), ...rest });
  if (name === 'midnight') return spec({ second: 1n, minute: 1n, hour: 1n, ...rest });
  if (name === 'annual')
    return spec({ second: first(seconds), minute: first(minutes), hour: first(hours), dom: first(dom), month: first(months), dow: all(dow), location });
  return undefined;
}

/** The names and calls the tables use, as the test file and the package define them. */
const environment: GoEnvironment = {
  value(name) {
    if (name in OPTIONS) return OPTIONS[name];
    if (name in PARSERS) return PARSERS[name];
    if (name in LOCATIONS) return LOCATIONS[name];
    if (name in NANOSECONDS) return NANOSECONDS[name as keyof typeof NANOSECONDS];
    if (name === 'starBit') return STAR_BIT;
    if (name === 'zero') return 0n;
    const field = /^(seconds|minutes|hours|dom|months|dow)(?:\.(min|max))?$/.exec(name);
    if (field) {
      const bounds = BOUNDS[field[1] as keyof typeof BOUNDS];
      return field[2] ? BigInt(bounds[field[2] as 'min' | 'max']) : bounds;
    }
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call(name, args) {
    if (name === 'all') return all(args[0] as Bounds);
    if (name === 'time.Duration') return args[0];
    const made = helper(name, String(args[0]));
    if (made) return made;
    throw new GoUnsupported(`unknown function ${name}`);
  },
};

/** A parsed schedule literal (`&SpecSchedule{...}`, `ConstantDelaySchedule{...}`, or a helper's) as the port's schedule. */
function schedule(value: unknown): CronSchedule {
  if (value && typeof value === 'object' && 'kind' in value) return value as CronSchedule;
  const o = value as Record<string, unknown> & { '@type'?: string };
  if (Array.isArray(value) && value.length === 1) return { kind: 'every', delayNanoseconds: value[0] as bigint };
  if (Array.isArray(value)) return spec(Object.fromEntries(SPEC_FIELDS.map((f, i) => [f, value[i]])));
  if (o['@type'] === 'ConstantDelaySchedule') return { kind: 'every', delayNanoseconds: o.Delay as bigint };
  return spec(Object.fromEntries(SPEC_FIELDS.map((f) => [f, o[f[0]!.toUpperCase() + f.slice(1)]])));
}

/** A schedule as one text: its six bit sets in hexadecimal and its zone, or its delay. */
export function scheduleText(s: CronSchedule): string {
  if (s.kind === 'every') return `every ${s.delayNanoseconds}ns`;
  const hex = (b: bigint) => b.toString(16);
  return `spec ${[s.second, s.minute, s.hour, s.dom, s.month, s.dow].map(hex).join(' ')} in ${s.location}`;
}

/** What a call came to, as the case compares it: its value's text, or `error containing "<part>"` where it failed so. */
function outcome(run: () => string, part: string | undefined): string {
  try {
    return run();
  } catch (e) {
    const message = (e as Error).message;
    return part !== undefined && message.includes(part) ? `error containing ${JSON.stringify(part)}` : `error: ${message}`;
  }
}

/** Throws the parser's error where it refuses the spec, else the schedule's text. */
function parsed(text: string, options: number): string {
  const result = parseCron(text, options);
  if (!result.ok) throw new Error(result.error);
  return scheduleText(result.schedule);
}

const hexOf = (v: unknown) => `bits ${(v as bigint).toString(16)}`;
const bounds = (min: unknown, max: unknown): Bounds => ({ min: Number(min), max: Number(max) });

/** Each test's way of reading its row: the call it makes and what it expects, as one text each. */
const JUDGES: Readonly<Record<string, (row: Row) => { judge: () => string; want: string }>> = {
  TestRange: ([expr, min, max, expected, err]: any) => ({
    judge: () => outcome(() => hexOf(getRange(expr, bounds(min, max))), err || undefined),
    want: err ? `error containing ${JSON.stringify(err)}` : hexOf(expected),
  }),
  TestField: ([expr, min, max, expected]: any) => ({ judge: () => hexOf(getField(expr, bounds(min, max))), want: hexOf(expected) }),
  TestAll: ([r, expected]: any) => ({ judge: () => hexOf(all(r)), want: hexOf(expected | STAR_BIT) }),
  TestBits: ([min, max, step, expected]: any) => ({ judge: () => hexOf(getBits(Number(min), Number(max), Number(step))), want: hexOf(expected) }),
  TestParseScheduleErrors: ([expr, err]: any) => ({
    judge: () => outcome(() => parsed(expr, Number(PARSERS.secondParser)), err),
    want: `error containing ${JSON.stringify(err)}`,
  }),
  TestParseSchedule: (row: any) => {
    const [parser, expr, expected] = Array.isArray(row) ? row : [row.parser, row.expr, row.expected];
    return { judge: () => outcome(() => parsed(expr, Number(parser)), undefined), want: scheduleText(schedule(expected)) };
  },
  TestOptionalSecondSchedule: ([expr, expected]: any) => ({
    judge: () => outcome(() => parsed(expr, SECOND_OPTIONAL | MINUTE | HOUR | DOM | MONTH | DOW | DESCRIPTOR), undefined),
    want: scheduleText(schedule(expected)),
  }),
  TestNormalizeFields: ([, input, options, expected]: any) => ({
    judge: () => outcome(() => JSON.stringify(normalizeFields(input, Number(options))), undefined),
    want: JSON.stringify(expected),
  }),
  TestNormalizeFields_Errors: ([, input, options, err]: any) => ({
    judge: () => outcome(() => JSON.stringify(normalizeFields(input, Number(options))), err),
    want: `error containing ${JSON.stringify(err)}`,
  }),
  TestStandardSpecSchedule: (row: any) => ({
    judge: () => outcome(() => parsed(row.expr, STANDARD), row.err),
    want: row.err ? `error containing ${JSON.stringify(row.err)}` : scheduleText(schedule(row.expected)),
  }),
};

/** The rows of the first `[]struct {...}{...}` table in a test's body, each parsed alone (or why not). */
function rows(body: string): { text: string; row?: Row; why?: string }[] {
  const at = body.indexOf('[]struct');
  if (at === -1) return [];
  const structOpen = body.indexOf('{', at);
  const table = blockAt(body, body.indexOf('{', structOpen + blockAt(body, structOpen).length + 2));
  const out: { text: string; row?: Row; why?: string }[] = [];
  for (let i = table.indexOf('{'); i !== -1; i = table.indexOf('{', i + out.at(-1)!.text.length + 2)) {
    const text = blockAt(table, i);
    try {
      out.push({ text, row: new GoParser(tokenize(`Row{${text}}`, { bitwise: true }), environment).expr() as Row });
    } catch (err) {
      out.push({ text, why: (err as Error).message });
    }
  }
  return out;
}

/** Every row of the parser's table tests, and TestNoDescriptorParser's one call, read or said unread. */
export function cronCases(testSource: string): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  for (const m of testSource.matchAll(/^func (Test\w+)\(t \*testing\.T\) \{\n([\s\S]*?)\n\}$/gm)) {
    const [, test, body] = m as unknown as [string, string, string];
    const judge = JUDGES[test];
    if (test === 'TestNoDescriptorParser') {
      const call = /NewParser\(([\w| ]+)\)[\s\S]*?\.Parse\("([^"]*)"\)/.exec(body);
      if (!call) table.unread.push({ name: test, why: 'no parser and call of the usual shape' });
      else {
        const options = call[1]!.split('|').reduce((o, name) => o | Number(OPTIONS[name.trim()] ?? 0n), 0);
        table.cases.push({ test, name: call[2]!, judge: () => (parseCron(call[2]!, options).ok ? 'parsed' : 'refused'), want: 'refused' });
      }
      continue;
    }
    if (!judge) continue;
    rows(body).forEach(({ text, row, why }, i) => {
      const name = `${i + 1}: ${text.trim().replace(/\s+/g, ' ').slice(0, 60)}`;
      if (!row) table.unread.push({ name: `${test}/${name}`, why: why ?? 'not read' });
      else {
        const { judge: run, want } = judge(row);
        table.cases.push({ test, name, judge: run, want });
      }
    });
  }
  return table;
}

/** How many of the parser's own cases the port answers as robfig/cron does. */
export const cronAgreement = (table: UpstreamTable<TextCase>): Agreement => textAgreement(table, 'robfig/cron');
