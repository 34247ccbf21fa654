/**
 * Integers a double cannot hold. The parser reads every integer as a JavaScript number, so 9223372036854775807 (the
 * largest int64, which the API server reads exactly) becomes 9223372036854775808. The object stays plain JSON for every
 * layer that reads it as JSON (the schema layer, the checks, the stores); the exact digits are kept beside it, by path,
 * for the layer that reads integers as int64: the CEL rules (admission/), where `self.max == 9223372036854775807` must
 * hold as it does in the cluster.
 */
import { isPair, isScalar, isSeq, visit, type Document } from 'yaml';
import type { Path, PathSegment } from '../core/positions.ts';

/** One integer past a double's exact range: where it sits in its document's object, and its digits as written. */
export interface ExactInteger {
  path: PathSegment[];
  /** Decimal (with a sign) or 0x/0o as written: what BigInt reads. */
  digits: string;
}

/** 16 decimal digits (2^53 has 16), or 0x/0o and 14 more: a text without them holds no such integer. */
const MAYBE_LARGE = /[0-9]{16}|0[xo][0-9a-fA-F]{14}/;

/** Whether a file's text may hold such an integer: one scan of the file, so that most files skip the walk of their documents. */
export function mayHoldLargeIntegers(text: string): boolean {
  return MAYBE_LARGE.test(text);
}
const INTEGER = /^[-+]?[0-9]+$|^0x[0-9a-fA-F]+$|^0o[0-7]+$/;

/**
 * Every integer scalar of `doc` that a double rounds, with its path in `doc.toJS()` (walked only where
 * mayHoldLargeIntegers says the file may hold one). A value reached through an alias
 * or a merge key (`<<`) sits at another path in the object than in the text, and keeps its double.
 */
export function exactIntegers(doc: Document): ExactInteger[] {
  const out: ExactInteger[] = [];
  visit(doc, {
    Scalar(_, node, ancestors) {
      const source = node.source;
      if (typeof node.value !== 'number' || Number.isSafeInteger(node.value) || !Number.isInteger(node.value) || !source || !INTEGER.test(source)) return;
      const path = objectPath([...ancestors.slice(1), node]);
      if (path) out.push({ path, digits: source });
    },
  });
  return out;
}

/** The path of the last node of `chain` (ancestors, then the node) in the document's object; undefined for a key, or under a merge. */
function objectPath(chain: readonly unknown[]): PathSegment[] | undefined {
  const path: PathSegment[] = [];
  for (let i = 0; i < chain.length - 1; i++) {
    const here = chain[i];
    const next = chain[i + 1];
    if (isSeq(here)) path.push(here.items.indexOf(next as never));
    else if (isPair(here)) {
      if (next !== here.value || !isScalar(here.key) || here.key.value === '<<') return undefined;
      path.push(String(here.key.value));
    }
  }
  return path;
}

/** The integers under `prefix` (a List's item), with their paths made relative to it. */
export function under(integers: readonly ExactInteger[], prefix: Path): ExactInteger[] {
  return integers.filter((e) => prefix.every((segment, i) => e.path[i] === segment)).map((e) => ({ path: e.path.slice(prefix.length), digits: e.digits }));
}

/**
 * `object` with each exact integer in place, as a bigint: a copy along those paths only, the rest shared. The object
 * itself is never changed (parsed resources are shared between runs).
 */
export function withExactIntegers<T>(object: T, integers: readonly ExactInteger[] | undefined): T {
  if (!integers?.length) return object;
  let copy: unknown = object;
  for (const { path, digits } of integers) copy = replaced(copy, path, BigInt(digits));
  return copy as T;
}

function replaced(value: unknown, path: readonly PathSegment[], exact: bigint): unknown {
  if (path.length === 0) return typeof value === 'number' ? exact : value;
  const [head, ...rest] = path;
  if (Array.isArray(value) && typeof head === 'number' && head < value.length) {
    const copy = [...value];
    copy[head] = replaced(value[head], rest, exact);
    return copy;
  }
  if (typeof value === 'object' && value !== null && typeof head === 'string' && Object.hasOwn(value, head))
    return { ...(value as Record<string, unknown>), [head]: replaced((value as Record<string, unknown>)[head], rest, exact) };
  return value;
}
