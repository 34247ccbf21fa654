/** A custom resource as the API server validates it: nulls it takes none of pruned, defaults set (schema/structural-defaults.ts). */
import { describe, expect, it } from 'vitest';
import { asDefaulted, pruneNulls, withDefaults } from '../../schema/structural-defaults.ts';

const schema = {
  type: 'object',
  properties: {
    size: { type: 'integer' },
    note: { type: 'string', nullable: true },
    replicas: { type: 'integer', default: 1 },
    labels: { type: 'object', additionalProperties: { type: 'string', default: 'x' } },
    ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } } },
  },
};

describe("the API server's steps before it validates a custom resource", () => {
  it('drops a null the schema takes none of and gives no default, keeps a nullable one, leaves one with a default to defaulting', () => {
    expect(pruneNulls({ size: null, note: null, replicas: null, other: null }, schema)).toEqual({ note: null, replicas: null, other: null });
  });

  it('sets a missing field or a non-nullable null to its default, in entries and items too', () => {
    expect(withDefaults({ replicas: null, labels: { a: null }, ports: [{}, { protocol: 'UDP' }] }, schema)).toEqual({
      replicas: 1,
      labels: { a: 'x' },
      ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }],
    });
  });

  it('changes nothing it need not: the same object back, and never the one given', () => {
    const plain = { size: 2, replicas: 3, ports: [{ protocol: 'UDP' }] };
    expect(asDefaulted(plain, schema)).toBe(plain);
    const given = { size: null, ports: [{}] };
    expect(asDefaulted(given, schema)).toEqual({ replicas: 1, ports: [{ protocol: 'TCP' }] });
    expect(given).toEqual({ size: null, ports: [{}] });
  });
});
