/**
 * What the API server refuses of a CRD schema's defaults when the CRD is created (apiextensions-apiserver
 * pkg/apiserver/schema/defaulting validation.go ValidateDefaults). The schema's root is a resource, and so is each
 * `x-kubernetes-embedded-resource` node; walking items and properties from there:
 * - a default inside a resource's metadata, apiVersion or kind is set into an object of that resource, which must
 *   then hold valid metadata (crd-default-meta.ts; "must result in valid metadata", at the default), then the node's
 *   schema and rules must accept it;
 * - any other default must not hold a field its schema would prune, and then, the first that refuses it: the
 *   metadata of the resources it holds (crd-default-meta.ts), its schema (ajv over the node, named as kube-openapi
 *   names an error: `.default.foo`, `.default.list.0`), its own CEL rules.
 * Each error's type is field.ErrorType's (kubeOpenAPIResultToFieldErrors'): a missing field Required, a value not in
 * the enum Unsupported, too long Too long, too many items or properties Too many, anything else Invalid. The words
 * of the schema errors are ajv's, not kube-openapi's; the others are the API server's.
 */
import { isMap } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { extendPath, spellPath, type PathChain } from '../../model/core/path-chain.ts';
import { prunedFieldPaths, schemaValueFailures, type ValueFailure } from '../../schema/repo-crds.ts';
import { ruleViolations } from '../cel/crd-rules.ts';
import type { JsonSchemaNode } from '../cel/schema-node.ts';
import type { SchemaProblem } from './crd-list-types.ts';
import { coerceObjectMeta, objectMetaValueErrors, type ValueError, type ValueStep } from './crd-default-meta.ts';

type Node = Record<string, unknown>;

const EMBEDDED_KEPT = new Set(['apiVersion', 'kind', 'metadata']);

/** The first field of `value` that pruning by `s` would drop, as a path in the value, or undefined. */
export function prunedField(s: unknown, value: unknown, isResourceRoot = false): string[] | undefined {
  if (!isMap(s)) return undefined;
  return prunedFieldPaths(s, value, isResourceRoot)[0]?.map(String);
}

const shown = (v: unknown): string => JSON.stringify(v);

/** kubeOpenAPIResultToFieldErrors: an ajv failure as field.Error, at its place in the value as kube-openapi names it. */
function schemaProblem(where: PathSegment[], value: unknown, f: ValueFailure): SchemaProblem {
  const steps = f.keyword === 'required' ? [...f.steps, String(f.params.missingProperty)] : f.steps;
  const at = [...where, ...steps.map((s) => (/^\d+$/.test(s) ? Number(s) : s))];
  const inValue = { steps: steps.length, text: steps.map((s) => `.${s}`).join('') };
  const found = f.steps.reduce<unknown>((v, s) => (isMap(v) || Array.isArray(v) ? (v as Record<string, unknown>)[s] : undefined), value);
  const detail =
    f.keyword === 'required'
      ? 'Required value'
      : f.keyword === 'enum'
        ? `Unsupported value: ${shown(found)}: supported values: ${((f.params.allowedValues as unknown[]) ?? []).map((v) => shown(typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`
        : f.keyword === 'maxLength'
          ? `Too long: may not be more than ${String(f.params.limit)} bytes`
          : f.keyword === 'maxItems' || f.keyword === 'maxProperties'
            ? `Too many: ${Array.isArray(found) ? found.length : isMap(found) ? Object.keys(found).length : 0}: must have at most ${String(f.params.limit)} ${f.keyword === 'maxItems' ? 'items' : 'properties'}`
            : `Invalid value: ${shown(found ?? '')}: ${f.message}`;
  return { at, detail, inValue };
}

/** An objectmeta error in the value, at its place as field.Path names it. */
function metaProblem(where: PathSegment[], e: ValueError): SchemaProblem {
  const at = [...where, ...e.steps.map((s) => ('child' in s ? s.child : 'key' in s ? s.key : s.index))];
  const text = e.steps.map((s) => ('child' in s ? `.${s.child}` : 'key' in s ? `[${s.key}]` : `[${s.index}]`)).join('');
  return { at, detail: e.detail, inValue: { steps: e.steps.length, text } };
}

