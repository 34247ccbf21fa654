/**
 * The JSON Schema Test Suite (draft 4) as kube-openapi runs it (`pkg/validation/validate/jsonschema_test.go`,
 * `TestJSONSchemaSuite` over `fixtures/jsonschema_suite/`), read as data and judged through the schema layer's CRD
 * validator (schema/repo-crds.ts `schemaValueFailures`): each schema a CRD's node, each datum held to kube-openapi's
 * verdict. A schema the API server refuses in a CRD (a `$ref`, `dependencies`, `patternProperties`,
 * `additionalItems`, `uniqueItems: true`, a list of item schemas, a type OpenAPI v3 lacks or a list of types,
 * `additionalProperties` beside `properties`) can never hold a custom resource: its cases are declined, with why.
 * Files kube-openapi's test does not enable are not read.
 */
import { isMap } from '../../model/core/dig.ts';
import { schemaValueFailures } from '../../schema/repo-crds.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

/** The fixtures `enabled()` lists in jsonschema_test.go; the rest are skipped there too. */
const ENABLED = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'type',
  'minimum',
  'maximum',
  'multipleOf',
  'enum',
  'default',
  'dependencies',
  'items',
  'maxItems',
  'maxProperties',
  'minItems',
  'minProperties',
  'patternProperties',
  'required',
  'additionalItems',
  'uniqueItems',
  'properties',
  'additionalProperties',
  'allOf',
  'not',
  'oneOf',
  'anyOf',
  'ref',
  'definitions',
  'refRemote',
  'format',
]);

const OPENAPI_TYPES = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);

export interface SuiteCase {
  test: string;
  schema: Record<string, unknown>;
  data: unknown;
  valid: boolean;
  /** Why a CRD cannot hold this schema (validation.go refuses it), where it cannot. */
  declined?: string;
}

/** What `ValidateCustomResourceDefinitionOpenAPISchema` refuses of a schema, or undefined where it takes it. */
function refusedInCrd(schema: unknown): string | undefined {
  if (Array.isArray(schema)) return schema.map(refusedInCrd).find(Boolean);
  if (!isMap(schema)) return undefined;
  for (const keyword of ['$ref', 'definitions', 'id', 'dependencies', 'patternProperties', 'additionalItems'])
    if (Object.hasOwn(schema, keyword)) return `${keyword} is forbidden in a CRD's schema`;
  if (schema.uniqueItems === true) return 'uniqueItems cannot be set to true in a CRD, since the runtime complexity becomes quadratic';
  if (Array.isArray(schema.items)) return 'items must be a schema object, not an array, in a CRD';
  if (schema.type !== undefined && (typeof schema.type !== 'string' || !OPENAPI_TYPES.has(schema.type)))
    return `type ${JSON.stringify(schema.type)} is none OpenAPI v3 has`;
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== true && schema.properties !== undefined)
    return 'additionalProperties and properties are mutual exclusive in a CRD';
  for (const [k, v] of Object.entries(schema))
    if (k !== 'enum' && k !== 'default') {
      const inner = refusedInCrd(v);
      if (inner) return inner;
    }
  return undefined;
}

/** Each enabled fixture file's cases, by its name (without `.json`) and its text. */
export function suiteCases(files: readonly { name: string; json: string }[]): { cases: SuiteCase[]; skipped: string[] } {
  const cases: SuiteCase[] = [];
  const skipped: string[] = [];
  for (const { name, json } of files) {
    if (!ENABLED.has(name)) {
      skipped.push(name);
      continue;
    }
    for (const group of JSON.parse(json) as {
      description: string;
      schema: Record<string, unknown>;
      tests: { description: string; data: unknown; valid: boolean }[];
    }[]) {
      const declined = refusedInCrd(group.schema);
      for (const t of group.tests)
        cases.push({
          test: `${name}/${group.description}/${t.description}`,
          schema: group.schema,
          data: t.data,
          valid: t.valid,
          ...(declined ? { declined } : {}),
        });
    }
  }
  return { cases, skipped };
}

/** Each case a CRD could hold, judged by the schema layer's validator against kube-openapi's verdict; the rest counted apart. */
export function suiteAgreement(cases: readonly SuiteCase[]): { agreement: Agreement; declined: Map<string, number> } {
  const agreement = emptyAgreement();
  const declined = new Map<string, number>();
  for (const c of cases) {
    if (c.declined) {
      declined.set(c.declined, (declined.get(c.declined) ?? 0) + 1);
      continue;
    }
    const failures = schemaValueFailures(c.schema, c.data);
    count(agreement, {
      group: c.test.split('/')[0]!,
      ok: (failures.length === 0) === c.valid,
      file: c.test,
      why: c.valid ? `refused: ${failures.map((f) => f.message).join('; ')}` : 'admitted, kube-openapi refuses it',
    });
  }
  return { agreement, declined };
}
