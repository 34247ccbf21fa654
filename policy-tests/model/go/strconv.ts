/**
 * Go's strconv, where a program the cluster runs reads a literal with it: text/template's strings, character
 * constants and numbers (Unquote, UnquoteChar, ParseInt, ParseUint and ParseFloat with base 0). Only whether each
 * reads, and as what kind of number: the values are never needed.
 */

/** strconv.ErrSyntax's text, which text/template prints as the cause. */
export const GO_SYNTAX_ERROR = 'invalid syntax';

/** The one-letter escapes and the runes they stand for. */
const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };
const HEX = /^[0-9a-fA-F]+$/;

/**
 * strconv.UnquoteChar: the rune at the start of `s` (an escape among them) inside a literal quoted with `quote`, and
 * what follows it; undefined where Go refuses it.
 */
export function goUnquoteChar(s: string, quote: string): { rune: number; tail: string } | undefined {
  const c = s.codePointAt(0);
  if (c === undefined) return undefined;
  const first = String.fromCodePoint(c);
  if (first === quote && (quote === "'" || quote === '"')) return undefined;
  if (first !== '\\') return { rune: c, tail: s.slice(first.length) };
  const e = s[1];
  if (e === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return { rune: simple, tail: s.slice(2) };
  if (e === "'" || e === '"') return e === quote ? { rune: e.charCodeAt(0), tail: s.slice(2) } : undefined;
  const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  if (width > 0) {
    const digits = s.slice(2, 2 + width);
    if (digits.length < width || !HEX.test(digits)) return undefined;
    const v = Number.parseInt(digits, 16);
    // \x is a byte; \u and \U must be a valid rune, never a surrogate half.
    if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))) return undefined;
    return { rune: v, tail: s.slice(2 + width) };
  }
  if (e >= '0' && e <= '7') {
    const digits = s.slice(1, 4);
    if (!/^[0-7]{3}$/.test(digits) || Number.parseInt(digits, 8) > 255) return undefined;
    return { rune: Number.parseInt(digits, 8), tail: s.slice(4) };
  }
  return undefined;
}

/** strconv.Unquote: the text a Go string or character literal holds, or undefined where it is not one. */
export function goUnquote(text: string): string | undefined {
  if (text.length < 2) return undefined;
  const quote = text[0]!;
  if (quote !== text.at(-1)) return undefined;
  const body = text.slice(1, -1);
  if (quote === '`') return body.includes('`') ? undefined : body.replace(/\r/g, '');
  if (quote !== '"' && quote !== "'") return undefined;
  const out = goUnquoteRunes(body, quote);
  // A character literal holds exactly one rune.
  return quote === "'" && (out === undefined || Array.from(out).length !== 1) ? undefined : out;
}

/**
 * The text between two quotes, each escape read as UnquoteChar reads it; undefined where one does not read, or a
 * line ends. Prometheus's strutil.Unquote reads a single-quoted string of many runes this way.
 */
export function goUnquoteRunes(body: string, quote: string): string | undefined {
  if (body.includes('\n')) return undefined;
  let out = '';
  let rest = body;
  while (rest.length > 0) {
    const read = goUnquoteChar(rest, quote);
    if (!read) return undefined;
    out += String.fromCodePoint(read.rune);
    rest = read.tail;
  }
  return out;
}

/** strconv's underscoreOK: underscores only between digits, or between a base prefix and a digit. */
function underscoreOK(text: string): boolean {
  let s = /^[+-]/.test(text) ? text.slice(1) : text;
  let saw = '^';
  let hex = false;
  if (/^0[bBoOxX]/.test(s)) {
    saw = '0';
    hex = /^0[xX]/.test(s);
    s = s.slice(2);
  }
  for (const c of s) {
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) saw = '0';
    else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else if (saw === '_') return false;
    else saw = '!';
  }
  return saw !== '_';
}

const BASE_DIGITS: Readonly<Record<number, RegExp>> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };

/**
 * A whole number as strconv.ParseInt(text, 0, ·) reads its syntax, whatever its size: a sign, a base prefix (or a
 * leading 0 for octal), underscores between digits; undefined where the text is not one. The parsers below hold it to
 * their type's range.
 */
