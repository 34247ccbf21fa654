/**
 * The object metadata of a resource a CRD schema's default holds, as the API server judges it when the CRD is created
 * (k8s.io/apiextensions-apiserver pkg/apiserver/schema/objectmeta: Coerce, then Validate). Wherever the schema marks
 * a resource (the schema's root, or an `x-kubernetes-embedded-resource` node), its `apiVersion` and `kind` must be
 * strings and its `metadata` must read as a metav1.ObjectMeta (Coerce, which then keeps only ObjectMeta's own fields,
 * as SetObjectMeta writes them back); then `apiVersion` and `kind` must be there, a group version and a kind, and the
 * metadata valid as ValidateObjectMeta judges a custom resource's (its name a path segment). Each error at its field
 * in the value, named as field.Path names it (`Child` for a property, `Key` for a map entry, `Index` for an item).
 */
import { isGoRFC3339 } from '../../model/go/strfmt.ts';
import { isMap } from '../../model/core/dig.ts';
import { dns1035Label, dns1123Label, pathSegmentName } from './syntax.ts';
import { validateAnnotations, validateLabels } from './metadata.ts';

type Node = Record<string, unknown>;

/** An error in a value: its steps from the value (a name is a property or a map key, a number an item) and field.Error. */
export interface ValueError {
  steps: ValueStep[];
  type: 'Required value' | 'Invalid value';
  detail: string;
}
export type ValueStep = { child: string } | { key: string } | { index: number };

const jsonKind = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
const cannot = (v: unknown, field: string, type: string) => `json: cannot unmarshal ${jsonKind(v)} into Go struct field ObjectMeta.${field} of type ${type}`;

/** ObjectMeta's fields as encoding/json reads them: each a Go type a JSON value must fit. */
const STRINGS = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion'];
const INTEGERS = ['generation', 'deletionGracePeriodSeconds'];
const TIMES = ['creationTimestamp', 'deletionTimestamp'];
const STRING_MAPS = ['labels', 'annotations'];
const LISTS = ['finalizers', 'ownerReferences', 'managedFields'];

/**
 * GetObjectMeta without dropping malformed fields: the metadata as metav1.ObjectMeta holds it (unknown fields gone,
 * empty ones omitted), or encoding/json's error.
 */
function objectMetaOf(metadata: unknown): { meta: Node } | { error: string } {
  if (metadata === null) return { meta: {} };
  if (!isMap(metadata)) return { error: `json: cannot unmarshal ${jsonKind(metadata)} into Go value of type v1.ObjectMeta` };
  const meta: Node = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (v === null) continue;
    if (STRINGS.includes(k) && typeof v !== 'string') return { error: cannot(v, k, 'string') };
    if (INTEGERS.includes(k) && !Number.isInteger(v)) return { error: cannot(v, k, 'int64') };
    if (TIMES.includes(k) && (typeof v !== 'string' || !isGoRFC3339(v))) return { error: `ObjectMeta.${k}: ${JSON.stringify(v)} is not an RFC 3339 time` };
    if (STRING_MAPS.includes(k)) {
      if (!isMap(v)) return { error: cannot(v, k, 'map[string]string') };
      const bad = Object.values(v).find((x) => typeof x !== 'string' && x !== null);
      if (bad !== undefined) return { error: cannot(bad, k, 'string') };
    }
    if (LISTS.includes(k)) {
      if (!Array.isArray(v))
        return { error: cannot(v, k, k === 'finalizers' ? '[]string' : `[]v1.${k === 'ownerReferences' ? 'OwnerReference' : 'ManagedFieldsEntry'}`) };
      if (k === 'finalizers' && v.some((x) => typeof x !== 'string'))
        return {
          error: cannot(
            v.find((x) => typeof x !== 'string'),
            k,
            'string',
          ),
        };
    }
    // SetObjectMeta writes back what ObjectMeta keeps: its own fields, the empty ones omitted.
    const known = [...STRINGS, ...INTEGERS, ...TIMES, ...STRING_MAPS, ...LISTS].includes(k);
    const empty = v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);
    if (known && !empty) meta[k] = v;
  }
  return { meta };
}

/** A schema node's child schema for a map key: its property, else its additionalProperties schema, and how the key is named. */
function childOf(s: Node, k: string): { schema: unknown; step: ValueStep } | undefined {
  if (isMap(s.properties) && k in s.properties) return { schema: s.properties[k], step: { child: k } };
  if (isMap(s.additionalProperties)) return { schema: s.additionalProperties, step: { key: k } };
  return undefined;
}

/**
 * objectmeta.Coerce: the first error of a resource's apiVersion, kind or metadata in `value` (which the schema `s`
 * describes; `isResource` when `s` is a resource's root), or undefined, with each resource's metadata rewritten as
 * ObjectMeta keeps it. `value` is changed in place: give it a copy.
 */
