/**
 * When a parsed schedule fires, read in UTC: robfig/cron v3.0.1's SpecSchedule.Next (`spec.go`: the upcoming second
 * on, a day where the day of the month and of the week match as `dayMatches` says, its hours, minutes and seconds;
 * nothing within five years is no firing), and its mirror, the latest firing before a moment, which Argo CD's sync
 * windows are worked out with. UTC has no daylight saving, so Next's adjustments for a midnight that does not exist
 * never apply here.
 */
import { STAR_BIT, type CronSchedule } from './robfig.ts';

type Spec = Extract<CronSchedule, { kind: 'spec' }>;

/** A schedule's firings as epoch milliseconds: the latest strictly before a moment, the first at or after one. */
export interface Firings {
  before(ms: number): number | undefined;
  atOrAfter(ms: number): number | undefined;
}

const DAY_MS = 86_400_000;
/** Next gives up past the fifth year after the one it starts in. */
const YEARS = 5;

const has = (bits: bigint, n: number) => (bits & (1n << BigInt(n))) !== 0n;
/** The values of a field's bit set from `min` to `max`, in order. */
const values = (bits: bigint, min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => min + i).filter((n) => has(bits, n));

/** dayMatches: both the day of the month and of the week where either field is `*`, else either. */
function dayMatches(s: Spec, day: Date): boolean {
  if (!has(s.month, day.getUTCMonth() + 1)) return false;
  const dom = has(s.dom, day.getUTCDate());
  const dow = has(s.dow, day.getUTCDay());
  return (s.dom & STAR_BIT) !== 0n || (s.dow & STAR_BIT) !== 0n ? dom && dow : dom || dow;
}

/** The firings of a spec schedule, in UTC. */
export function firingsOf(s: Spec): Firings {
  const hours = values(s.hour, 0, 23);
  const minutes = values(s.minute, 0, 59);
  const seconds = values(s.second, 0, 59);
  /** A day's firings from its start, each a time of day in ms, in order: every day that matches has the same. */
  const times = hours.flatMap((h) => minutes.flatMap((m) => seconds.map((sec) => ((h * 60 + m) * 60 + sec) * 1000)));
  /** The first index of `times` at or after `ms` (a time of day), by bisection. */
  const firstAtOrAfter = (ms: number) => {
    let [lo, hi] = [0, times.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return {
    atOrAfter(ms) {
      // Next(ms - 1 ms): the upcoming whole second on.
      const from = Math.ceil(ms / 1000) * 1000;
      const last = Date.UTC(new Date(from).getUTCFullYear() + YEARS + 1, 0, 1);
      for (let day = Math.floor(from / DAY_MS) * DAY_MS; day < last; day += DAY_MS) {
        if (!dayMatches(s, new Date(day))) continue;
        const i = firstAtOrAfter(Math.max(0, from - day));
        if (i < times.length) return day + times[i]!;
      }
      return undefined;
    },
    before(ms) {
      const first = Date.UTC(new Date(ms).getUTCFullYear() - YEARS - 1, 0, 1);
      for (let day = Math.floor((ms - 1) / DAY_MS) * DAY_MS; day >= first; day -= DAY_MS) {
        if (!dayMatches(s, new Date(day))) continue;
        const i = firstAtOrAfter(Math.min(DAY_MS, ms - day)) - 1;
        if (i >= 0) return day + times[i]!;
      }
      return undefined;
    },
  };
}
