/**
 * Kubernetes quantities for CEL, exactly: a value is digits × 10^exponent
 * (binary suffixes are powers of two, whole numbers), kept as a BigInt and
 * an exponent, so quantity("200M") == quantity("0.2G") and integers near
 * 2^63 keep every digit. A quantity is carried as its value printed in one
 * normal form (no exponent suffix, no trailing zeros), so the engine's string
 * equality is the API server's Quantity.Equal.
 */
import { parseGoQuantity } from '../../model/go/quantity.ts';

export interface Exact {
  digits: bigint;
  exponent: number;
}

function normal(q: Exact): Exact {
  let { digits, exponent } = q;
  if (digits === 0n) return { digits: 0n, exponent: 0 };
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent++;
  }
  return { digits, exponent };
}

/** A text as resource.ParseQuantity reads it (model/go/quantity.ts), in the normal form, or undefined when it refuses it. */
export function parseExact(text: string): Exact | undefined {
  const parsed = parseGoQuantity(text);
  return parsed.ok ? normal({ digits: parsed.quantity.digits, exponent: parsed.quantity.exponent }) : undefined;
}

export function formatExact(q: Exact): string {
  const { digits, exponent } = normal(q);
  const negative = digits < 0n;
  const text = (negative ? -digits : digits).toString();
  let out: string;
  if (exponent >= 0) out = text + '0'.repeat(exponent);
  else {
    const padded = text.padStart(-exponent + 1, '0');
    out = `${padded.slice(0, exponent)}.${padded.slice(exponent)}`;
  }
  return negative ? `-${out}` : out;
}

/** Both values at one exponent, to add or compare. */
function aligned(a: Exact, b: Exact): [bigint, bigint, number] {
  const e = Math.min(a.exponent, b.exponent);
  return [a.digits * 10n ** BigInt(a.exponent - e), b.digits * 10n ** BigInt(b.exponent - e), e];
}

export const addExact = (a: Exact, b: Exact): Exact => {
  const [x, y, e] = aligned(a, b);
  return normal({ digits: x + y, exponent: e });
};
export const negate = (a: Exact): Exact => ({ digits: -a.digits, exponent: a.exponent });
export const compareExact = (a: Exact, b: Exact): number => {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The value as an int64, or undefined when it has a fraction or does not fit (Quantity.AsInt64's ok). */
export function asInt64(q: Exact): bigint | undefined {
  if (q.exponent < 0) return undefined;
  const v = q.digits * 10n ** BigInt(q.exponent);
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}

export const asFloat = (q: Exact): number => Number(formatExact(q));
