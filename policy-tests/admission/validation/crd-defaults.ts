/**
 * What the API server refuses of a CRD schema's defaults when the CRD is
 * created (apiextensions-apiserver pkg/apiserver/schema/defaulting
 * validation.go): a default with fields its schema would prune ("must not
 * have unknown fields"), one its own schema refuses (type, enum, pattern,
 * bounds; ajv over the node, as the schema layer validates objects), and
 * one its own CEL rules refuse. Each where the default stands. The words of
 * the schema errors are ajv's, not kube-openapi's; the unknown fields and
 * the rules' are the API server's.
 */
import { isMap } from '../../model/core/dig.ts';
import { extendPath, spellPath, type PathChain } from '../../model/core/path-chain.ts';
import { schemaValueErrors } from '../../schema/repo-crds.ts';
import { ruleViolations } from '../cel/crd-rules.ts';
import type { JsonSchemaNode } from '../cel/schema-node.ts';
import type { SchemaProblem } from './crd-list-types.ts';

const EMBEDDED_KEPT = new Set(['apiVersion', 'kind', 'metadata']);

/** The first field of `value` that pruning by `s` would drop, as a path in the value, or undefined. */
export function prunedField(s: unknown, value: unknown, at: string[] = []): string[] | undefined {
  if (!isMap(s) || s['x-kubernetes-int-or-string'] === true) return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = prunedField(s.items, item, [...at, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (!isMap(value)) return undefined;
  const properties = isMap(s.properties) ? s.properties : undefined;
  const extra = s.additionalProperties;
  for (const [k, v] of Object.entries(value)) {
    // The schema a field is kept by: its own property, else additionalProperties as a schema.
    const field = properties && k in properties ? properties[k] : isMap(extra) ? extra : undefined;
    const kept = field !== undefined || extra === true || s['x-kubernetes-preserve-unknown-fields'] === true;
    if (!kept && !(s['x-kubernetes-embedded-resource'] === true && EMBEDDED_KEPT.has(k))) return [...at, k];
    const found = field === undefined ? undefined : prunedField(field, v, [...at, k]);
    if (found) return found;
  }
  return undefined;
}

/** Every default problem under the schema root, at the path of its `default`, relative to the root. */
export function defaultProblems(root: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const walk = (s: unknown, link: PathChain | undefined, underRootMetadata: boolean): void => {
    if (!isMap(s)) return;
    if (s.default !== undefined && s.default !== null && !underRootMetadata) {
      const shown = JSON.stringify(s.default);
      const where = [...spellPath(link), 'default'];
      const pruned = prunedField(s, s.default);
      if (pruned) out.push({ at: where, detail: `Invalid value: ${shown}: must not have unknown fields (${pruned.join('.')})` });
      for (const error of schemaValueErrors(s, s.default)) out.push({ at: where, detail: `Invalid value: ${shown}: ${error}` });
      for (const v of ruleViolations(s as JsonSchemaNode, s.default)) out.push({ at: where, detail: v.message });
    }
    if (isMap(s.properties))
      for (const k of Object.keys(s.properties))
        walk(s.properties[k], extendPath(link, 'properties', k), underRootMetadata || (link === undefined && k === 'metadata'));
    walk(s.items, extendPath(link, 'items'), underRootMetadata);
    walk(s.additionalProperties, extendPath(link, 'additionalProperties'), underRootMetadata);
  };
  walk(root, undefined, false);
  return out;
}
