/**
 * The API server's static cost limits at CRD create, as
 * k8s.io/apiextensions-apiserver's validation.go applies them to cel-go's
 * estimate (cost-estimator.ts): each rule's estimated cost, times the times
 * its node can occur, against the per-expression limit, and the CRD's total
 * against its own, refused in the API server's words.
 */
import { declType } from './decl-type.ts';
import type { JsonSchemaNode } from './schema-node.ts';

/** StaticEstimatedCostLimit */
export const PER_EXPRESSION_LIMIT = 10_000_000;
/** StaticEstimatedCRDCostLimit */
export const PER_CRD_LIMIT = 100_000_000;
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/**
 * How many times a rule can run for one object when no list or map around its node bounds it: as many values of the
 * node as fit in a request (compilation.go maxCardinality, from the node's smallest serialized size).
 */
export function unboundedCardinality(node: JsonSchemaNode, isRoot: boolean): number {
  const minSize = declType(node, isRoot)?.minSerializedSize ?? 1;
  return Math.floor(MAX_REQUEST_BYTES / (minSize + 1));
}

/** Go's %f: six decimals. */
const goFloat = (x: number): string => x.toFixed(6);

/** The API server's words for a cost over its limit (validation.go getCostErrorMessage). */
export function costMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const said = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${goFloat(factor)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${said} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
