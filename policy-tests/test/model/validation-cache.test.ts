/** The CRD validation cache: outcomes keyed by schema, object and validator make-up; the validator compiled only on a miss. */
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { cachedValidator } from '../../model/stores/validation-cache.ts';

const schema = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 } } } } };

/**
 * The outcome store lives on disk across runs: a make-up of this run's own keeps the outcomes an earlier run
 * stored from answering this one (which would skip the compile these tests count).
 */
const MAKEUP = `test-makeup-${randomUUID()}`;

function counted(s: object) {
  let compiles = 0;
  const validator = cachedValidator(JSON.stringify(s), MAKEUP, () => {
    compiles++;
    return new Ajv({ allErrors: true }).compile(s);
  });
  return { validator, compiles: () => compiles };
}

describe('cachedValidator', () => {
  it('gives the validator its own answers, errors included, and compiles once for every object it meets', () => {
    const { validator, compiles } = counted(schema);
    expect(validator({ spec: { replicas: 2 } })).toBe(true);
    expect(validator.errors).toBeNull();
    expect(validator({ spec: { replicas: -1 } })).toBe(false);
    expect(validator.errors).toEqual([expect.objectContaining({ instancePath: '/spec/replicas', keyword: 'minimum' })]);
    // The same objects again: answered from the cache, errors a fresh copy each time.
    expect(validator({ spec: { replicas: -1 } })).toBe(false);
    validator.errors![0]!.message = 'changed by a caller';
    expect(validator({ spec: { replicas: -1 } })).toBe(false);
    expect(validator.errors![0]!.message).toBe('must be >= 0');
    expect(compiles()).toBe(1);
  });

  it('a validator whose objects were all judged before, under the same schema, is never compiled', () => {
    counted(schema).validator({ spec: { replicas: 3 } });
    const again = counted(schema);
    expect(again.validator({ spec: { replicas: 3 } })).toBe(true);
    expect(again.compiles()).toBe(0);
  });

  it('a changed schema is a new key: the same object is judged again, under the new rule', () => {
    counted(schema).validator({ spec: { replicas: 5 } });
    const stricter = counted({ ...schema, properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', maximum: 3 } } } } });
    expect(stricter.validator({ spec: { replicas: 5 } })).toBe(false);
    expect(stricter.compiles()).toBe(1);
  });
});
