/** What the API server refuses of a CRD schema's defaults at create (pkg/apiserver/schema/defaulting/validation.go). */
import { describe, expect, it } from 'vitest';
import { defaultProblems, prunedField } from '../../admission/validation/crd-defaults.ts';

const problems = (schema: unknown) => defaultProblems(schema).map((p) => `${p.at.join('.')}: ${p.detail}`);
const root = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('defaults', () => {
  it('passes defaults their schema and rules accept, and those under the root metadata are left alone', () => {
    expect(
      problems(
        root({
          mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
          replicas: { type: 'integer', minimum: 1, default: 2, 'x-kubernetes-validations': [{ rule: 'self < 10' }] },
          spec: { type: 'object', properties: { on: { type: 'boolean' } }, default: { on: true } },
          labels: { type: 'object', additionalProperties: { type: 'string' }, default: { a: 'b' } },
        }),
      ),
    ).toEqual([]);
  });

  it('refuses one its schema refuses, one its rules refuse, and one with a field it would prune, where the default stands', () => {
    expect(problems(root({ mode: { type: 'string', enum: ['a', 'b'], default: 'c' } }))).toEqual([
      'properties.mode.default: Invalid value: "c": the value must be equal to one of the allowed values',
    ]);
    expect(problems(root({ replicas: { type: 'integer', default: 'two' } }))).toEqual([
      'properties.replicas.default: Invalid value: "two": the value must be integer',
    ]);
    expect(problems(root({ replicas: { type: 'integer', default: 12, 'x-kubernetes-validations': [{ rule: 'self < 10', message: 'at most 9' }] } }))).toEqual([
      'properties.replicas.default: Invalid value: at most 9',
    ]);
    expect(problems(root({ spec: { type: 'object', properties: { on: { type: 'boolean' } }, default: { on: true, off: false } } }))).toEqual([
      'properties.spec.default: Invalid value: {"on":true,"off":false}: must not have unknown fields (off)',
    ]);
  });

  it('prunes as the API server prunes: declared properties, map values, kept unknown fields, an embedded resource’s type and metadata', () => {
    expect(prunedField({ type: 'object', properties: { a: { type: 'object', properties: {} } } }, { a: { b: 1 } })).toEqual(['a', 'b']);
    expect(prunedField({ type: 'array', items: { type: 'object', properties: { x: {} } } }, [{ x: 1 }, { y: 2 }])).toEqual(['1', 'y']);
    expect(prunedField({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { any: 1 })).toBeUndefined();
    expect(
      prunedField({ type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }),
    ).toBeUndefined();
  });
});
