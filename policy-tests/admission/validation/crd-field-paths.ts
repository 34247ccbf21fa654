/**
 * How the API server names a field of an apiextensions.k8s.io/v1 CustomResourceDefinition when it refuses it. It
 * validates the internal object the v1 one converts to (Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...),
 * where a per-version field that every version holds alike (schema, subresources, printer columns, selectable fields)
 * moves to spec's top level and is judged once: `spec.validation.openAPIV3Schema...`, not
 * `spec.versions[0].schema.openAPIV3Schema...`. A webhook conversion's fields are `spec.conversion.webhookClientConfig`
 * and `spec.conversion.conversionReviewVersions` there. A finding keeps the v1 path for its line in the file, and
 * says the API server's name, so it reads as `kubectl apply` prints it.
 */
import { isMap, list, obj } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { semanticEqual } from './semantic-equal.ts';

export type PerVersionField = 'schema' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields';

/** Each per-version field's name at spec's top level in the internal object. */
const TOP_LEVEL: Readonly<Record<PerVersionField, string>> = {
  schema: 'validation',
  subresources: 'subresources',
  additionalPrinterColumns: 'additionalPrinterColumns',
  selectableFields: 'selectableFields',
};
const PER_VERSION = Object.keys(TOP_LEVEL) as PerVersionField[];

/**
 * apiequality.Semantic.DeepEqual over one per-version field of two versions. Subresources are pointers to structs,
 * so a `status: {}` is not an absent status (semanticEqual reads an empty map as absent, as Go reads a nil map).
 */
function alike(field: PerVersionField, a: unknown, b: unknown): boolean {
  if (field !== 'subresources') return semanticEqual(a, b);
  const [x, y] = [obj(a), obj(b)];
  return (['status', 'scale'] as const).every((k) => isMap(x[k]) === isMap(y[k])) && semanticEqual(x.scale, y.scale);
}

const present = (v: unknown): boolean => (Array.isArray(v) ? v.length > 0 : isMap(v));

/**
 * The per-version fields every version of the CRD holds alike, which the API server judges once at spec's top level.
 * One that no version sets stays per version: what is missing is named at each version.
 */
export function sharedPerVersionFields(crd: unknown): ReadonlySet<PerVersionField> {
  const versions = (list(obj(obj(crd).spec).versions) as unknown[]).map(obj);
  const shared = new Set<PerVersionField>();
  if (versions.length === 0) return shared;
  for (const field of PER_VERSION) {
    const first = versions[0]![field];
    if (present(first) && versions.every((v) => alike(field, v[field], first))) shared.add(field);
  }
  return shared;
}

/** Whether a v1 path lies in a shared field of a version after the first: the API server judges that field once. */
export function repeatsSharedField(path: readonly PathSegment[], shared: ReadonlySet<PerVersionField>): boolean {
  return path[0] === 'spec' && path[1] === 'versions' && typeof path[2] === 'number' && path[2] > 0 && shared.has(path[3] as PerVersionField);
}

/** A v1 path as the internal object names it (a shared field at spec's top level, a webhook conversion's own fields). */
export function internalPath(path: readonly PathSegment[], shared: ReadonlySet<PerVersionField>): PathSegment[] {
  if (path[0] !== 'spec') return [...path];
  if (path[1] === 'versions' && typeof path[2] === 'number' && shared.has(path[3] as PerVersionField))
    return ['spec', TOP_LEVEL[path[3] as PerVersionField], ...path.slice(4)];
  if (path[1] === 'conversion' && path[2] === 'webhook') {
    if (path[3] === 'clientConfig') return ['spec', 'conversion', 'webhookClientConfig', ...path.slice(4)];
    if (path[3] === 'conversionReviewVersions') return ['spec', 'conversion', 'conversionReviewVersions', ...path.slice(4)];
  }
  return [...path];
}

/** Keys of these maps are a schema's own names, printed in brackets (field.Path's Key). */
const KEYED_MAPS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies']);

/** field.Path's spelling: spec.validation.openAPIV3Schema.properties[spec].items, spec.versions[0].name. */
export function fieldPathText(path: readonly PathSegment[]): string {
  let out = '';
  path.forEach((p, i) => {
    const keyed = typeof p === 'number' || KEYED_MAPS.has(String(path[i - 1]));
    out += keyed ? `[${p}]` : `${out ? '.' : ''}${p}`;
  });
  return out;
}

/** field.ErrorType's words at the head of a field.Error's detail ("Invalid value: ..."), or undefined. */
export function errorTypeOf(detail: string): string | undefined {
  return /^(Required value|Invalid value|Unsupported value|Forbidden|Duplicate value|Too many|Too long|Internal error)\b/.exec(detail)?.[1];
}
