/**
 * A schema validator's errors as findings, one per thing wrong. The API server decodes a built-in kind's field into
 * its Go type, and says one thing where the validator's oneOf says three ("must be string", "must be integer", "must
 * match exactly one schema"): a quantity or an int-or-string the decoder refuses is said once, in its words.
 */
import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';
import { dig } from '../model/core/dig.ts';
import { findingAt, type Resource } from '../model/core/manifest.ts';
import type { Finding } from '../model/core/findings.ts';
import { parseInstancePath } from '../model/core/positions.ts';
import { invalidPatternMessage } from '../model/core/re2.ts';
import { decodeQuantity } from '../model/go/quantity.ts';

// ajv-i18n is CommonJS whose typings claim an ES default export; require() gets the function either way.
const localizeEn = createRequire(import.meta.url)('ajv-i18n/localize/en') as (errors: ErrorObject[] | null | undefined) => void;

function describeError(err: ErrorObject): string {
  const where = err.instancePath || '(root)';
  if (err.keyword === 'enum')
    return `${where}: must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (err.keyword === 'required') return `${where}: missing required field "${(err.params as { missingProperty: string }).missingProperty}"`;
  const invalidPattern = err.keyword === 'pattern' ? invalidPatternMessage(String((err.params as { pattern?: unknown }).pattern)) : undefined;
  if (invalidPattern) return `${where}: ${invalidPattern}`;
  return `${where}: ${err.message ?? err.keyword}`;
}

const isQuantityError = (err: ErrorObject) => err.keyword === 'format' && (err.params as { format?: unknown }).format === 'quantity';

/** What encoding/json calls a JSON value it cannot put in an int32: "number 1.5", "bool", "object", "array". */
const jsonKind = (value: unknown): string =>
  typeof value === 'number' ? `number ${JSON.stringify(value)}` : typeof value === 'boolean' ? 'bool' : Array.isArray(value) ? 'array' : 'object';

/**
 * The decoder's one message for a value at `path` that matched none of a oneOf's branches: a quantity as
 * Quantity.UnmarshalJSON refuses it; an int-or-string (a string is always one) as IntOrString.UnmarshalJSON's
 * json.Unmarshal into its int32 refuses it.
 */
function decodedMessage(where: string, value: unknown, quantity: boolean): string {
  if (quantity) {
    const decoded = decodeQuantity(value);
    return `${where}: ${JSON.stringify(value)} is not a quantity: ${decoded.ok ? 'refused' : decoded.error}`;
  }
  return `${where}: ${JSON.stringify(value)} is not an int-or-string: json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`;
}

/**
 * The validator's errors on the resource, each a finding at its node. Where a precompiled model validator judged it
 * (`precompiled`: a built-in kind's, or a model package's CRD), a oneOf's errors at one node are one, the decoder's.
 */
export function schemaErrorFindings(resource: Resource, key: string, raw: readonly ErrorObject[], { precompiled }: { precompiled: boolean }): Finding[] {
  const errors = raw.map((e) => ({ ...e }));
  localizeEn(errors);
  // Such a oneOf is a quantity's or an int-or-string's (a number or a string): the decoder decides. A CRD's own
  // oneOf is a value validation, said as it is.
  // Where the decoder speaks: each such node, and whether it is a quantity (else an int-or-string).
  const decodedAt = new Map<string, boolean>();
  for (const e of precompiled ? errors : [])
    if (e.keyword === 'oneOf' || isQuantityError(e)) decodedAt.set(e.instancePath, decodedAt.get(e.instancePath) === true || isQuantityError(e));
  const said = new Set<string>();
  const findings: Finding[] = [];
  for (const err of errors) {
    const path = parseInstancePath(err.instancePath);
    if (err.keyword === 'required') path.push((err.params as { missingProperty: string }).missingProperty);
    const quantity = decodedAt.get(err.instancePath);
    if (quantity !== undefined && said.has(err.instancePath)) continue;
    if (quantity !== undefined) said.add(err.instancePath);
    const message = quantity === undefined ? describeError(err) : decodedMessage(err.instancePath, dig(resource.object, path), quantity);
    findings.push(findingAt(resource, path, { check: 'schema', message: `${key}: ${message}` }));
  }
  return findings;
}
