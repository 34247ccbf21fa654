/**
 * Time as the repository's readers write it: durations in Prometheus' and Go's forms, and the zones Go knows, with a
 * zone's offset from UTC at a moment. Schedules are robfig/cron's, in their own room (model/cron/).
 */

/** Prometheus's units (common/model's unitMap), biggest first: a duration names each at most once, in this order. */
const PROMETHEUS_UNITS: readonly (readonly [string, number])[] = [
  ['y', 31_536_000_000],
  ['w', 604_800_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
];
/** The largest duration time.Duration holds, in ms (2^63 ns). */
const PROMETHEUS_MAX_MS = 2 ** 63 / 1e6;

/**
 * A Prometheus or Alertmanager duration (common/model's ParseDuration: `1h30m`, `5m`, `90s`, a bare `0`) in ms; NaN
 * where it refuses it: no digits before a unit, a unit it does not know, units out of order or twice (`30m1h`,
 * `1m1m`), or past about 292 years.
 */
export function durationMs(text: unknown): number {
  if (text === '0') return 0;
  if (typeof text !== 'string' || text === '') return NaN;
  let total = 0;
  let lastUnit = -1;
  for (let rest = text; rest !== '';) {
    const part = /^([0-9]+)([^0-9]+)/.exec(rest);
    if (!part) return NaN;
    const unit = PROMETHEUS_UNITS.findIndex(([name]) => name === part[2]);
    if (unit <= lastUnit) return NaN; // unknown (-1), or not after the unit before it
    lastUnit = unit;
    total += Number(part[1]) * PROMETHEUS_UNITS[unit]![1];
    if (total > PROMETHEUS_MAX_MS) return NaN;
    rest = rest.slice(part[0].length);
  }
  return total;
}

/** time.unitMap, in nanoseconds (both micro signs). */
const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** The largest magnitude an int64 of nanoseconds holds (a negative duration may reach one more). */
const MAX_NS = 2n ** 63n - 1n;

export type GoDuration = { ok: true; nanoseconds: bigint } | { ok: false; error: string };

/** strconv.Quote of printable text (the durations schedules hold): a JSON string is the same. */
const quote = (text: string) => JSON.stringify(text);

/** time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or `0`. */
export function goParseDuration(orig: string): GoDuration {
  const invalid: GoDuration = { ok: false, error: `time: invalid duration ${quote(orig)}` };
  let s = orig;
  let negative = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, nanoseconds: 0n };
  if (s === '') return invalid;
  let total = 0n;
  while (s !== '') {
    if (!/^[0-9.]/.test(s)) return invalid;
    const whole = /^[0-9]*/.exec(s)![0];
    s = s.slice(whole.length);
    let fraction = '';
    let post = false;
    if (s.startsWith('.')) {
      fraction = /^[0-9]*/.exec(s.slice(1))![0];
      s = s.slice(1 + fraction.length);
      post = fraction.length > 0;
    }
    if (whole === '' && !post) return invalid;
    const unitText = /^[^0-9.]*/.exec(s)![0];
    if (unitText === '') return { ok: false, error: `time: missing unit in duration ${quote(orig)}` };
    s = s.slice(unitText.length);
    const unit = UNIT_NS[unitText];
    if (unit === undefined) return { ok: false, error: `time: unknown unit ${quote(unitText)} in duration ${quote(orig)}` };
    const v = BigInt(whole || '0');
    if (v > MAX_NS / unit) return invalid;
    let ns = v * unit;
    if (fraction) {
      // leadingFraction keeps the digits it can scale; the fraction of a unit adds under one unit more.
      ns += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
      if (ns > MAX_NS) return invalid;
    }
    total += ns;
    if (total > MAX_NS) return invalid;
  }
  return { ok: true, nanoseconds: negative ? -total : total };
}

/**
 * Go's time.ParseDuration, in milliseconds (negative where it is): an optional sign, then one or more decimal
 * numbers each with a unit (`1h30m`, `1.5h`, `.5s`, `-2m`, `+0`), or a bare `0`; undefined where Go refuses it,
 * as it refuses `1d`, `1H`, `''` and a value past 292 years. Argo CD's sync windows, an ExternalSecret's refresh
 * and robfig's @every read durations so.
 */
export function goDurationMs(text: string): number | undefined {
  const parsed = goParseDuration(text);
  return parsed.ok ? Number(parsed.nanoseconds) / 1e6 : undefined;
}

/** A Go duration (time.ParseDuration: `1h`, `30m`, `1h30m`, `1.5h`, `0`), as Kubernetes objects write them, in seconds; undefined when malformed or negative. */
export function goDurationSeconds(text: string): number | undefined {
  const ms = goDurationMs(text);
  return ms === undefined || ms < 0 ? undefined : ms / 1000;
}

/** The runtime's IANA zones, listed once per process (ICU builds the list afresh on every call). */
let zones: Set<string> | undefined;
const knownZones = (): Set<string> => (zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']));

/** The runtime's IANA zones, by their canonical names (a name one slip from one is said with it). */
export const zoneNames = (): readonly string[] => [...knownZones()];

/**
 * Go's time.LoadLocation, as far as this machine's time zone names tell it: "" and "UTC" are UTC, "Local" the
 * process's zone, a name with `..` or a leading slash refused, any other name one of the tz database's, written as
 * the database writes it (Go looks it up as a file, case and all). Node's ICU stands for the database: it knows the
 * same names (links such as US/Eastern too, which it knows but does not list), but also reads a link's name in any
 * case (`us/eastern`), which Go does not.
 */
export function loadLocation(name: string): { ok: true } | { ok: false; error: string } {
  if (name === '' || name === 'UTC' || name === 'Local') return { ok: true };
  if (name.split('/').includes('..') || name.startsWith('/') || name.startsWith('\\')) return { ok: false, error: 'time: invalid location name' };
  // A name of the runtime's list is the database's own spelling: no formatter needed.
  if (knownZones().has(name)) return { ok: true };
  // ICU's UTC offsets (+01:00) are no zone file: every name of the database starts with a letter.
  if (!/^[A-Za-z]/.test(name)) return { ok: false, error: `unknown time zone ${name}` };
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return { ok: false, error: `unknown time zone ${name}` };
  }
  // ICU reads a name in any case; Go's file lookup does not: a canonical name written in another case is unknown.
  return resolved !== name && resolved.toLowerCase() === name.toLowerCase() ? { ok: false, error: `unknown time zone ${name}` } : { ok: true };
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
