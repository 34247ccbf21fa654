/**
 * The cron parser the API server reads a CronJob's schedule with: robfig/cron v3.0.1 (`parser.go`, and `spec.go`'s
 * bounds), which pkg/apis/batch/validation calls as `cron.ParseStandard`. A schedule is valid where it parses, and
 * refused in the parser's own words where not. The parser's options are upstream's, so its own tests read against
 * this port (`npm run conformance -- --cron <checkout>`); the gate uses the standard parser alone. Its error for an
 * overlong or out-of-range number quotes it as JSON does, which is Go's strconv.Quote for printable text.
 */
import { goParseDuration, loadLocation } from '../core/time.ts';

/** ParseOption, as upstream numbers them. */
export const SECOND = 1;
export const SECOND_OPTIONAL = 2;
export const MINUTE = 4;
export const HOUR = 8;
export const DOM = 16;
export const MONTH = 32;
export const DOW = 64;
export const DOW_OPTIONAL = 128;
export const DESCRIPTOR = 256;

/** The fields in the order a spec writes them, and the default of one a parser leaves out. */
const PLACES = [SECOND, MINUTE, HOUR, DOM, MONTH, DOW];
const DEFAULTS = ['0', '0', '0', '*', '*', '*'];

export interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DOW_NAMES = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

export const BOUNDS: Readonly<Record<'seconds' | 'minutes' | 'hours' | 'dom' | 'months' | 'dow', Bounds>> = {
  seconds: { min: 0, max: 59 },
  minutes: { min: 0, max: 59 },
  hours: { min: 0, max: 23 },
  dom: { min: 1, max: 31 },
  months: { min: 1, max: 12, names: MONTH_NAMES },
  dow: { min: 0, max: 6, names: DOW_NAMES },
};

/** Set on a field written `*` (or `?`), which the scheduler reads apart from the same values listed. */
export const STAR_BIT = 1n << 63n;

export type CronSchedule =
  | { kind: 'spec'; second: bigint; minute: bigint; hour: bigint; dom: bigint; month: bigint; dow: bigint; location: string }
  | { kind: 'every'; delayNanoseconds: bigint };

export type CronResult = { ok: true; schedule: CronSchedule } | { ok: false; error: string };

/** One of the parser's errors, in its words. */
export class CronError extends Error {}

/** Go's strings.Fields: split on Unicode white space (unicode.IsSpace, which is not JavaScript's \s: no U+FEFF). */
const goFields = (text: string): string[] => text.split(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/).filter(Boolean);

/** Go's strings.TrimSpace, over the same white space. */
const goTrim = (text: string): string =>
  text.replace(
    /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g,
    '',
  );

/** fmt's %s of a []string: `[a b c]`. */
const goList = (items: readonly string[]) => `[${items.join(' ')}]`;

/** getBits: the bits from min to max, every step. */
export function getBits(min: number, max: number, step: number): bigint {
  let bits = 0n;
  for (let i = min; i <= max; i += step) bits |= 1n << BigInt(i);
  return bits;
}

/** all: every bit within the bounds, and the star bit. */
export const all = (r: Bounds): bigint => getBits(r.min, r.max, 1) | STAR_BIT;

/** mustParseInt: strconv.Atoi, and no negative number. */
function mustParseInt(expr: string): number {
  // strconv.Atoi: an optional sign and decimal digits, within int64 (a value past it is out of range).
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const num = BigInt(expr);
  if (num > 2n ** 63n - 1n || num < -(2n ** 63n))
    throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  if (num < 0n) throw new CronError(`negative number (${num}) not allowed: ${expr}`);
  // Past 2^53 the bounds checks fail the same way, and no bound is near it.
  return Number(num);
}

/** parseIntOrName: a name of the bounds' (any case), or a number. */
function parseIntOrName(expr: string, names: Bounds['names']): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? mustParseInt(expr);
}

/** getRange: `number | number "-" number [ "/" number ]`, or `*` and `?`, as its bits. */
export function getRange(expr: string, r: Bounds): bigint {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let extra = 0n;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    extra = STAR_BIT;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    // "N/step" means "N-max/step".
    if (singleDigit) end = r.max;
    if (step > 1) extra = 0n;
  } else throw new CronError(`too many slashes: ${expr}`);
  if (start < r.min) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
  return getBits(start, end, step) | extra;
}

/** getField: a comma-separated list of ranges (strings.FieldsFunc: empty parts dropped). */
export function getField(field: string, r: Bounds): bigint {
  let bits = 0n;
  for (const expr of field.split(',').filter(Boolean)) bits |= getRange(expr, r);
  return bits;
}

/** normalizeFields: the six fields, the options' missing ones at their defaults. */
export function normalizeFields(fields: readonly string[], options: number): string[] {
  let optionals = 0;
  let opts = options;
  if (opts & SECOND_OPTIONAL) {
    opts |= SECOND;
    optionals++;
  }
  if (opts & DOW_OPTIONAL) {
    opts |= DOW;
    optionals++;
  }
  if (optionals > 1) throw new CronError('multiple optionals may not be configured');
  const max = PLACES.filter((place) => opts & place).length;
  const min = max - optionals;
  const count = fields.length;
  if (count < min || count > max) {
    if (min === max) throw new CronError(`expected exactly ${min} fields, found ${count}: ${goList(fields)}`);
    throw new CronError(`expected ${min} to ${max} fields, found ${count}: ${goList(fields)}`);
  }
  let given = [...fields];
  if (min < max && given.length === min) {
    if (opts & DOW_OPTIONAL) given = [...given, DEFAULTS[5]!];
    else if (opts & SECOND_OPTIONAL) given = [DEFAULTS[0]!, ...given];
    else throw new CronError('unknown optional field');
  }
  let n = 0;
  return PLACES.map((place, i) => (opts & place ? given[n++]! : DEFAULTS[i]!));
}

