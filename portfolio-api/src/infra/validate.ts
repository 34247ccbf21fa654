/** ajv (2020-12) validators for the payload schemas. */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { COMPONENT_SCHEMAS, type SchemaName } from '../openapi/schemas.ts';

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const compiled = new Map<SchemaName, ValidateFunction>();

export function validator(name: SchemaName): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    fn = ajv.compile(COMPONENT_SCHEMAS[name]);
    compiled.set(name, fn);
  }
  return fn;
}

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`)
    .join('; ');
}
