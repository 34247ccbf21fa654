/**
 * What a pod may read of itself, as the API server judges it (k8s.io/kubernetes pkg/apis/core/validation
 * `validateObjectFieldSelector`, `validateContainerResourceFieldSelector`, `validateContainerResourceDivisor`,
 * `validateDownwardAPIVolumeFile`; pkg/apis/core/pods `ConvertDownwardAPIFieldLabel`; pkg/fieldpath
 * `SplitMaybeSubscriptedPath`): an env var's `fieldRef` names one of the fields the kubelet fills in
 * (`metadata.nam` is refused), a downward API volume's file one of the five it may hold, a label or annotation by a
 * qualified key; a `resourceFieldRef` one of a container's cpu, memory or ephemeral-storage requests or limits (or
 * its huge pages), with a divisor that resource takes.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { decodeQuantity, normalDecimal, type GoQuantity } from '../../model/go/quantity.ts';
import type { Invalid } from './metadata.ts';
import { isLocalNonReservedPath, qualifiedName } from './syntax.ts';

type Obj = Record<string, unknown>;

export const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const VOLUME_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.labels', 'metadata.annotations', 'metadata.uid'];
const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage'];
const RESOURCE_FIELD_PREFIXES = ['requests.hugepages-', 'limits.hugepages-'];
/** The labels ConvertDownwardAPIFieldLabel takes unsubscripted (and `spec.host`, an old client's `spec.nodeName`). */
const CONVERTIBLE = new Set([
  ...['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'],
  ...['spec.nodeName', 'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName'],
  ...['status.phase', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'],
]);

const quoted = (values: readonly string[]) =>
  [...values]
    .sort()
    .map((v) => JSON.stringify(v))
    .join(', ');
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** SplitMaybeSubscriptedPath: `metadata.labels['app']` → the path and its key. */
function splitSubscripted(fieldPath: string): { path: string; key: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const inner = fieldPath.slice(0, -2);
  const at = inner.indexOf("['");
  return at <= 0 ? undefined : { path: inner.slice(0, at), key: inner.slice(at + 2) };
}

/** validateObjectFieldSelector over `fieldRef` (its apiVersion defaulted to v1), each error at its place. */
export function fieldSelectorProblems(fs: Obj, at: PathSegment[], who: string, expressions: readonly string[]): Invalid[] {
  const fn = 'validateObjectFieldSelector';
  const fieldPath = str(fs.fieldPath);
  const version = str(fs.apiVersion) || 'v1';
  if (fieldPath === '') return [{ path: [...at, 'fieldPath'], fn, message: `${who}: fieldRef.fieldPath: Required value` }];
  const subscripted = splitSubscripted(fieldPath);
  const error =
    version !== 'v1'
      ? `unsupported pod version: ${version}`
      : subscripted
        ? ['metadata.annotations', 'metadata.labels'].includes(subscripted.path)
          ? undefined
          : `field label does not support subscript: ${fieldPath}`
        : CONVERTIBLE.has(fieldPath) || fieldPath === 'spec.host'
          ? undefined
          : `field label not supported: ${fieldPath}`;
  if (error) return [{ path: [...at, 'fieldPath'], fn, message: `${who}: fieldRef.fieldPath "${fieldPath}": error converting fieldPath: ${error}` }];
  if (subscripted) {
    const bad = qualifiedName(subscripted.path === 'metadata.annotations' ? subscripted.key.toLowerCase() : subscripted.key);
    return bad ? [{ path: at, fn, message: `${who}: fieldRef.fieldPath "${fieldPath}": ${bad}` }] : [];
  }
  const path = fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath;
  if (expressions.includes(path)) return [];
  return [{ path: [...at, 'fieldPath'], fn, message: `${who}: fieldRef.fieldPath: Unsupported value: "${path}": supported values: ${quoted(expressions)}` }];
}

const DECIMAL_ONES = ['1n', '1u', '1m', '1', '1k', '1M', '1G', '1T', '1P', '1E'];
const BINARY_ONES = ['1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

/** Quantity.String() where it prints a one and a suffix (what a divisor may be), else undefined: another text. */
function oneWithSuffix(q: GoQuantity): string | undefined {
  const { digits, exponent } = normalDecimal(q);
  const value = exponent >= 0 && exponent <= 19 ? digits * 10n ** BigInt(exponent) : undefined;
  if (q.format === 'BinarySI' && value !== undefined && value >= 1024n) {
    const k = BINARY_ONES.findIndex((_, i) => value === 1n << BigInt(10 * (i + 1)));
    return k < 0 ? undefined : BINARY_ONES[k];
  }
  if (digits !== 1n) return undefined;
  if (q.format === 'DecimalExponent') return exponent === 0 ? '1' : undefined;
  return exponent % 3 === 0 ? DECIMAL_ONES[exponent / 3 + 3] : undefined;
}

const DIVISORS: [RegExp, readonly string[], string][] = [
  [/^(limits|requests)\.cpu$/, ['1m', '1'], "only divisor's values 1m and 1 are supported with the cpu resource"],
  [/^(limits|requests)\.memory$/, ['1', ...DECIMAL_ONES.slice(4), ...BINARY_ONES], 'the memory resource'],
  [/^(limits|requests)\.ephemeral-storage$/, ['1', ...DECIMAL_ONES.slice(4), ...BINARY_ONES], 'the local ephemeral storage resource'],
  [/^(limits|requests)\.hugepages-/, ['1', ...DECIMAL_ONES.slice(4), ...BINARY_ONES], 'the hugepages resource'],
];

/** validateContainerResourceDivisor: an unset (zero) divisor is no divisor. */
function divisorProblems(resource: string, divisor: unknown, at: PathSegment[], who: string): Invalid[] {
  if (divisor === undefined || divisor === null) return [];
  const decoded = decodeQuantity(divisor);
  if (!decoded.ok || decoded.quantity.digits === 0n) return [];
  const rule = DIVISORS.find(([pattern]) => pattern.test(resource));
  const text = oneWithSuffix(decoded.quantity);
  if (!rule || (text !== undefined && rule[1].includes(text))) return [];
  const message = rule[2].startsWith('only')
    ? rule[2]
    : `only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with ${rule[2]}`;
  return [{ path: [...at, 'divisor'], fn: 'validateContainerResourceDivisor', message: `${who}: resourceFieldRef ${resource}: ${message}` }];
}

/** validateContainerResourceFieldSelector: a volume's must name its container. */
export function resourceFieldSelectorProblems(fs: Obj, at: PathSegment[], who: string, volume: boolean): Invalid[] {
  const fn = 'validateContainerResourceFieldSelector';
  const resource = str(fs.resource);
  const out: Invalid[] = [];
  if (volume && str(fs.containerName) === '')
    out.push({ path: [...at, 'containerName'], fn, message: `${who}: resourceFieldRef.containerName: Required value` });
  else if (resource === '') out.push({ path: [...at, 'resource'], fn, message: `${who}: resourceFieldRef.resource: Required value` });
  else if (!RESOURCE_FIELD_PATHS.includes(resource) && !RESOURCE_FIELD_PREFIXES.some((p) => resource.startsWith(p)))
    out.push({
      path: [...at, 'resource'],
      fn,
      message: `${who}: resourceFieldRef.resource: Unsupported value: "${resource}": supported values: ${quoted(RESOURCE_FIELD_PATHS)}`,
    });
  return [...out, ...divisorProblems(resource, fs.divisor, at, who)];
}

/** validateDownwardAPIVolumeFile for each item of a downwardAPI volume or projection (its path and mode judged elsewhere). */
export function downwardApiItemProblems(items: unknown, at: PathSegment[], who: string): Invalid[] {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown, i) => {
    const file = (item ?? {}) as Obj;
    const where = [...at, i];
    const fn = 'validateDownwardAPIVolumeFile';
    const out: Invalid[] = [];
    const path = str(file.path);
    if (path === '') out.push({ path: [...where, 'path'], fn, message: `${who}: items[${i}].path: Required value` });
    else if (!isLocalNonReservedPath(path))
      out.push({ path: [...where, 'path'], fn: 'validateLocalNonReservedPath', message: `${who}: items[${i}].path "${path}" must be relative, without '..'` });
    const [fieldRef, resourceFieldRef] = [file.fieldRef, file.resourceFieldRef];
    if (fieldRef && typeof fieldRef === 'object') {
      out.push(...fieldSelectorProblems(fieldRef as Obj, [...where, 'fieldRef'], who, VOLUME_FIELD_PATHS));
      if (resourceFieldRef) out.push({ path: where, fn, message: `${who}: items[${i}]: fieldRef and resourceFieldRef can not be specified simultaneously` });
    } else if (resourceFieldRef && typeof resourceFieldRef === 'object')
      out.push(...resourceFieldSelectorProblems(resourceFieldRef as Obj, [...where, 'resourceFieldRef'], who, true));
    else out.push({ path: where, fn, message: `${who}: items[${i}]: one of fieldRef and resourceFieldRef is required` });
    return out;
  });
}
