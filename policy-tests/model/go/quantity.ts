/**
 * apimachinery's resource.Quantity (pkg/api/resource/quantity.go, suffix.go), ported: what `ParseQuantity` takes,
 * refuses and makes of a text, exactly, and what a quantity field of an object the API server decodes takes
 * (`Quantity.UnmarshalJSON`). Every quantity of a built-in kind is decoded so (a container's requests and limits, an
 * emptyDir's sizeLimit, a claim's storage, a quota's hard limits), and Kubernetes' CEL `quantity()` parses with it.
 *
 * Why a port and not a pattern: the decimal suffixes are Kubernetes' few (n u m k M G T P E), not SI's (no `d`, `h`,
 * `Y`); an exponent may carry a sign and wraps at int32; `1.`, `.` and `+` parse, `.e-20` does not; a value finer
 * than 1n rounds up to it and a binary one past int64 is capped. Held to quantity_test.go's own cases (`npm run
 * conformance -- --apimachinery`).
 */

/** The three errors ParseQuantity returns, in its words. */
export const QUANTITY_ERRORS = {
  format: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  numeric: 'unable to parse numeric part of quantity',
  suffix: "unable to parse quantity's suffix",
} as const;

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

/** A decimal value: digits × 10^exponent. */
export interface Decimal {
  digits: bigint;
  exponent: number;
}

/** A quantity's value, digits × 10^exponent, and the format it prints in. */
export interface GoQuantity extends Decimal {
  format: QuantityFormat;
}

export type ParsedQuantity = { ok: true; quantity: GoQuantity } | { ok: false; error: string };

interface Split {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** parseQuantityString: sign, numerator (leading zeros stripped), denominator and suffix, or undefined (ErrFormatWrong). */
function splitQuantity(str: string): Split | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    pos++;
  }
  while (str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    i = ++pos;
    while (isDigit(str[i])) i++;
    if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: '' };
    denom = str.slice(pos, i);
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  // A character the suffix cannot hold, after it or instead of its exponent's digits.
  return pos >= end ? { positive, value, num, denom, suffix: str.slice(suffixStart) } : undefined;
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, within int64. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

