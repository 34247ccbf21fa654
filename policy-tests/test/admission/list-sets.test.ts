/** A custom resource's sets and maps as the API server validates them (apiextensions ValidateListSetsAndMaps). */
import { describe, expect, it } from 'vitest';
import { listSetAndMapDuplicates } from '../../admission/validation/list-sets.ts';
import type { JsonSchemaNode } from '../../admission/cel/schema-node.ts';

const schema: JsonSchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
        },
        plain: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

describe('sets and maps of a custom resource', () => {
  it('names the second item of a set, and of a map the second entry of a key, its defaults filled in first', () => {
    const problems = listSetAndMapDuplicates(schema, {
      spec: { tags: ['a', 'b', 'a'], ports: [{ port: 80 }, { port: 80, protocol: 'UDP' }, { port: 80, protocol: 'TCP' }], plain: ['x', 'x'] },
    });
    expect(problems.map((p) => [p.path.join('.'), p.message])).toEqual([
      ['spec.tags.2', 'spec.tags[2]: Duplicate value: "a"'],
      ['spec.ports.2', 'spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}'],
    ]);
  });
  it('finds nothing in lists without a type, or without a schema', () => {
    expect(listSetAndMapDuplicates(schema, { spec: { plain: ['x', 'x'] } })).toEqual([]);
    expect(listSetAndMapDuplicates(undefined, { spec: { tags: ['a', 'a'] } })).toEqual([]);
  });
});
