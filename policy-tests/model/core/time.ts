/**
 * Time as the repository's readers write it: durations in Prometheus' and Go's forms, and schedules and zones as
 * robfig/cron and Go read them.
 *
 * robfig/cron is the parser Kubernetes (CronJob schedules), Argo CD (sync windows) and cert-manager (renewal
 * windows) read schedules with. A CronJob's schedule and cert-manager's windows go through the port of the parser
 * itself (model/cron/); Argo CD's sync windows (five fields only) are still checked here, their field ranges
 * and syntax by cron-parser, whose firings also stand in for robfig's Next where a window's times are worked out;
 * the checks here are where robfig is stricter.
 */
import { createRequire } from 'node:module';

/** Prometheus/Alertmanager duration ("1h30m", "5m", "90s") in ms; NaN when malformed. */
export function durationMs(text: unknown): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };
  if (typeof text !== 'string' || !/^(\d+(ms|s|m|h|d|w|y))+$/.test(text)) return NaN;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)) total += Number(n) * units[unit!]!;
  return total;
}

/** Go's time units, in nanoseconds (time.unitMap: both micro signs). */
const GO_UNIT_NS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };
/** The largest duration Go holds (int64 nanoseconds, about 292 years). */
const GO_MAX_NS = 2 ** 63 - 1;

/**
 * Go's time.ParseDuration, in milliseconds (negative where it is): an optional sign, then one or more decimal
 * numbers each with a unit (`1h30m`, `1.5h`, `.5s`, `-2m`, `+0`), or a bare `0`; undefined where Go refuses it,
 * as it refuses `1d`, `1H`, `''` and a value past 292 years. Argo CD's sync windows, an ExternalSecret's refresh
 * and robfig's @every read durations so.
 */
export function goDurationMs(text: string): number | undefined {
  const sign = text.startsWith('-') ? -1 : 1;
  const rest = /^[-+]/.test(text) ? text.slice(1) : text;
  if (rest === '0') return 0;
  const parts = [...rest.matchAll(/(\d*)(?:\.(\d*))?([^\d.]+)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== rest) return undefined;
  let ns = 0;
  for (const [, whole, fraction, unit] of parts) {
    if (whole === '' && !fraction) return undefined; // Go: a number needs a digit before or after its point
    if (!(unit! in GO_UNIT_NS)) return undefined;
    ns += Number(`${whole || '0'}.${fraction || '0'}`) * GO_UNIT_NS[unit!]!;
  }
  return ns > GO_MAX_NS ? undefined : (sign * ns) / 1e6;
}

/** A Go duration (time.ParseDuration: `1h`, `30m`, `1h30m`, `1.5h`, `0`), as Kubernetes objects write them, in seconds; undefined when malformed or negative. */
export function goDurationSeconds(text: string): number | undefined {
  const ms = goDurationMs(text);
  return ms === undefined || ms < 0 ? undefined : ms / 1000;
}

type CronParser = typeof import('cron-parser');
let parser: CronParser | undefined;
const cronParser = (): CronParser => (parser ??= createRequire(import.meta.url)('cron-parser') as CronParser);

/** What robfig/cron's fields accept: numbers and * / , - ?, and names in the month and day-of-week fields only. */
const NUMERIC = /^[0-9*/,?-]+$/;
const FIELD_SYNTAX = [
  NUMERIC,
  NUMERIC,
  NUMERIC,
  /^([0-9*/,?-]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)+$/i,
  /^([0-9*/,?-]|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i,
];
const DAY_OF_WEEK_NAMES = /^(SUN|MON|TUE|WED|THU|FRI|SAT)$/i;

/** The problem cron-parser reports for a day no month has (31 in February): robfig parses it, and never fires. */
export const NEVER_FIRES = 'never-fires';

/**
 * Why robfig's five-field parser (minute hour day-of-month month day-of-week) refuses `text`, in words naming
 * `reader` (who parses it), NEVER_FIRES for a schedule it takes that names a day its month never has, or undefined.
 */
export function fiveFieldProblem(text: string, reader: string): string | undefined {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== 5) return `${fields.length} fields; ${reader} takes exactly five (minute hour day-of-month month day-of-week)`;
  const odd = fields.find((f, i) => !FIELD_SYNTAX[i]!.test(f));
  if (odd !== undefined) return `"${odd}" uses syntax ${reader} does not know (L, W and # are not supported)`;
  // robfig/cron counts days of the week 0-6; cron-parser also takes 7.
  const dow = fields[4]!.split(/[,/-]/).filter((p) => p !== '*' && p !== '?' && !DAY_OF_WEEK_NAMES.test(p));
  if (dow.some((p) => Number(p) > 6)) return `day of week "${fields[4]}" is out of range 0-6 (0 is Sunday)`;
  try {
    cronParser().CronExpressionParser.parse(text.trim());
  } catch (err) {
    const message = (err as Error).message;
    if (/explicit day of month/.test(message)) return NEVER_FIRES;
    return message.replace(/^Constraint error, got value (\S+) expected range (\S+)$/, 'value $1 is out of range $2');
  }
  return undefined;
}

/** A schedule's firings in UTC, as epoch milliseconds: the latest strictly before a moment, the first at or after one. */
export interface Firings {
  before(ms: number): number | undefined;
  atOrAfter(ms: number): number | undefined;
}

/** The firings of a five-field schedule that fiveFieldProblem accepts (and that fires), read in UTC. */
export function firings(text: string): Firings {
  const expression = cronParser().CronExpressionParser.parse(text.trim(), { tz: 'UTC', currentDate: new Date(0) });
  const step = (ms: number, move: () => { getTime(): number }): number | undefined => {
    expression.reset(new Date(ms));
    try {
      return move().getTime();
    } catch {
      return undefined; // out of cron-parser's range: no firing that way
    }
  };
  return {
    before: (ms) => step(ms, () => expression.prev()),
    // cron-parser's next() is strictly after its date, and firings fall on whole seconds.
    atOrAfter: (ms) => step(ms - 1, () => expression.next()),
  };
}

/** The runtime's IANA zones, listed once per process (ICU builds the list afresh on every call). */
let zones: Set<string> | undefined;
const knownZones = (): Set<string> => (zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']));

/**
 * Whether Go's time.LoadLocation finds `name` in the zone database: a canonical IANA name, or one of its links
 * (US/Eastern, Asia/Calcutta), which ICU also knows but does not list. ICU's UTC offsets (+01:00) are no zone
 * file, and Go refuses them.
 */
export function isZoneName(name: string): boolean {
  if (knownZones().has(name)) return true;
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** How far `zone`'s wall clock is ahead of UTC at `ms`, in milliseconds (Go's Time.Zone offset). */
export function zoneOffsetMs(zone: string, ms: number): number {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormats.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, Number(p.value)]));
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return wall - Math.floor(ms / 1000) * 1000;
}
