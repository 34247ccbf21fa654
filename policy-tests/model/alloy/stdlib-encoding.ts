/**
 * The standard library's functions of text that Go's own packages compute (syntax/internal/stdlib/stdlib.go): JSON
 * in and out (encoding/json: a map's keys sorted, `<`, `>` and `&` escaped as Go escapes them), base64 in its two
 * alphabets (strict, as Go's decoder is: padding required), a query's escaping (net/url's QueryEscape and
 * QueryUnescape), and `string.format`'s common verbs (fmt: %s, %v, %d, %q, %#v, %%, of text, numbers and bools).
 * Each returns its value, or the error Go returns (which the vm prints after the function's name).
 */
import { parseDocument } from 'yaml';
import type { AlloyValue } from './parser.ts';

export type Computed = { value: AlloyValue } | { error: string } | undefined;

/** encoding/json's quoting of a string: its escapes, and the HTML characters and line separators it escapes too. */
function goQuoteJson(s: string): string {
  const named: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  return `"${Array.from(s)
    .map((c) => named[c] ?? (c.charCodeAt(0) < 0x20 || '<>&\u2028\u2029'.includes(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
    .join('')}"`;
}

/** json.Marshal of a value decoded from Alloy (a map's keys in sorted order; a number as Go writes a float64). */
export function goJsonMarshal(v: AlloyValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuoteJson(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v).replace(/e\+?(\d)$/, 'e+$1');
  if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${goQuoteJson(k)}:${goJsonMarshal((v as Record<string, AlloyValue>)[k]!)}`).join(',')}}`;
}

/** jsonEncode: only an object is encoded. */
export const toJson = (v: AlloyValue): Computed =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? { value: goJsonMarshal(v) } : { error: 'jsonEncode only supports map' };

/** jsonDecode: JSON as Go's json.Unmarshal into an `any` reads it (an error where it reads none). */
export function fromJson(text: string): Computed {
  try {
    return { value: JSON.parse(text) as AlloyValue };
  } catch (e) {
    // Go's words differ from JavaScript's; the text is no JSON either way.
    return { error: `invalid JSON (${(e as Error).message})` };
  }
}

/**
 * yamlDecode: YAML as yaml.v3 decodes it into an `any` (the core schema: `yes` is text, `0x1F` a number), one document;
 * an error where it reads none.
 */
export function fromYaml(text: string): Computed {
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: true });
  if (doc.errors.length > 0) return { error: `invalid YAML (${doc.errors[0]!.message.split('\n')[0]})` };
  return { value: (doc.toJS() as AlloyValue | undefined) ?? null };
}

const ALPHABETS = {
  std: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  url: /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$/,
};

/** base64's StdEncoding or URLEncoding DecodeString (newlines ignored, padding required), the bytes read as UTF-8. */
export function fromBase64(text: string, alphabet: 'std' | 'url'): Computed {
  const s = text.replace(/[\r\n]/g, '');
  if (!ALPHABETS[alphabet].test(s)) return { error: 'illegal base64 data' };
  return { value: Buffer.from(s, alphabet === 'std' ? 'base64' : 'base64url').toString('utf8') };
}

export const toBase64 = (text: string, alphabet: 'std' | 'url'): Computed => {
  const encoded = Buffer.from(text, 'utf8').toString('base64');
  return { value: alphabet === 'std' ? encoded : encoded.replace(/\+/g, '-').replace(/\//g, '_') };
};

/** url.QueryEscape: every byte but letters, digits and `-_.~` escaped, a space as `+`. */
export const queryEscape = (text: string): Computed => ({
  value: encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+'),
});

/** url.QueryUnescape: `+` a space, each `%XX` its byte; a bad escape is Go's error. */
export function queryUnescape(text: string): Computed {
  const bad = /%(?![0-9A-Fa-f]{2})(.{0,2})/.exec(text);
  if (bad) return { error: `invalid URL escape "%${bad[1]}"` };
  try {
    return { value: decodeURIComponent(text.replace(/\+/g, ' ')) };
  } catch {
    return undefined;
  }
}

/** One operand as a verb prints it, or undefined where the gate does not print it as Go does. */
function verb(v: string, arg: AlloyValue): string | undefined {
  if (typeof arg === 'object') return undefined;
  if (v === 'q') return typeof arg === 'string' ? JSON.stringify(arg) : undefined;
  if (v === 'd') return typeof arg === 'number' && Number.isInteger(arg) ? String(arg) : undefined;
  if (v === '#v') return typeof arg === 'string' ? JSON.stringify(arg) : String(arg);
  return v === 's' || v === 'v' ? String(arg) : undefined;
}

/** fmt.Sprintf for the verbs %s, %v, %d, %q and %#v of a string, a number or a bool, one operand each, and %%. */
export function format(pattern: string, args: readonly AlloyValue[]): Computed {
  let next = 0;
  let unread = false;
  const out = pattern.replace(/%(%|#v|[svdq])/g, (_, v: string) => {
    if (v === '%') return '%';
    const printed = next < args.length ? verb(v, args[next++]!) : undefined;
    if (printed === undefined) unread = true;
    return printed ?? '';
  });
  return unread || /%[^%svdq#]/.test(pattern.replace(/%(%|#v|[svdq])/g, '')) || next !== args.length ? undefined : { value: out };
}
