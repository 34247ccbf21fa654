/**
 * A container's resources as the API server judges them (k8s.io/kubernetes pkg/apis/core/validation
 * `ValidateContainerResourceRequirements` → `validateResourceRequirements`, `validateContainerResourceName`,
 * `ValidateResourceQuantityValue`; the names from pkg/apis/core/helper):
 * - each name a qualified name, unprefixed only when standard (`cpus` is neither a standard resource nor one a
 *   container may ask for), prefixed ones native (`kubernetes.io/`) or extended;
 * - each quantity decodable and not negative, an extended resource's (and a count's) whole;
 * - a request at most its limit, and for what cannot be overcommitted (an extended resource such as a GPU, huge
 *   pages) equal to it, with a limit set;
 * - huge pages a whole number of pages, and only beside cpu or memory.
 * A quantity is printed as written, where the API server prints its canonical form.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { compareDecimals, decodeQuantity, parseGoQuantity, scaledValue, type GoQuantity, type ParsedQuantity } from '../../model/go/quantity.ts';
import type { Invalid } from './metadata.ts';
import { qualifiedName } from './syntax.ts';

type Obj = Record<string, unknown>;

const STANDARD_CONTAINER = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD = new Set([
  ...STANDARD_CONTAINER,
  ...['requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage'],
  ...['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims'],
  ...['storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers'],
]);
const COUNTS = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims']);
const QOS = new Set(['cpu', 'memory']);

const isHugePages = (name: string) => name.startsWith('hugepages-');
const isQuotaHugePages = (name: string) => isHugePages(name) || name.startsWith('requests.hugepages-');
const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string) => !isNative(name) && !name.startsWith('requests.') && qualifiedName(`requests.${name}`) === undefined;
const overcommitAllowed = (name: string) => isNative(name) && !isHugePages(name);
const isInteger = (name: string) => COUNTS.has(name) || isExtended(name);

/** validateResourceName: a qualified name, standard where unprefixed. */
export function resourceNameProblems(name: string): string[] {
  const qualified = qualifiedName(name);
  if (qualified) return [qualified];
  return !name.includes('/') && !STANDARD.has(name) && !isQuotaHugePages(name) ? ['must be a standard resource type or fully qualified'] : [];
}

/** validateContainerResourceName, with validateResourceName before it: each message the API server gives. */
export function containerResourceNameProblems(name: string): string[] {
  const out = resourceNameProblems(name);
  if (qualifiedName(name)) return out;
  const unprefixed = !name.includes('/');
  if (unprefixed && !STANDARD_CONTAINER.has(name) && !isHugePages(name)) out.push('must be a standard resource for containers');
  else if (!unprefixed && !isNative(name) && !isExtended(name)) out.push("doesn't follow extended resource name standard");
  return out;
}

/** ValidateResourceQuantityValue: not negative; a count or an extended resource whole (its MilliValue a multiple of 1000). */
function quantityValueProblems(name: string, q: GoQuantity): string[] {
  if (q.digits < 0n) return ['must be greater than or equal to 0'];
  const milli = scaledValue(q, -3);
  return isInteger(name) && milli !== undefined && milli % 1000n !== 0n ? ['must be an integer'] : [];
}

/** HugePageSizeFromResourceName: the page size after `hugepages-`, as ParseQuantity reads it. */
export const hugePageSizeFromResourceName = (name: string): ParsedQuantity => parseGoQuantity(name.slice('hugepages-'.length));

/** IsHugePageResourceValueDivisible: the value a whole number of the pages its name gives. */
function hugePagesDivisible(name: string, q: GoQuantity): boolean | undefined {
  const page = hugePageSizeFromResourceName(name);
  if (!page.ok || page.quantity.digits <= 0n) return false;
  const [pageMilli, pageValue, value] = [scaledValue(page.quantity, -3), scaledValue(page.quantity, 0), scaledValue(q, 0)];
  if (pageMilli === undefined || pageValue === undefined || value === undefined) return undefined;
  return pageMilli % 1000n === 0n && value % pageValue === 0n;
}

interface Side {
  name: string;
  raw: unknown;
  q: GoQuantity;
  at: PathSegment[];
}

/** One side's entries, each name and quantity judged; the decodable ones returned to compare. */
function judgeSide(list: unknown, at: PathSegment[], who: string, out: Invalid[]): Side[] {
  if (list === null || typeof list !== 'object' || Array.isArray(list)) return [];
  const sides: Side[] = [];
  const side = String(at[at.length - 1]);
  for (const [name, raw] of Object.entries(list as Obj)) {
    const path = [...at, name];
    for (const message of containerResourceNameProblems(name))
      out.push({ path, fn: 'validateContainerResourceName', message: `${who}: ${side}.${name}: ${message}` });
    const decoded = decodeQuantity(raw);
    if (!decoded.ok) {
      out.push({
        path,
        fn: 'Quantity.UnmarshalJSON (ParseQuantity)',
        message: `${who}: ${side}.${name} "${String(raw)}" is not a quantity (${decoded.error})`,
      });
      continue;
    }
    for (const message of quantityValueProblems(name, decoded.quantity))
      out.push({ path, fn: 'ValidateResourceQuantityValue', message: `${who}: ${side}.${name} ${String(raw)} ${message}` });
    if (isHugePages(name) && hugePagesDivisible(name, decoded.quantity) === false)
      out.push({
        path,
        fn: 'validateResourceQuantityHugePageValue',
        message: `${who}: ${side}.${name} ${String(raw)} is not positive integer multiple of ${name}`,
      });
    sides.push({ name, raw, q: decoded.quantity, at: path });
  }
  return sides;
}

/** validateResourceRequirements for a container's `resources`. */
export function containerResourceProblems(resources: unknown, at: PathSegment[], who: string): Invalid[] {
  if (resources === null || typeof resources !== 'object') return [];
  const r = resources as Obj;
  const out: Invalid[] = [];
  const limits = judgeSide(r.limits, [...at, 'limits'], who, out);
  const requests = judgeSide(r.requests, [...at, 'requests'], who, out);
  for (const request of requests) {
    const limit = limits.find((l) => l.name === request.name);
    const fn = 'validateResourceRequirements';
    if (limit === undefined) {
      if (!overcommitAllowed(request.name))
        out.push({ path: [...at, 'limits'], fn, message: `${who}: limits.${request.name}: Limit must be set for non overcommitable resources` });
      continue;
    }
    const order = compareDecimals(request.q, limit.q);
    const shown = `${who}: requests.${request.name} ${String(request.raw)}`;
    if (order !== 0 && !overcommitAllowed(request.name))
      out.push({ path: request.at, fn, message: `${shown} must be equal to ${request.name} limit of ${String(limit.raw)}` });
    else if (order > 0) out.push({ path: request.at, fn, message: `${shown} must be less than or equal to ${request.name} limit of ${String(limit.raw)}` });
  }
  const names = [...limits, ...requests].map((s) => s.name);
  if (names.some(isHugePages) && !names.some((n) => QOS.has(n)))
    out.push({ path: at, fn: 'validateResourceRequirements', message: `${who}: HugePages require cpu or memory` });
  return out;
}