/** The schema's refusals, else its rules': the last two steps of both branches of validate(). */
function schemaThenRules(s: Node, value: unknown, where: PathSegment[]): SchemaProblem[] {
  const failures = schemaValueFailures(s, value);
  if (failures.length > 0) return failures.map((f) => schemaProblem(where, value, f));
  return ruleViolations(s as JsonSchemaNode, value).map((v) => ({ at: where, detail: v.message }));
}

/** The default of the resource `resource`'s metadata, apiVersion or kind (or of a field in them) at `steps` from it. */
function metaDefaultProblems(s: Node, where: PathSegment[], inside: { resource: Node; steps: ValueStep[] }): SchemaProblem[] {
  // The surrounding object (NewRootObjectFunc, WithTypeMeta validation/v1 Validation): the default set at its place.
  const object: Node = { apiVersion: 'validation/v1', kind: 'Validation' };
  let holder: Record<string | number, unknown> = object;
  inside.steps.forEach((step, i) => {
    const key = 'child' in step ? step.child : 'key' in step ? step.key : step.index;
    const last = i === inside.steps.length - 1;
    const next = last ? structuredClone(s.default) : 'index' in (inside.steps[i + 1] ?? {}) ? [] : {};
    holder[key] = next;
    holder = next as Record<string | number, unknown>;
  });
  const invalid = (why: string): SchemaProblem[] => [{ at: where, detail: `Invalid value: ${shown(s.default)}: must result in valid metadata: ${why}` }];
  const coerced = coerceObjectMeta(object, inside.resource, true);
  if (coerced) return invalid(coerced.detail);
  const errors = objectMetaValueErrors(object, inside.resource, true);
  if (errors.length > 0) return invalid(`[${errors.map((e) => e.detail).join(', ')}]`);
  return schemaThenRules(s, s.default, where);
}

/** Any other default: not pruned, then its resources' metadata, its schema, its rules. */
function plainDefaultProblems(s: Node, where: PathSegment[], isResourceRoot: boolean): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const pruned = prunedField(s, s.default, s['x-kubernetes-embedded-resource'] === true);
  if (pruned) out.push({ at: where, detail: `Invalid value: ${shown(s.default)}: must not have unknown fields (${pruned.join('.')})` });
  // Coerce rewrites the default's metadata as ObjectMeta keeps it, and what follows judges that.
  const value = structuredClone(s.default);
  const coerced = coerceObjectMeta(value, s, isResourceRoot || s['x-kubernetes-embedded-resource'] === true);
  if (coerced) return [...out, metaProblem(where, coerced)];
  const errors = objectMetaValueErrors(value, s, isResourceRoot || s['x-kubernetes-embedded-resource'] === true);
  if (errors.length > 0) return [...out, ...errors.map((e) => metaProblem(where, e))];
  return [...out, ...schemaThenRules(s, value, where)];
}

/** Where the walk stands: inside a resource's metadata or not, the resource's schema, and the steps from it. */
interface Inside {
  meta: boolean;
  resource: Node;
  steps: ValueStep[];
}

/** Every default problem under the schema root, at the path of its `default` (and into it), relative to the root. */
export function defaultProblems(root: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const walk = (s: unknown, link: PathChain | undefined, parent: Inside | undefined): void => {
    if (!isMap(s)) return;
    // The root is a resource (ValidateDefaults' isResourceRoot), and so is an embedded resource: each starts anew.
    const isResource = parent === undefined || s['x-kubernetes-embedded-resource'] === true;
    const inside: Inside = isResource ? { meta: false, resource: s, steps: [] } : parent;
    if (s.default !== undefined && s.default !== null) {
      const where = [...spellPath(link), 'default'];
      out.push(...(inside.meta ? metaDefaultProblems(s, where, inside) : plainDefaultProblems(s, where, isResource && parent === undefined)));
    }
    walk(s.items, extendPath(link, 'items'), { ...inside, steps: [...inside.steps, { index: 0 }] });
    if (isMap(s.properties))
      for (const k of Object.keys(s.properties)) {
        const meta = inside.meta || (isResource && EMBEDDED_KEPT.has(k));
        walk(s.properties[k], extendPath(link, 'properties', k), { ...inside, meta, steps: [...inside.steps, { child: k }] });
      }
  };
  walk(root, undefined, undefined);
  return out;
}