/** parseDescriptor: the named schedules, and `@every <duration>`. */
function parseDescriptor(descriptor: string, location: string): CronSchedule {
  const { seconds, minutes, hours, dom, months, dow } = BOUNDS;
  const at = (hour: bigint, day: bigint, month: bigint, weekday: bigint): CronSchedule => ({
    kind: 'spec',
    second: 1n << BigInt(seconds.min),
    minute: 1n << BigInt(minutes.min),
    hour,
    dom: day,
    month,
    dow: weekday,
    location,
  });
  const first = (r: Bounds) => 1n << BigInt(r.min);
  switch (descriptor) {
    case '@yearly':
    case '@annually':
      return at(first(hours), first(dom), first(months), all(dow));
    case '@monthly':
      return at(first(hours), first(dom), all(months), all(dow));
    case '@weekly':
      return at(first(hours), all(dom), all(months), first(dow));
    case '@daily':
    case '@midnight':
      return at(first(hours), all(dom), all(months), all(dow));
    case '@hourly':
      return at(all(hours), all(dom), all(months), all(dow));
  }
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    const duration = goParseDuration(descriptor.slice(every.length));
    if (!duration.ok) throw new CronError(`failed to parse duration ${descriptor}: ${duration.error}`);
    // Every: under a second is a second, and the rest whole seconds.
    const second = 1_000_000_000n;
    const delay = duration.nanoseconds < second ? second : duration.nanoseconds - (duration.nanoseconds % second);
    return { kind: 'every', delayNanoseconds: delay };
  }
  throw new CronError(`unrecognized descriptor: ${descriptor}`);
}

/**
 * How a zone prefix with no spec after it is read: upstream v3.0.1 slices past the end and panics; cert-manager's copy
 * of the parser (internal/cron, v1.21) says so instead, and is otherwise upstream's.
 */
export type PrefixWithoutSpec = 'panics' | 'refused';

/** Parser.Parse with `options`: the schedule, or the parser's error. */
export function parseCron(spec: string, options: number, prefixWithoutSpec: PrefixWithoutSpec = 'panics'): CronResult {
  try {
    return { ok: true, schedule: parse(spec, options, prefixWithoutSpec) };
  } catch (e) {
    if (e instanceof CronError) return { ok: false, error: e.message };
    throw e;
  }
}

function parse(text: string, options: number, prefixWithoutSpec: PrefixWithoutSpec): CronSchedule {
  if (text.length === 0) throw new CronError('empty spec string');
  let spec = text;
  let location = 'Local';
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    // Upstream slices spec[eq+1:i] with no space found (i = -1): Go panics, and the API server answers the request
    // with an internal error rather than a verdict.
    if (i === -1 && prefixWithoutSpec === 'refused') throw new CronError(`expected timezone prefix to be followed by a cron spec: ${spec}`);
    if (i === -1) throw new CronError(`runtime error: slice bounds out of range [${eq + 1}:-1] (the API server panics on this schedule)`);
    location = spec.slice(eq + 1, i);
    const loaded = loadLocation(location);
    if (!loaded.ok) throw new CronError(`provided bad location ${location}: ${loaded.error}`);
    spec = goTrim(spec.slice(i));
  }
  if (spec.startsWith('@')) {
    if ((options & DESCRIPTOR) === 0) throw new CronError(`parser does not accept descriptors: ${spec}`);
    return parseDescriptor(spec, location);
  }
  const fields = normalizeFields(goFields(spec), options);
  const { seconds, minutes, hours, dom, months, dow } = BOUNDS;
  return {
    kind: 'spec',
    second: getField(fields[0]!, seconds),
    minute: getField(fields[1]!, minutes),
    hour: getField(fields[2]!, hours),
    dom: getField(fields[3]!, dom),
    month: getField(fields[4]!, months),
    dow: getField(fields[5]!, dow),
    location,
  };
}

/** The standard parser (ParseStandard): minute, hour, day of month, month, day of week, and descriptors. */
export const STANDARD = MINUTE | HOUR | DOM | MONTH | DOW | DESCRIPTOR;

export const parseStandard = (spec: string): CronResult => parseCron(spec, STANDARD);

/** The most days each month has (February in a leap year, which Next reaches within its five years). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether a schedule the parser takes never fires: SpecSchedule.Next's dayMatches needs both the day of the month and
 * of the week where either is `*`, so with the week's `*` only a day its months have fires, and Next gives up (a
 * zero time: the job never runs). Any other field always selects something.
 */
export function neverFires(schedule: CronSchedule): boolean {
  if (schedule.kind !== 'spec' || schedule.dom & STAR_BIT || !(schedule.dow & STAR_BIT)) return false;
  return !MONTH_DAYS.some(
    (days, i) => schedule.month & (1n << BigInt(i + 1)) && Array.from({ length: days }, (_, d) => d + 1).some((day) => schedule.dom & (1n << BigInt(day))),
  );
}
