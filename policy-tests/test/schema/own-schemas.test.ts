/**
 * The JSON Schemas this repository writes itself are valid against their meta-schemas.
 * The gate compiles them without the meta-schema check (it costs more than
 * the policy layer at start-up), so the check lives here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../model/repository/repo.ts';

const OWN_SCHEMAS = [
  'policy-tests/model/apps/backup-targets.schema.json',
  ...readdirSync(join(REPO_ROOT, 'apps/media/facts/schemas')).map((f) => `apps/media/facts/schemas/${f}`),
];

describe('own JSON Schemas', () => {
  const ajv = new Ajv2020({ strict: false });
  it.each(OWN_SCHEMAS)('%s is a valid draft 2020-12 schema', (file) => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as object;
    expect(ajv.validateSchema(schema) ? [] : ajv.errors).toEqual([]);
  });

  const draft7 = new Ajv({ strict: false });
  it.each(readdirSync(join(REPO_ROOT, 'policy-tests/schema/crds')))('the CRD schema %s is a valid draft-07 schema', (file) => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'policy-tests/schema/crds', file), 'utf8')) as object;
    expect(draft7.validateSchema(schema) ? [] : draft7.errors).toEqual([]);
  });

  it('the check bites: a schema with a malformed keyword is refused', () => {
    expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'strnig' } } })).toBe(false);
  });
});
