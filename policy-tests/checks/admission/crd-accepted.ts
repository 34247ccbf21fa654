/**
 * What the API server refuses when a CRD is created: a validation rule that
 * does not compile in the cluster's CEL environment (a syntax error, a
 * function the cluster does not declare, a constant pattern RE2 cannot
 * compile), and a schema `pattern` RE2 cannot compile. Such a CRD never
 * reaches the cluster, so everything that needs it fails to sync.
 */
import { compileOutcome, schemaTypeProblems } from '../../admission/cel/crd-rules.ts';
import type { JsonSchemaNode } from '../../admission/cel/schema-node.ts';
import { re2Problem } from '../../model/core/re2.ts';
import { dig } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { PolicyCheck } from '../kit.ts';

type Node = Record<string, unknown>;

/** Every schema node under `node`, with its path in the CRD object. */
function* schemaNodes(node: unknown, path: PathSegment[]): Generator<[Node, PathSegment[]]> {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return;
  const n = node as Node;
  yield [n, path];
  for (const key of ['properties', 'patternProperties', 'definitions'] as const) {
    const children = n[key];
    if (children && typeof children === 'object') for (const [k, sub] of Object.entries(children)) yield* schemaNodes(sub, [...path, key, k]);
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) yield* schemaNodes(n[key], [...path, key]);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = n[key];
    if (Array.isArray(list)) for (const [i, sub] of list.entries()) yield* schemaNodes(sub, [...path, key, i]);
  }
}

export const crdAcceptedCheck: PolicyCheck = {
  id: 'crd-accepted',
  description:
    "The API server accepts every CRD the repository applies or renders: each x-kubernetes-validations rule and messageExpression compiles in the cluster's CEL environment (no syntax error, no function the cluster does not declare, no field its schema node does not declare, no constant pattern RE2 refuses), and each schema pattern is RE2 (invariants P1).",
  invariants: ['P1'],
  remediation: 'fix the rule or the pattern the finding names; patterns are RE2 (no lookaround, no backreferences), as in Go',
  reads: { kinds: ['CustomResourceDefinition'] },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources) {
      if (r.kind !== 'CustomResourceDefinition') continue;
      const versions = dig(r.object, ['spec', 'versions']);
      if (!Array.isArray(versions)) continue;
      for (const [v, version] of versions.entries()) {
        const root: PathSegment[] = ['spec', 'versions', v, 'schema', 'openAPIV3Schema'];
        for (const [node, path] of schemaNodes(dig(version, ['schema', 'openAPIV3Schema']), root)) {
          if (typeof node.pattern === 'string') {
            const problem = re2Problem(node.pattern);
            if (problem)
              ctx.fail(
                { resource: r, path: [...path, 'pattern'] },
                `CustomResourceDefinition ${r.name}: the pattern ${JSON.stringify(node.pattern)} is not RE2: ${problem}`,
              );
          }
          const rules = node['x-kubernetes-validations'];
          if (!Array.isArray(rules)) continue;
          for (const [i, rule] of rules.entries()) {
            for (const field of ['rule', 'messageExpression'] as const) {
              const text = (rule as Node)?.[field];
              if (typeof text !== 'string') continue;
              const c = compileOutcome(text);
              const at = { resource: r, path: [...path, 'x-kubernetes-validations', i, field] };
              if (!c.ok && c.refused) ctx.fail(at, `CustomResourceDefinition ${r.name}: the ${field} ${JSON.stringify(text)} is refused: ${c.why}`);
              // Type-checked against its node: a field the node does not declare is a compile error too.
              else if (c.ok)
                for (const problem of schemaTypeProblems(text, node as JsonSchemaNode, path.length === root.length))
                  ctx.fail(at, `CustomResourceDefinition ${r.name}: the ${field} ${JSON.stringify(text)} is refused: compilation failed: ${problem}`);
            }
          }
        }
      }
    }
  },
};
