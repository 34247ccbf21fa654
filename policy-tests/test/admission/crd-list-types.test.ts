/** What the API server refuses of a CRD schema node's list and map types (validation.go), in field.Error's words. */
import { describe, expect, it } from 'vitest';
import { listTypeProblems } from '../../admission/validation/crd-list-types.ts';

const problems = (node: Record<string, unknown>) => listTypeProblems(node).map((p) => `${p.at.join('.')}: ${p.detail}`);
const item = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('list and map types of a CRD schema node', () => {
  it('passes what Kubernetes itself writes: a map list keyed by required scalars, an atomic set, a granular map', () => {
    expect(
      problems({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: item({ name: { type: 'string' } }, { required: ['name'] }),
      }),
    ).toEqual([]);
    expect(problems({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } })).toEqual([]);
    expect(problems({ type: 'object', 'x-kubernetes-map-type': 'granular' })).toEqual([]);
  });

  it('refuses a type that does not fit the extension, and an extension value it does not know', () => {
    expect(problems({ type: 'string', 'x-kubernetes-list-type': 'atomic' })).toEqual([
      'type: Invalid value: "string": must be array if x-kubernetes-list-type is specified',
    ]);
    expect(problems({ 'x-kubernetes-map-type': 'atomic' })).toEqual(['type: Required value: must be object if x-kubernetes-map-type is specified']);
    expect(problems({ type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } })).toEqual([
      'x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"',
    ]);
  });

  it('refuses a set of granular objects, and nullable items of a set', () => {
    expect(problems({ type: 'array', 'x-kubernetes-list-type': 'set', items: item({}, { nullable: true }) })).toEqual([
      'items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set',
      'items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set',
    ]);
  });

  it('refuses a map list whose keys are missing, no scalar property, repeated, or neither required nor defaulted', () => {
    expect(problems({ type: 'array', 'x-kubernetes-list-type': 'map', items: item({}) })).toEqual([
      'x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
    ]);
    expect(
      problems({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'ports', 'name', 'zone'],
        items: item({ name: { type: 'string' }, ports: { type: 'array' } }, { required: ['name'] }),
      }),
    ).toEqual([
      'items.properties.ports.type: Invalid value: "object": must be a scalar type if parent array\'s x-kubernetes-list-type is map',
      'items.properties.ports.default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
      'x-kubernetes-list-map-keys: Invalid value: []string{"name", "ports", "name", "zone"}: must not contain duplicate entries',
      'x-kubernetes-list-map-keys: Invalid value: []string{"name", "ports", "name", "zone"}: entries must all be names of item properties',
    ]);
    expect(problems({ type: 'array', 'x-kubernetes-list-map-keys': ['name'], items: item({ name: { type: 'string' } }) })).toEqual([
      'x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty',
    ]);
  });
});
