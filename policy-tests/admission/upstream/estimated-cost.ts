/**
 * TestCelEstimatedCostStability (k8s.io/apiextensions-apiserver, celcoststability_test.go): the estimated cost
 * cel-go gives each rule at its schema node, as the API server computes it when a CRD is created. The gate's
 * estimate (admission/cel/cost-estimator.ts) agrees when it is the same figure; one the gate cannot make (a
 * function its type check does not declare) disagrees and says why.
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

/** Agreement: the gate's estimate is the API server's figure. */
export function estimatedCostAgreement(table: ReturnType<typeof estimatedCostCases>): Agreement {
  const a = emptyAgreement();
  for (const u of table.unread) count(a, { group: u.entry, ok: false, file: `TestCelEstimatedCostStability/${u.entry}`, why: `not read: ${u.why}` });
  for (const c of table.cases) {
    const { estimatedCost, costNotJudged } = ruleAtNode(c.rule, c.schema);
    count(a, {
      group: c.entry,
      ok: !costNotJudged && estimatedCost === c.expected,
      file: `TestCelEstimatedCostStability/${c.entry}: ${c.rule}`,
      why: costNotJudged ?? `estimated ${estimatedCost}, upstream ${c.expected}`,
    });
  }
  return a;
}