export function coerceObjectMeta(value: unknown, s: unknown, isResource: boolean, steps: ValueStep[] = []): ValueError | undefined {
  if (!isMap(s)) return undefined;
  const embedded = isResource || s['x-kubernetes-embedded-resource'] === true;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const error = coerceObjectMeta(item, s.items, false, [...steps, { index: i }]);
      if (error) return error;
    }
    return undefined;
  }
  if (!isMap(value)) return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (embedded && (k === 'apiVersion' || k === 'kind') && typeof v !== 'string')
      return { steps: [...steps, { child: k }], type: 'Invalid value', detail: `Invalid value: ${JSON.stringify(v)}: must be a string` };
    if (embedded && k === 'metadata') {
      const read = objectMetaOf(v);
      if ('error' in read)
        return { steps: [...steps, { child: 'metadata' }], type: 'Invalid value', detail: `Invalid value: ${JSON.stringify(v)}: ${read.error}` };
      value.metadata = read.meta;
    }
    const child = childOf(s, k);
    const error = child && coerceObjectMeta(value[k], child.schema, false, [...steps, child.step]);
    if (error) return error;
  }
  return undefined;
}

/** schema.ParseGroupVersion's refusal: more than one slash. */
const groupVersionProblem = (v: string): string | undefined => (v.split('/').length > 2 ? `unexpected GroupVersion string: ${v}` : undefined);

/** validateEmbeddedResource: a resource's apiVersion, kind and metadata. */
function embeddedResourceErrors(x: Node, steps: ValueStep[]): ValueError[] {
  const at = (...more: ValueStep[]) => [...steps, ...more];
  const invalid = (field: string, v: unknown, why: string): ValueError => ({
    steps: at({ child: field }),
    type: 'Invalid value',
    detail: `Invalid value: ${JSON.stringify(v)}: ${why}`,
  });
  const out: ValueError[] = [];
  for (const field of ['apiVersion', 'kind']) if (!(field in x)) out.push({ steps: at({ child: field }), type: 'Required value', detail: 'Required value' });
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion' || k === 'kind') {
      const bad =
        typeof v !== 'string'
          ? 'must be a string'
          : v === ''
            ? 'must not be empty'
            : k === 'apiVersion'
              ? groupVersionProblem(v)
              : dns1035Label(v.toLowerCase()) && `may have mixed case, but should otherwise match: ${dns1035Label(v.toLowerCase())}`;
      if (bad) out.push(invalid(k, v, bad));
    }
    if (k === 'metadata') {
      const read = objectMetaOf(v);
      if ('error' in read) out.push(invalid('metadata', v, read.error));
      else out.push(...objectMetaErrors(read.meta, at({ child: 'metadata' })));
    }
  }
  return out;
}

/** ValidateObjectMeta as a custom resource's: a name that is a path segment ("fakename" where none is given), a namespace, labels, annotations. */
function objectMetaErrors(meta: Node, steps: ValueStep[]): ValueError[] {
  const out: ValueError[] = [];
  const invalid = (step: ValueStep[], why: string): ValueError => ({ steps: [...steps, ...step], type: 'Invalid value', detail: `Invalid value: ${why}` });
  for (const field of ['name', 'generateName'] as const) {
    const v = meta[field];
    // IsPathSegmentPrefix for generateName: a prefix may be '.', but holds no '/' or '%' either.
    const bad = typeof v !== 'string' || v === '' ? undefined : field === 'name' ? pathSegmentName(v) : pathSegmentName(`${v}x`);
    if (bad) out.push(invalid([{ child: field }], `${JSON.stringify(v)}: ${bad}`));
  }
  const badNamespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? dns1123Label(meta.namespace) : undefined;
  if (badNamespace) out.push(invalid([{ child: 'namespace' }], `${JSON.stringify(meta.namespace)}: ${badNamespace}`));
  // ValidateLabels and ValidateAnnotations name the map, not the key.
  for (const p of validateLabels(meta.labels, [])) out.push(invalid([{ child: 'labels' }], p.message));
  for (const p of validateAnnotations(meta.annotations, [])) out.push(invalid([{ child: 'annotations' }], p.message));
  return out;
}

/** objectmeta.Validate: every resource in `value` (the schema's root when `isResource`, each embedded resource) judged. */
export function objectMetaValueErrors(value: unknown, s: unknown, isResource: boolean, steps: ValueStep[] = []): ValueError[] {
  if (!isMap(s)) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => objectMetaValueErrors(item, s.items, false, [...steps, { index: i }]));
  if (!isMap(value)) return [];
  const out = isResource || s['x-kubernetes-embedded-resource'] === true ? embeddedResourceErrors(value, steps) : [];
  for (const [k, v] of Object.entries(value)) {
    const child = childOf(s, k);
    if (child) out.push(...objectMetaValueErrors(v, child.schema, false, [...steps, child.step]));
  }
  return out;
}
