/**
 * A YAML or JSON value as text, for messages and keys: a scalar as itself, a
 * map or list as JSON. String() would print a map as "[object Object]" and
 * hide what the file says. And a Kubernetes quantity read from its text.
 */
export function scalarText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const QUANTITY = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

/** resource.ParseQuantity: the value, or undefined when the API server cannot parse it. */
export function parseQuantity(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = QUANTITY.exec(v.trim() === v ? v : '');
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  return n * SUFFIX[m[3] ?? '']!;
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** A text as Go's strconv.ParseBool reads it (Argo CD's settings and annotations): true, false, or undefined for any other. */
export function goParseBool(text: unknown): boolean | undefined {
  if (typeof text !== 'string') return undefined;
  return GO_TRUE.has(text) ? true : GO_FALSE.has(text) ? false : undefined;
}