const DECIMAL_SUFFIXES = new Map([
  ['', 0],
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const BINARY_SUFFIXES = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);

/** The suffixer's interpret: base, exponent and format, or undefined (ErrSuffix). */
function interpret(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  const decimal = DECIMAL_SUFFIXES.get(suffix);
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = BINARY_SUFFIXES.get(suffix);
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const parsed = parseInt64(suffix.slice(1));
    // int32(parsed): Go's conversion keeps the low 32 bits.
    return parsed === undefined ? undefined : { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

/** resource.ParseQuantity. */
export function parseGoQuantity(str: string): ParsedQuantity {
  const fail = (error: string): ParsedQuantity => ({ ok: false, error });
  if (str.length === 0) return fail(QUANTITY_ERRORS.format);
  const split = splitQuantity(str);
  if (!split) return fail(QUANTITY_ERRORS.format);
  const suffix = interpret(split.suffix);
  if (!suffix) return fail(QUANTITY_ERRORS.suffix);
  const fast = fastPath(split, suffix);
  if (fast) return { ok: true, quantity: fast };
  return slowPath(split, suffix);
}

/** The int64 path ParseQuantity takes when the digits fit and the scale is at least nano. */
function fastPath(split: Split, suffix: { exponent: number; format: QuantityFormat }): GoQuantity | undefined {
  const { num, denom, positive } = split;
  let scale = 0;
  let precision: number;
  let mantissa = 1n;
  if (suffix.format !== 'BinarySI') {
    scale = suffix.exponent;
    precision = 18 - (num.length + denom.length);
  } else if (suffix.exponent >= 0 && denom.length === 0) {
    mantissa = 1n << BigInt(suffix.exponent);
    precision = 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
  } else precision = -1;
  if (precision < 0) return undefined;
  scale -= denom.length;
  if (scale < -9) return undefined;
  const result = BigInt(num + denom) * mantissa;
  if (result > INT64_MAX) return undefined;
  return { digits: positive ? result : -result, exponent: scale, format: suffix.format };
}

/** The inf.Dec path: the value's digits scaled by the suffix, rounded up to 1n, a binary one capped at int64's maximum. */
function slowPath(split: Split, suffix: { base: 2 | 10; exponent: number; format: QuantityFormat }): ParsedQuantity {
  // inf.Dec's SetString: a sign, digits and one point, at least one digit.
  const unsigned = split.value.replace(/^[+-]/, '');
  const [whole = '', fraction = ''] = unsigned.split('.');
  if (whole + fraction === '') return { ok: false, error: QUANTITY_ERRORS.numeric };
  let digits = BigInt(whole + fraction);
  let exponent = -fraction.length;
  if (suffix.base === 10) exponent += suffix.exponent;
  else digits <<= BigInt(suffix.exponent);
  let format = suffix.format;
  // Any value finer than a nano rounds up, away from zero, to the next nano.
  if (digits !== 0n && exponent < -9) {
    // A value below 1n is 1n; otherwise the unit has fewer digits than the value (and a hostile 1e-2000000000 builds no 10^2e9).
    const shift = -9 - exponent;
    const unit = digits.toString().length <= shift ? undefined : 10n ** BigInt(shift);
    digits = unit === undefined ? 1n : (digits + unit - 1n) / unit;
    exponent = -9;
  }
  // The cap is on the value: digits × 10^exponent against int64's maximum.
  const past = exponent >= 0 ? digits * 10n ** BigInt(exponent) > INT64_MAX : digits > INT64_MAX * 10n ** BigInt(-exponent);
  if (format === 'BinarySI' && past) [digits, exponent] = [INT64_MAX, 0];
  if (format === 'BinarySI' && digits !== 0n && exponent < 0 && digits < 10n ** BigInt(-exponent)) format = 'DecimalSI';
  const negative = split.value.startsWith('-');
  return { ok: true, quantity: { digits: negative ? -digits : digits, exponent, format } };
}

/** unicode.IsSpace, less what encoding/json writes escaped (controls, U+2028, U+2029): what Quantity.UnmarshalJSON trims. */
const JSON_SPACE = '[ \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]';
const TRIMMED = new RegExp(`^${JSON_SPACE}+|${JSON_SPACE}+$`, 'g');

/**
 * Quantity.UnmarshalJSON: a quantity field of an object the API server decodes. A number's JSON text parses as it
 * is; a string is trimmed of spaces first (`strings.TrimSpace` over its JSON text, where a control character stays
 * escaped and so fails).
 */
export function decodeQuantity(value: unknown): ParsedQuantity {
  if (typeof value === 'number') return parseGoQuantity(JSON.stringify(value));
  if (typeof value !== 'string') return { ok: false, error: 'a quantity is a string or a number' };
  return parseGoQuantity(value.replace(TRIMMED, ''));
}

/**
 * A value in one normal form: trailing zeros folded into the exponent (by the text: a division per zero would take
 * minutes over a hostile 1e300000), zero as 0e0. Equal values are equal in it.
 */
export function normalDecimal(q: Decimal): Decimal {
  if (q.digits === 0n) return { digits: 0n, exponent: 0 };
  const text = q.digits.toString();
  const kept = text.replace(/0+$/, '');
  return { digits: BigInt(kept), exponent: q.exponent + text.length - kept.length };
}

/** The power of ten just above a nonzero value's magnitude: its digits' count plus its exponent. */
const magnitude = (q: Decimal): number => (q.digits < 0n ? -q.digits : q.digits).toString().length + q.exponent;

/**
 * Quantity.Cmp: -1, 0 or 1. Different signs or magnitudes decide without aligning the two (a hostile 1e2000000000
 * would otherwise build a power of ten of two billion digits); equal magnitudes differ in exponent by no more than
 * their digits.
 */
export function compareDecimals(a: Decimal, b: Decimal): number {
  const [sa, sb] = [Math.sign(Number(a.digits)), Math.sign(Number(b.digits))];
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const [ma, mb] = [magnitude(a), magnitude(b)];
  if (ma !== mb) return ma < mb ? -sa : sa;
  const e = Math.min(a.exponent, b.exponent);
  const [x, y] = [a.digits * 10n ** BigInt(a.exponent - e), b.digits * 10n ** BigInt(b.exponent - e)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Quantity.ScaledValue for a value of at most 10^40 (Value at scale 0, MilliValue at -3): rounded up, as it rounds;
 * undefined past that, where int64 would not hold it either.
 */
export function scaledValue(q: Decimal, scale: number): bigint | undefined {
  const shift = q.exponent - scale;
  if (magnitude(q) - scale > 40) return undefined;
  if (shift >= 0) return q.digits * 10n ** BigInt(shift);
  const unit = 10n ** BigInt(-shift);
  const whole = q.digits / unit;
  return q.digits % unit !== 0n && q.digits > 0n ? whole + 1n : whole;
}

const asNumber = (parsed: ParsedQuantity): number | undefined => (parsed.ok ? Number(parsed.quantity.digits) * 10 ** parsed.quantity.exponent : undefined);

/** A quantity field's value as a number (to compare requests with limits, or sum a quota): undefined when the API server cannot decode it. */
export const quantityValue = (value: unknown): number | undefined => asNumber(decodeQuantity(value));

/** A text as ParseQuantity reads it (a flag or a setting a program parses itself), as a number, or undefined. */
export const parsedQuantityValue = (text: unknown): number | undefined => (typeof text === 'string' ? asNumber(parseGoQuantity(text)) : undefined);

/** The code of this reading, for the stores' keys: a change to it is a new key. */
export const quantityMakeup = (): string => [splitQuantity, parseInt64, interpret, parseGoQuantity, fastPath, slowPath, decodeQuantity].map(String).join('\n');
