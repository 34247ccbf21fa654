/**
 * Go's slices as apimachinery's strategic merge patch meets them, where what it leaves is Go's own doing:
 * - `sort.SliceStable` (sort/zsortfunc.go: insertion sort in blocks of 20, then SymMerge), step for step. A consistent
 *   order sorts alike under any stable sort, but the patch sorts with an order that is not one (an item the order
 *   does not list is "less" than anything), so the same comparisons and swaps are made here;
 * - a slice as a view of a shared array (`GoSlice`): the patch deletes from and appends to a list in place, and the
 *   caller then sorts by the list it holds, which sees those writes (a deleted item's place taken by the next, an
 *   appended one in the room past its end). A list encoding/json decoded has room up to the next power of two, as
 *   Go's append grows it.
 */
type Less<T> = (a: T, b: T) => boolean;

function swap<T>(s: T[], i: number, j: number): void {
  [s[i], s[j]] = [s[j]!, s[i]!];
}

function insertionSort<T>(s: T[], less: Less<T>, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) for (let j = i; j > a && less(s[j]!, s[j - 1]!); j--) swap(s, j, j - 1);
}

function swapRange<T>(s: T[], a: number, b: number, n: number): void {
  for (let i = 0; i < n; i++) swap(s, a + i, b + i);
}

function rotate<T>(s: T[], a: number, m: number, b: number): void {
  let i = m - a;
  let j = b - m;
  while (i !== j) {
    if (i > j) {
      swapRange(s, m - i, m, j);
      i -= j;
    } else {
      swapRange(s, m - i, m + j - i, i);
      j -= i;
    }
  }
  swapRange(s, m - i, m, i);
}

/** Go's bisection over [lo, hi): the first index where `goRight` fails, probed in Go's order. */
function bisect(lo: number, hi: number, goRight: (h: number) => boolean): number {
  let i = lo;
  let j = hi;
  while (i < j) {
    const h = (i + j) >>> 1;
    if (goRight(h)) i = h + 1;
    else j = h;
  }
  return i;
}

/** SymMerge of the sorted runs [a, m) and [m, b) of the list being sorted. */
function symMerge<T>({ s, less }: { s: T[]; less: Less<T> }, a: number, m: number, b: number): void {
  if (m - a === 1) {
    const i = bisect(m, b, (h) => less(s[h]!, s[a]!));
    for (let k = a; k < i - 1; k++) swap(s, k, k + 1);
    return;
  }
  if (b - m === 1) {
    const i = bisect(a, m, (h) => !less(s[m]!, s[h]!));
    for (let k = m; k > i; k--) swap(s, k, k - 1);
    return;
  }
  const mid = (a + b) >>> 1;
  const n = mid + m;
  const p = n - 1;
  const start = m > mid ? bisect(n - b, mid, (c) => !less(s[p - c]!, s[c]!)) : bisect(a, m, (c) => !less(s[p - c]!, s[c]!));
  const end = n - start;
  if (start < m && m < end) rotate(s, start, m, end);
  if (a < start && start < mid) symMerge({ s, less }, a, start, mid);
  if (mid < end && end < b) symMerge({ s, less }, mid, end, b);
}

/** Sorts `s` in place as Go's `sort.SliceStable(s, less)` does. */
export function goStableSort<T>(s: T[], less: Less<T>): void {
  const n = s.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  for (; b <= n; a = b, b += blockSize) insertionSort(s, less, a, b);
  insertionSort(s, less, a, n);
  for (; blockSize < n; blockSize *= 2) {
    a = 0;
    b = 2 * blockSize;
    for (; b <= n; a = b, b += 2 * blockSize) symMerge({ s, less }, a, a + blockSize, b);
    if (a + blockSize < n) symMerge({ s, less }, a, a + blockSize, n);
  }
}

/** A Go slice: a view of `len` elements of a backing array with room for `cap`. */
export interface GoSlice<T = unknown> {
  backing: T[];
  len: number;
  cap: number;
}

/** A list as encoding/json decodes it: appended one element at a time, so its room is the next power of two. */
export function decodedSlice<T>(list: T[]): GoSlice<T> {
  return { backing: [...list], len: list.length, cap: list.length === 0 ? 0 : 2 ** Math.ceil(Math.log2(list.length)) };
}

/** What the slice holds now. */
export const viewOf = <T>(s: GoSlice<T>): T[] => s.backing.slice(0, s.len);

/** `append(s, values...)`: written into the backing array where it has room, else into a new one. */
export function goAppend<T>(s: GoSlice<T>, ...values: T[]): GoSlice<T> {
  if (s.len + values.length <= s.cap) {
    values.forEach((v, i) => (s.backing[s.len + i] = v));
    return { ...s, len: s.len + values.length };
  }
  const backing = [...viewOf(s), ...values];
  return { backing, len: backing.length, cap: Infinity };
}

/** `append(s[:k], s[k+1:]...)`: the element at k deleted in place, the rest moved down one. */
export function goDeleteAt<T>(s: GoSlice<T>, k: number): GoSlice<T> {
  for (let i = k; i < s.len - 1; i++) s.backing[i] = s.backing[i + 1]!;
  return { ...s, len: s.len - 1 };
}
