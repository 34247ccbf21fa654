/**
 * The one "did you mean": the known name closest to a typo, by edit distance
 * (case aside), when it is close enough to be a likely slip: one edit for a
 * name of one or two characters, else two, or a quarter of the name's length
 * (two edits cover a transposition: nmae -> name, tga -> tag). Every finding and
 * usage error that suggests a name asks here.
 */
import { distance } from 'fastest-levenshtein';

export function nearestName(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  // Of two names as near, the one with the typo's own letters: two letters swapped (onatime -> noatime) before two
  // dropped (-> atime), which edit distance counts alike.
  const letters = (s: string) => s.toLowerCase().split('').sort().join('');
  const own = letters(name);
  for (const candidate of known) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance || (d === bestDistance && best !== undefined && letters(best) !== own && letters(candidate) === own))
      [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= (name.length <= 2 ? 1 : Math.max(2, Math.floor(name.length / 4))) ? best : undefined;
}

/** ` (did you mean "x"?)` for a name found near, or nothing: the one wording of every suggestion. */
export function suggesting(near: string | undefined): string {
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
}

/** ` (did you mean "x"?)` for the nearest known name, or nothing. */
export function didYouMean(name: string, known: Iterable<string>): string {
  return suggesting(nearestName(name, known));
}

/**
 * Whether two different names are one keystroke apart: one letter added, dropped or changed, or two neighbours
 * swapped (unpackesr, unpakcerr). Stricter than `nearestName`, for names whose near neighbours may both be real.
 */
export function oneSlipApart(a: string, b: string): boolean {
  if (a === b) return false;
  if (distance(a, b) === 1) return true;
  if (a.length !== b.length) return false;
  const differ = Array.from({ length: a.length }, (_, i) => i).filter((i) => a[i] !== b[i]);
  return differ.length === 2 && differ[1] === differ[0]! + 1 && a[differ[0]!] === b[differ[1]!] && a[differ[1]!] === b[differ[0]!];
}

/** Whether a name is another one mistyped: one keystroke apart, or the same but for its letters' case (`apj_key`, `APJ_KEY` for `API_KEY`). */
export const mistyped = (a: string, b: string): boolean => a !== b && (oneSlipApart(a, b) || a.toUpperCase() === b.toUpperCase());

/** Whether two names split in parts (a path's folders, an image's registry and path) differ in one part alone, and there by one keystroke. */
export function onePartSlipped(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const differ = a.flatMap((part, i) => (part === b[i] ? [] : [i]));
  return differ.length === 1 && oneSlipApart(a[differ[0]!]!, b[differ[0]!]!);
}
