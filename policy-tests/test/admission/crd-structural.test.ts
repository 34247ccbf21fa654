/** What the API server refuses of a CRD schema that is not structural (pkg/apiserver/schema/validation.go), in field.Error's words. */
import { describe, expect, it } from 'vitest';
import { structuralProblems } from '../../admission/validation/crd-structural.ts';

const problems = (schema: unknown) => structuralProblems(schema).map((p) => `${p.at.join('.')}: ${p.detail}`);
const root = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('a structural schema', () => {
  it('passes what a generator writes: typed fields, items, int-or-string, kept unknown fields, an embedded resource, name-only metadata', () => {
    expect(
      problems(
        root({
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 63 } } },
          spec: {
            type: 'object',
            properties: {
              port: { 'x-kubernetes-int-or-string': true },
              extra: { 'x-kubernetes-preserve-unknown-fields': true },
              hosts: { type: 'array', items: { type: 'string' } },
              template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        }),
      ),
    ).toEqual([]);
  });

  it('refuses a node without a type, at each level, and an array without items', () => {
    expect(problems({ properties: {} })).toEqual(['type: Required value: must not be empty at the root']);
    expect(problems(root({ spec: { properties: {} }, list: { type: 'array' }, grid: { type: 'array', items: {} } }))).toEqual([
      'properties.spec.type: Required value: must not be empty for specified object fields',
      'properties.list.items: Required value: must be specified',
      'properties.grid.items.type: Required value: must not be empty for specified array items',
    ]);
  });

  it('refuses a root that is not an object or has additionalProperties, and an embedded resource that is no object or declares nothing', () => {
    expect(problems({ type: 'string' })).toEqual(['type: Invalid value: "string": must be object at the root']);
    expect(problems({ type: 'object', additionalProperties: { type: 'string' } })).toEqual(['additionalProperties: Forbidden: must not be used at the root']);
    expect(
      problems(root({ a: { type: 'string', 'x-kubernetes-embedded-resource': true }, b: { type: 'object', 'x-kubernetes-embedded-resource': true } })),
    ).toEqual([
      'properties.a.type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true',
      'properties.a.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      'properties.b.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
    ]);
  });

  it('refuses metadata beyond name and generateName at the root, kind that is no string, and int-or-string that keeps unknown fields', () => {
    expect(problems(root({ metadata: { type: 'object', properties: { labels: { type: 'object' } } } }))).toEqual([
      'properties.metadata: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ]);
    expect(problems(root({ kind: { type: 'integer' } }))).toEqual(['properties.kind.type: Invalid value: "integer": must be string']);
    expect(problems(root({ port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }))).toEqual([
      'properties.port.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true',
    ]);
  });

  it('keeps allOf, anyOf, oneOf and not to value validations: no type, description, extension or metadata inside them', () => {
    expect(
      problems(
        root({
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          size: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+$' }] },
          mode: { type: 'string', oneOf: [{ enum: ['a'] }, { enum: ['b'] }], not: { enum: ['c'] } },
        }),
      ),
    ).toEqual([]);
    expect(
      problems(
        root({
          mode: { type: 'string', anyOf: [{ type: 'string', description: 'a' }], not: { 'x-kubernetes-list-type': 'set', nullable: true } },
          spec: { type: 'object', oneOf: [{ properties: { metadata: { default: {} } } }] },
        }),
      ),
    ).toEqual([
      'properties.mode.anyOf.0.type: Forbidden: must be empty to be structural',
      'properties.mode.anyOf.0.description: Forbidden: must be empty to be structural',
      'properties.mode.not.nullable: Forbidden: must be false to be structural',
      'properties.mode.not.x-kubernetes-list-type: Forbidden: must be undefined to be structural',
      'properties.spec.oneOf.0.properties.metadata.default: Forbidden: must be undefined to be structural',
      'properties.spec.oneOf.0.properties.metadata: Forbidden: must not be specified in a nested context',
    ]);
  });
});
