/**
 * A YAML or JSON value as text, for messages and keys: a scalar as itself, a
 * map or list as JSON. String() would print a map as "[object Object]" and
 * hide what the file says.
 */
export function scalarText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** A text as Go's strconv.ParseBool reads it (Argo CD's settings and annotations): true, false, or undefined for any other. */
export function goParseBool(text: unknown): boolean | undefined {
  if (typeof text !== 'string') return undefined;
  return GO_TRUE.has(text) ? true : GO_FALSE.has(text) ? false : undefined;
}

// Go's unicode.IsSpace, as strings.TrimSpace trims it (U+FEFF, which JavaScript's trim takes, is none).
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const GO_TRIMMED = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

/** A text as Go's strings.TrimSpace leaves it. */
export const goTrimSpace = (text: string): string => text.replace(GO_TRIMMED, '');

/** A Go list flag's items (kube-state-metrics' ResourceSet, MetricSet, NamespaceList): split at commas, each trimmed, empty ones dropped. */
export const goCommaItems = (value: string): string[] =>
  value
    .split(',')
    .map(goTrimSpace)
    .filter((x) => x !== '');

/** Whether a facts entry is a list of one text or more. */
export const isTextList = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');

/** Whether a facts entry is a regular expression JavaScript compiles. */
export function isRegExpSource(v: unknown): v is string {
  try {
    return typeof v === 'string' && new RegExp(v) instanceof RegExp;
  } catch {
    return false;
  }
}

/** A Pod Security policy version as ParseVersion reads it, "v1.N": its minor, or undefined for anything else ("latest" too). */
export function policyVersionMinor(text: unknown): number | undefined {
  const pinned = typeof text === 'string' ? /^v1\.(0|[1-9][0-9]*)$/.exec(text) : null;
  return pinned ? Number(pinned[1]) : undefined;
}

/** The pointer versions git-lfs decodes (lfs/pointer.go `v1Aliases`: the alpha's, the pre-release's, the launch's). */
const LFS_POINTER_VERSIONS = new Set(['http://git-media.io/v/2', 'https://hawser.github.com/spec/v1', 'https://git-lfs.github.com/spec/v1']);
const LFS_POINTER_KEYS = ['version', 'oid', 'size'];
const LFS_OID = /^sha256:[0-9a-f]{64}$/;

/**
 * Whether a file's text is a Git LFS pointer, as git-lfs decodes one (lfs/pointer.go `DecodePointer`, which `git lfs
 * checkout` runs on each blob of the tree under 1024 bytes): the text trimmed, blank lines skipped, `version`, `oid`
 * and `size` in that order with `ext-<digit>-<name>` lines anywhere among them and nothing after `size`; a known
 * version, a sha256 oid, a size of zero or more, each extension's oid valid and no priority twice. What a checkout
 * holds in place of a file stored in LFS until `git lfs checkout` puts the object there.
 */
export function isLfsPointer(text: string): boolean {
  if (Buffer.byteLength(text) >= 1024) return false;
  const data = text.trim();
  if (!/git-media|hawser|git-lfs/.test(data)) return false;
  const keys = new Map<string, string>();
  const priorities = new Set<string>();
  for (const raw of data.split('\n')) {
    // bufio.ScanLines: a line ends at \n, a \r before it dropped.
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') continue;
    const space = line.indexOf(' ');
    if (space === -1 || keys.size >= LFS_POINTER_KEYS.length) return false;
    const [key, value] = [line.slice(0, space), line.slice(space + 1)];
    if (key === LFS_POINTER_KEYS[keys.size]) keys.set(key, value);
    else {
      // extRE `\Aext-\d{1}-\w+` (a prefix match), then parsePointerExtension: a valid oid, and each priority once.
      const ext = /^ext-(\d)-\w/.exec(key);
      if (!ext || !LFS_OID.test(value) || priorities.has(ext[1]!)) return false;
      priorities.add(ext[1]!);
    }
  }
  // strconv.ParseInt: an optional sign, decimal digits, within int64; not negative.
  const size = /^[+-]?\d+$/.test(keys.get('size') ?? '') ? BigInt(keys.get('size')!) : -1n;
  return LFS_POINTER_VERSIONS.has(keys.get('version') ?? '') && LFS_OID.test(keys.get('oid') ?? '') && size >= 0n && size <= 9223372036854775807n;
}

/** Whether a text is a regular expression anchored at both ends (`^...$`) that compiles. */
export function isAnchoredPattern(text: string): boolean {
  if (!text.startsWith('^') || !text.endsWith('$')) return false;
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}