export function goIntegerText(text: string): bigint | undefined {
  const sign = /^[+-]/.test(text) ? text[0]! : '';
  const body = text.slice(sign.length);
  let base = 10;
  let digits = body;
  if (/^0[xX]/.test(body)) [base, digits] = [16, body.slice(2)];
  else if (/^0[oO]/.test(body)) [base, digits] = [8, body.slice(2)];
  else if (/^0[bB]/.test(body)) [base, digits] = [2, body.slice(2)];
  else if (body.length > 1 && body.startsWith('0')) [base, digits] = [8, body.slice(1)];
  if (digits.includes('_')) {
    if (!underscoreOK(body)) return undefined;
    digits = digits.replace(/_/g, '');
  }
  if (!BASE_DIGITS[base]!.test(digits)) return undefined;
  const prefix = base === 16 ? '0x' : base === 8 ? '0o' : base === 2 ? '0b' : '';
  const value = BigInt(prefix + digits);
  return sign === '-' ? -value : value;
}

/** strconv.ParseUint(text, 0, 64) as a BigInt, or undefined where it fails (syntax or range). */
export function goParseUint(text: string): bigint | undefined {
  if (/^[+-]/.test(text)) return undefined;
  const value = goIntegerText(text);
  return value === undefined || value > 0xffffffffffffffffn ? undefined : value;
}

/** strconv.ParseInt(text, 0, 64), or undefined where it fails. */
export function goParseInt(text: string): bigint | undefined {
  const negative = text.startsWith('-');
  const magnitude = goParseUint(/^[+-]/.test(text) ? text.slice(1) : text);
  if (magnitude === undefined) return undefined;
  const limit = negative ? 1n << 63n : (1n << 63n) - 1n;
  if (magnitude > limit) return undefined;
  return negative ? -magnitude : magnitude;
}

const DECIMAL_FLOAT = /^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?$/;
const HEX_FLOAT = /^[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9][0-9_]*$/;
const SPECIAL_FLOAT = /^[+-]?(?:inf|infinity|nan)$/i;

/** strconv.ParseFloat(text, 64): the value, or undefined where it does not read `text` whole or overflows (its range error). */
export function goParseFloat(text: string): number | undefined {
  if (SPECIAL_FLOAT.test(text)) return /nan/i.test(text) ? Number.NaN : text.startsWith('-') ? -Infinity : Infinity;
  const hex = HEX_FLOAT.test(text);
  if (!hex && !DECIMAL_FLOAT.test(text)) return undefined;
  // readFloat needs a digit in the mantissa, underscores aside.
  const mantissa = text.replace(/^[+-]?(0[xX])?/, '').split(/[eEpP]/)[0]!;
  if (!/[0-9a-fA-F]/.test(hex ? mantissa : mantissa.replace(/[a-fA-F]/g, ''))) return undefined;
  if (text.includes('_') && !underscoreOK(text)) return undefined;
  const value = hex ? hexFloatValue(text.replace(/_/g, '')) : Number(text.replace(/_/g, ''));
  return Number.isFinite(value) ? value : undefined;
}

export const goParsesFloat = (text: string): boolean => goParseFloat(text) !== undefined;

function hexFloatValue(text: string): number {
  const m = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/.exec(text);
  if (!m) return Number.NaN;
  const [, sign, whole, fraction, exp] = m;
  const mantissa = Number.parseInt(`${whole}${fraction}` || '0', 16);
  return (sign === '-' ? -1 : 1) * mantissa * 2 ** (Number(exp) - 4 * fraction!.length);
}

/**
 * strconv.ParseInt(text, 10, bits) or ParseUint(text, 10, bits) (bits 0 as 64): the value, or Go's error text
 * (ErrSyntax: digits alone, a sign for ParseInt, no prefix or underscore in base 10; ErrRange past the type's bits).
 */
export function goParseDecimal(text: string, { bits, unsigned }: { bits: number; unsigned: boolean }): { value: bigint } | { error: string } {
  if (!(unsigned ? /^[0-9]+$/ : /^[+-]?[0-9]+$/).test(text)) return { error: GO_SYNTAX_ERROR };
  const value = BigInt(text);
  const width = BigInt(bits === 0 ? 64 : bits);
  const [min, max] = unsigned ? [0n, (1n << width) - 1n] : [-(1n << (width - 1n)), (1n << (width - 1n)) - 1n];
  return value < min || value > max ? { error: 'value out of range' } : { value };
}
