/**
 * CEL's values as the engine carries them, compared as CEL compares them:
 * ordering of one orderable type, and deep equality across lists, maps and
 * numbers. Shared by the list, set and lists-extension functions.
 */
import { charge } from './budget.ts';

/** An evaluation error with the API server's message: the engine turns a thrown error into an error value. */
export function fail(message: string): never {
  throw new Error(message);
}

export type Seconds = { message: { seconds: bigint; nanos: number; $typeName?: string } };
export const isSeconds = (v: unknown): v is Seconds =>
  typeof v === 'object' && v !== null && typeof (v as Seconds).message?.seconds === 'bigint' && typeof (v as Seconds).message?.nanos === 'number';
const isUint = (v: unknown): v is { value: bigint } =>
  typeof v === 'object' && v !== null && Symbol.for('@bufbuild/cel/uint') in v && typeof (v as { value?: unknown }).value === 'bigint';
const order = <T>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0);

/** CEL's ordering of two values of one orderable type: ints, uints, doubles, strings, bytes, bools (false first, as cel-go's types.Bool), durations, timestamps. */
export const compare = (a: unknown, b: unknown): number => {
  if (typeof a === 'bigint' && typeof b === 'bigint') return order(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return order(Number(a), Number(b));
  if (typeof a === 'number' && typeof b === 'number') return order(a, b);
  if (typeof a === 'string' && typeof b === 'string') return order(a, b);
  if (isUint(a) && isUint(b)) return order(a.value, b.value);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return order(a[i]!, b[i]!);
    return order(a.length, b.length);
  }
  if (isSeconds(a) && isSeconds(b) && (a as object).constructor === (b as object).constructor)
    return order(a.message.seconds, b.message.seconds) || order(a.message.nanos, b.message.nanos);
  return fail('no such overload: lists of mixed or unordered types');
};

/** CEL's ==, deep: lists by element, maps by key, numbers across int, uint and double, bytes by content. */
export function celEquals(a: unknown, b: unknown): boolean {
  const num = (v: unknown): number | bigint | undefined => (typeof v === 'bigint' || typeof v === 'number' ? v : isUint(v) ? v.value : undefined);
  const [x, y] = [num(a), num(b)];
  if (x !== undefined && y !== undefined) return typeof x === typeof y ? x === y : Number(x) === Number(y);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((v, i) => v === b[i]);
  if (isSeconds(a) && isSeconds(b)) return compare(a, b) === 0;
  const listish = (v: unknown) => typeof v === 'object' && v !== null && Symbol.for('@bufbuild/cel/list') in v;
  const mapish = (v: unknown) => typeof v === 'object' && v !== null && Symbol.for('@bufbuild/cel/map') in v;
  if (listish(a) && listish(b)) {
    const [xs, ys] = [[...(a as Iterable<unknown>)], [...(b as Iterable<unknown>)]];
    return xs.length === ys.length && xs.every((v, i) => celEquals(v, ys[i]));
  }
  if (mapish(a) && mapish(b)) {
    const [ma, mb] = [a as { size: number; keys(): Iterable<unknown>; get(k: unknown): unknown }, b as { size: number; get(k: unknown): unknown }];
    return ma.size === mb.size && [...ma.keys()].every((k) => mb.get(k) !== undefined && celEquals(ma.get(k), mb.get(k)));
  }
  return a === b;
}

/** A list's elements, each charged to the runtime cost (budget.ts): cel-go charges these functions by the list's size. */
export const items = (list: unknown): unknown[] => {
  const out = [...(list as Iterable<unknown>)];
  charge(out.length);
  return out;
};
