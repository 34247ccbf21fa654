/** Go's fmt, as the controllers' messages and Argo CD's parameters print a value encoding/json decoded (numbers as float64). */
import type { Obj } from '../core/dig.ts';

/** Go's fmt `%v` of a value encoding/json decoded: a float64 in strconv's shortest `g` form (1e+06), nil as `<nil>`. */
export function goPrint(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number') return goFloat(value);
  if (typeof value === 'string') return value;
  // An integer a YAML decoder gave Go as an int (read here as a bigint), in decimal.
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return `[${value.map(goPrint).join(' ')}]`;
  const entries = Object.entries(value as Obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${entries.map(([k, v]) => `${k}:${goPrint(v)}`).join(' ')}]`;
}

function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  // The shortest digits that read back, in %e form where the exponent is below -4 or at least 6 (strconv's shortest %g).
  const [mantissa, exp] = n.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6) {
    const digits = mantissa.replace('.', '').replace('-', '');
    const sign = n < 0 ? '-' : '';
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${body}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(n);
}
