/**
 * Kubernetes quantities for CEL, exactly: a value is digits × 10^exponent
 * (binary suffixes are powers of two, whole numbers), kept as a BigInt and
 * an exponent, so quantity("200M") == quantity("0.2G") and integers near
 * 2^63 keep every digit. A quantity is carried as its value printed in one
 * normal form (no exponent suffix, no trailing zeros), so the engine's string
 * equality is the API server's Quantity.Equal.
 */
import { compareDecimals, normalDecimal, parseGoQuantity, type Decimal } from '../../model/go/quantity.ts';
import { fail } from './values.ts';

const PLAIN_EXPONENT_LIMIT = 30;
const MAX_ALIGNED_DIGITS = 100_000;

export type Exact = Decimal;

/** A text as resource.ParseQuantity reads it (model/go/quantity.ts), in the normal form, or undefined when it refuses it. */
export function parseExact(text: string): Exact | undefined {
  const parsed = parseGoQuantity(text);
  return parsed.ok ? normalDecimal({ digits: parsed.quantity.digits, exponent: parsed.quantity.exponent }) : undefined;
}

export function formatExact(q: Exact): string {
  const { digits, exponent } = normalDecimal(q);
  const negative = digits < 0n;
  const text = (negative ? -digits : digits).toString();
  let out: string;
  // A large exponent is written as one (ParseQuantity reads it back exactly): a quantity's text stays as short as the text it was read from.
  if (exponent > PLAIN_EXPONENT_LIMIT) out = `${text}e${exponent}`;
  else if (exponent >= 0) out = text + '0'.repeat(exponent);
  else {
    const padded = text.padStart(-exponent + 1, '0');
    out = `${padded.slice(0, exponent)}.${padded.slice(exponent)}`;
  }
  return negative ? `-${out}` : out;
}

/**
 * Both values at one exponent, to add or compare. A sum over a wider spread than this would be a number of that many
 * digits (Go's inf.Dec builds it too): past it the gate says it cannot compute it, not hold for minutes.
 */
function aligned(a: Exact, b: Exact): [bigint, bigint, number] {
  const e = Math.min(a.exponent, b.exponent);
  if (Math.max(a.exponent, b.exponent) - e > MAX_ALIGNED_DIGITS) fail('quantities too far apart in magnitude for the gate to compute exactly');
  return [a.digits * 10n ** BigInt(a.exponent - e), b.digits * 10n ** BigInt(b.exponent - e), e];
}

export const addExact = (a: Exact, b: Exact): Exact => {
  const [x, y, e] = aligned(a, b);
  return normalDecimal({ digits: x + y, exponent: e });
};
export const negate = (a: Exact): Exact => ({ digits: -a.digits, exponent: a.exponent });

/** Quantity.Cmp, as the model reads it (model/go/quantity.ts). */
export const compareExact = (a: Exact, b: Exact): number => compareDecimals(a, b);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The value as an int64, or undefined when it has a fraction or does not fit (Quantity.AsInt64's ok). */
export function asInt64(q: Exact): bigint | undefined {
  if (q.exponent < 0) return undefined;
  // int64 holds 19 digits: a larger exponent on a nonzero value is out of it, before 10^exponent is built.
  if (q.digits !== 0n && q.exponent > 19) return undefined;
  const v = q.digits * 10n ** BigInt(q.exponent);
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}

export const asFloat = (q: Exact): number => Number(formatExact(q));
