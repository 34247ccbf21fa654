/** CEL rules judged on their own, at the root of an empty object. */
import { expect, it } from 'vitest';
import { ruleViolations } from '../../admission/cel/crd-rules.ts';

/** What a rule breaks: empty when it holds. */
export const violationsOf = (rule: string) => ruleViolations({ type: 'object', 'x-kubernetes-validations': [{ rule }] }, {});

/** A test per rule, each of which must hold as the API server evaluates it. */
export function eachHolds(rules: readonly string[]): void {
  it.each(rules)('%s', (rule) => {
    expect(violationsOf(rule)).toEqual([]);
  });
}
