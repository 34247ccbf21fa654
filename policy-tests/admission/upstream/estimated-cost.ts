/**
 * TestCelEstimatedCostStability (k8s.io/apiextensions-apiserver, celcoststability_test.go): the estimated cost
 * cel-go gives each rule at its schema node, as the API server computes it when a CRD is created. The gate's
 * estimate (admission/cel/cost-estimate.ts) counts from below, so it agrees when it is at most the API server's
 * figure: a rule it refuses for cost is refused there too. Equal figures are counted apart.
 */
import { ruleAtNode } from '../cel/crd-rules.ts';
import type { JsonSchemaNode } from '../cel/schema-node.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { GoParser, GoUnsupported, tokenize } from './go-literals.ts';
import { ENV, entries, structural, tableText } from './validation-expressions.ts';

export interface EstimatedCostCase {
  entry: string;
  rule: string;
  schema: JsonSchemaNode;
  /** cel-go's estimated maximum cost, as the test asserts it. */
  expected: number;
}

export function estimatedCostCases(goSource: string): { cases: EstimatedCostCase[]; unread: { entry: string; why: string }[] } {
  const out: { cases: EstimatedCostCase[]; unread: { entry: string; why: string }[] } = { cases: [], unread: [] };
  for (const text of entries(tableText(goSource, 'TestCelEstimatedCostStability', 'cases'))) {
    const name = /name:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '(unnamed)';
    try {
      const entry = new GoParser(tokenize(text.slice(1, -1)), ENV).fields();
      const schema = structural(entry.schema);
      for (const [rule, cost] of Object.entries((entry.expectCost as Record<string, unknown> | undefined) ?? {}))
        out.cases.push({ entry: name, rule, schema, expected: Number(cost) });
    } catch (err) {
      if (!(err instanceof GoUnsupported)) throw err;
      out.unread.push({ entry: name, why: err.message });
    }
  }
  return out;
}

/** Agreement: the gate's estimate is within the API server's (at most it); `exact` counts the equal ones. */
export function estimatedCostAgreement(table: ReturnType<typeof estimatedCostCases>): Agreement & { exact: number } {
  const a = { ...emptyAgreement(), exact: 0 };
  for (const u of table.unread) count(a, { group: u.entry, ok: false, file: `TestCelEstimatedCostStability/${u.entry}`, why: `not read: ${u.why}` });
  for (const c of table.cases) {
    const ours = ruleAtNode(c.rule, c.schema).costLowerBound;
    if (ours === c.expected) a.exact++;
    count(a, {
      group: c.entry,
      ok: ours <= c.expected,
      file: `TestCelEstimatedCostStability/${c.entry}: ${c.rule}`,
      why: `estimated ${ours}, upstream ${c.expected}`,
    });
  }
  return a;
}
