/**
 * Go's time.ParseDuration, with its errors in its words: what robfig/cron's `@every <duration>` reads, so a
 * schedule it refuses is refused with the same sentence the API server returns.
 */

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
