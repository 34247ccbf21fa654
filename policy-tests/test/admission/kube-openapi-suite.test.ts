/** The JSON Schema Test Suite as kube-openapi runs it, read as data (admission/upstream/kube-openapi-suite.ts). */
import { describe, expect, it } from 'vitest';
import { suiteAgreement, suiteCases } from '../../admission/upstream/kube-openapi-suite.ts';

const file = (groups: unknown[]) => JSON.stringify(groups);

const MAXIMUM = file([
  {
    description: 'exclusiveMaximum validation',
    schema: { maximum: 3.0, exclusiveMaximum: true },
    tests: [
      { description: 'below the maximum is still valid', data: 2.2, valid: true },
      { description: 'boundary point is invalid', data: 3.0, valid: false },
    ],
  },
]);
const UNIQUE = file([
  {
    description: 'uniqueItems validation',
    schema: { uniqueItems: true },
    tests: [{ description: 'unique array of integers is valid', data: [1, 2], valid: true }],
  },
]);
const TYPE = file([
  { description: 'null type matches only the null object', schema: { type: 'null' }, tests: [{ description: 'null is null', data: null, valid: true }] },
  { description: 'string type', schema: { type: 'string' }, tests: [{ description: 'a number is not a string', data: 1, valid: false }] },
]);

describe('the JSON Schema Test Suite, as kube-openapi runs it', () => {
  it('reads the files its test enables, and declines a schema no CRD can hold, saying why', () => {
    const { cases, skipped } = suiteCases([
      { name: 'maximum', json: MAXIMUM },
      { name: 'uniqueItems', json: UNIQUE },
      { name: 'type', json: TYPE },
      { name: 'refRemoteLater', json: '[]' },
    ]);
    expect(skipped).toEqual(['refRemoteLater']);
    expect(cases.map((c) => c.declined ?? 'judged')).toEqual([
      'judged',
      'judged',
      'uniqueItems cannot be set to true in a CRD, since the runtime complexity becomes quadratic',
      'type "null" is none OpenAPI v3 has',
      'judged',
    ]);
  });

  it("judges the rest through the schema layer's validator: OpenAPI v3's boolean exclusive bound read as kube-openapi reads it", () => {
    const { agreement, declined } = suiteAgreement(
      suiteCases([
        { name: 'maximum', json: MAXIMUM },
        { name: 'type', json: TYPE },
      ]).cases,
    );
    expect([agreement.agree, agreement.total, [...declined.values()]]).toEqual([3, 3, [1]]);
    const flipped = suiteAgreement([{ test: 'type/flipped', schema: { type: 'string' }, data: 'a', valid: false }]);
    expect(flipped.agreement.disagreements).toEqual([expect.objectContaining({ file: 'type/flipped', why: 'admitted, kube-openapi refuses it' })]);
  });
});
