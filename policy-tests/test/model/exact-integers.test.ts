/** Integers past a double's range, from the YAML text to a CEL rule, exactly as the API server reads them (int64). */
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../model/core/manifest.ts';
import { withExactIntegers } from '../../model/yaml/exact-integers.ts';
import { ruleViolations } from '../../admission/index.ts';
import type { JsonSchemaNode } from '../../admission/index.ts';

const resource = (body: string) => {
  const parsed = parseManifest('r.yaml', `apiVersion: x.example/v1\nkind: Limit\nmetadata:\n  name: l\n${body}`);
  expect(parsed.findings).toEqual([]);
  return parsed.resources[0]!;
};

describe('exact integers', () => {
  it('keeps the digits of every integer a double rounds, by its path; the object stays plain JSON', () => {
    const r = resource(
      'spec:\n  max: 9223372036854775807\n  min: -9223372036854775808\n  safe: 9007199254740991\n  list: [1, 9007199254740993]\n  hex: 0x7fffffffffffffff\n  text: "9223372036854775807"\n',
    );
    expect(r.exactIntegers).toEqual([
      { path: ['spec', 'max'], digits: '9223372036854775807' },
      { path: ['spec', 'min'], digits: '-9223372036854775808' },
      { path: ['spec', 'list', 1], digits: '9007199254740993' },
      { path: ['spec', 'hex'], digits: '0x7fffffffffffffff' },
    ]);
    expect(typeof (r.object.spec as { max: unknown }).max).toBe('number');
    const exact = withExactIntegers(r.object, r.exactIntegers) as { spec: Record<string, unknown> };
    expect(exact.spec).toEqual({
      max: 9223372036854775807n,
      min: -9223372036854775808n,
      safe: 9007199254740991,
      list: [1, 9007199254740993n],
      hex: 9223372036854775807n,
      text: '9223372036854775807',
    });
    // A copy along the paths only: the parsed object, shared between runs, is unchanged.
    expect((r.object.spec as { max: unknown }).max).toBe(2 ** 63);
    expect(exact.spec.text).toBe((r.object.spec as { text: unknown }).text);
  });

  it('a List item keeps its own paths; a resource with none carries nothing', () => {
    const parsed = parseManifest(
      'l.yaml',
      'apiVersion: v1\nkind: List\nitems:\n  - apiVersion: x.example/v1\n    kind: Limit\n    metadata: {name: a}\n    spec: {max: 1}\n  - apiVersion: x.example/v1\n    kind: Limit\n    metadata: {name: b}\n    spec: {max: 9223372036854775807}\n',
    );
    expect(parsed.resources.map((r) => r.exactIntegers)).toEqual([undefined, [{ path: ['spec', 'max'], digits: '9223372036854775807' }]]);
  });

  it('a CRD rule reads the largest int64 as the API server does', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { max: { type: 'integer', format: 'int64' } },
          'x-kubernetes-validations': [{ rule: 'self.max == 9223372036854775807', message: 'max must be the largest int64' }],
        },
      },
    };
    const judged = (digits: string) => {
      const r = resource(`spec:\n  max: ${digits}\n`);
      return ruleViolations(schema, withExactIntegers(r.object, r.exactIntegers)).map((v) => v.message);
    };
    expect(judged('9223372036854775807')).toEqual([]);
    // One less is another int64, though a double cannot tell them apart.
    expect(judged('9223372036854775806')).toEqual(['Invalid value: max must be the largest int64']);
  });
});
