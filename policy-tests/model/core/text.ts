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

/** The pointer versions git-lfs decodes: the spec's, and the pre-release tool's (git-lfs lfs/pointer.go). */
const LFS_POINTER_VERSIONS = new Set(['https://git-lfs.github.com/spec/v1', 'https://hawser.github.com/spec/v1']);

/**
 * Whether a file's text is a Git LFS pointer (the LFS specification: under 1024 bytes, `key value` lines, `version`
 * first, an `oid sha256:` and a `size`): what a checkout holds in place of a file stored in LFS until `git lfs
 * checkout` puts the object there. An empty file is LFS's pointer for an empty file, and is its own content.
 */
export function isLfsPointer(text: string): boolean {
  if (text.length === 0 || Buffer.byteLength(text) >= 1024) return false;
  const pairs = text
    .trimEnd()
    .split('\n')
    .map((line) => /^([a-z0-9.-]+) (.*)$/.exec(line));
  if (pairs.some((p) => p === null) || pairs[0]?.[1] !== 'version' || !LFS_POINTER_VERSIONS.has(pairs[0][2]!)) return false;
  const value = (key: string) => pairs.find((p) => p![1] === key)?.[2];
  return /^sha256:[0-9a-f]{64}$/.test(value('oid') ?? '') && /^\d+$/.test(value('size') ?? '');
}
