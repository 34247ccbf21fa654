/**
 * The small readings cert-manager's Issuer validation repeats: field.Error's words, a pointer field set or not, a
 * `[]byte` field's length, a CA bundle Go reads a certificate from, a path's `..` segment, a Secret key selector.
 */
import { isSet, obj as dictOf, str } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { isJsonBytes } from '../../model/go/json.ts';
import { appendsCertificates } from '../../model/go/x509.ts';
import type { Invalid } from '../validation/metadata.ts';

export type Obj = Record<string, any>;
export type Path = PathSegment[];

/** field.Error's words, with the Go function that gives it. */
export const error = (fn: string) => ({
  required: (path: Path, detail = ''): Invalid => ({ path, fn, message: `Required value${detail ? `: ${detail}` : ''}` }),
  forbidden: (path: Path, detail: string): Invalid => ({ path, fn, message: `Forbidden: ${detail}` }),
  notSupported: (path: Path, value: string, supported: readonly string[]): Invalid => ({
    path,
    fn,
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
  }),
  invalid: (path: Path, value: unknown, detail: string): Invalid => ({
    path,
    fn,
    message: `Invalid value: ${typeof value === 'string' ? JSON.stringify(value) : String(value)}: ${detail}`,
  }),
});

export { isSet };
export const text = str;
export const obj = dictOf as (v: unknown) => Obj;
/** A `[]byte` field's length, as the JSON's base64 decodes. */
export const byteLength = (v: unknown): number => (typeof v === 'string' && isJsonBytes(v) ? Buffer.from(v, 'base64').length : 0);

/** validateCABundleNotEmpty: Go's AppendCertsFromPEM finds at least one certificate. */
export const caBundleProblem = (v: unknown): string | undefined =>
  appendsCertificates(Buffer.from(text(v), 'base64')) ? undefined : "cert bundle didn't contain any valid certificates";

/** containsDotDotSegment: a literal `..` segment, nothing more (a doubled or trailing slash stays allowed). */
export const hasDotDot = (p: unknown): boolean => text(p).split('/').includes('..');

export function secretKeySelectorProblems(sks: unknown, at: Path): Invalid[] {
  const e = error('ValidateSecretKeySelector');
  const s = obj(sks);
  return [
    ...(text(s.name) === '' ? [e.required([...at, 'name'], 'secret name is required')] : []),
    ...(text(s.key) === '' ? [e.required([...at, 'key'], 'secret key is required')] : []),
  ];
}
