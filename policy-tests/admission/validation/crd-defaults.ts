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
import type { PathSegment } from '../../model/core/positions.ts';
import { schemaValueErrors } from '../../schema/repo-crds.ts';
import { ruleViolations } from '../cel/crd-rules.ts';
import type { JsonSchemaNode } from '../cel/schema-node.ts';
import type { SchemaProblem } from './crd-list-types.ts';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const EMBEDDED_KEPT = new Set(['apiVersion', 'kind', 'metadata']);

/** The first field of `value` that pruning by `s` would drop, as a path in the value, or undefined. */
export function prunedField(s: unknown, value: unknown, at: string[] = []): string[] | undefined {
  if (!isNode(s) || s['x-kubernetes-int-or-string'] === true) return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = prunedField(s.items, item, [...at, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (!isNode(value)) return undefined;
  const properties = isNode(s.properties) ? s.properties : undefined;
  const extra = s.additionalProperties;
  for (const [k, v] of Object.entries(value)) {
    if (properties && k in properties) {
      const found = prunedField(properties[k], v, [...at, k]);
      if (found) return found;
    } else if (isNode(extra)) {
      const found = prunedField(extra, v, [...at, k]);
      if (found) return found;
    } else if (
      extra !== true &&
      s['x-kubernetes-preserve-unknown-fields'] !== true &&
      !(s['x-kubernetes-embedded-resource'] === true && EMBEDDED_KEPT.has(k))
    ) {
      return [...at, k];
    }
  }
  return undefined;
}

/** A node's path as a chain to its parent, spelled out only where a default stands. */
interface Link {
  up: Link | undefined;
  key: PathSegment;
}
const spelled = (link: Link | undefined): PathSegment[] => {
  const keys: PathSegment[] = [];
  for (let l = link; l; l = l.up) keys.push(l.key);
  return keys.reverse();
};
const under = (link: Link | undefined, ...keys: PathSegment[]): Link | undefined => keys.reduce<Link | undefined>((up, key) => ({ up, key }), link);

/** Every default problem under the schema root, at the path of its `default`, relative to the root. */
export function defaultProblems(root: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const walk = (s: unknown, link: Link | undefined, underRootMetadata: boolean): void => {
    if (!isNode(s)) return;
    if (s.default !== undefined && s.default !== null && !underRootMetadata) {
      const shown = JSON.stringify(s.default);
      const where = [...spelled(link), 'default'];
      const pruned = prunedField(s, s.default);
      if (pruned) out.push({ at: where, detail: `Invalid value: ${shown}: must not have unknown fields (${pruned.join('.')})` });
      for (const error of schemaValueErrors(s as never, s.default)) out.push({ at: where, detail: `Invalid value: ${shown}: ${error}` });
      for (const v of ruleViolations(s as JsonSchemaNode, s.default)) out.push({ at: where, detail: v.message });
    }
    if (isNode(s.properties))
      for (const k of Object.keys(s.properties))
        walk(s.properties[k], under(link, 'properties', k), underRootMetadata || (link === undefined && k === 'metadata'));
    walk(s.items, under(link, 'items'), underRootMetadata);
    walk(s.additionalProperties, under(link, 'additionalProperties'), underRootMetadata);
  };
  walk(root, undefined, false);
  return out;
}
