/**
 * k8s.io/apiextensions-apiserver's TestValidateCustomResourceDefinition and TestSelectableFields
 * (pkg/apis/apiextensions/validation/validation_test.go), read as data. Each row is an internal
 * CustomResourceDefinition (the form the API server validates); it is written here as the apiextensions.k8s.io/v1
 * object that converts to it (Convert_apiextensions_..._To_v1: a top-level schema, subresources, printer columns and
 * selectable fields copied into every version, a webhook conversion's fields under `webhook`), its fields named by
 * the v1 types' JSON tags read from the same checkout. The gate judges that object as `crd-accepted` does, with the
 * CRD's name rule, and the row agrees when the gate refuses exactly what the test expects, as the test compares:
 * each expected error's type and field found once, nothing else refused.
 *
 * A row no v1 object can be is declined, with why: one the v1 conversion would write otherwise (a `spec.version`
 * other than the first version's, a per-version field beside its top-level one, or one every version holds alike),
 * one the v1 defaults would change (no singular name or list kind beside a kind), or one that expects an error of
 * `status`, which a create resets. A row this reader cannot follow is counted as not read, with why.
 */
import { judgeCrd } from '../checks/crd-accepted.ts';
import { validateBuiltin } from '../validation/kinds.ts';
import { isMap } from '../../model/core/dig.ts';
import { count, emptyAgreement, type Agreement, type DecliningTable, countUnread } from './agreement.ts';
import { asJson, blockAt, goBuiltin, GoParser, GoUnsupported, jsonName, NOT_BUILTIN, structTableRows, tokenize, type GoEnvironment } from './go-literals.ts';

type Go = Record<string, any>;

/** An error the row expects: field.ErrorType's words and field.Path's spelling. */
export interface ExpectedError {
  type: string;
  field: string;
  contains?: string;
}

export interface CrdDefinitionCase {
  /** The test and the row's name: `TestSelectableFields/...`. */
  name: string;
  /** The apiextensions.k8s.io/v1 object that converts to the row's resource. */
  object: Record<string, unknown>;
  errors: ExpectedError[];
}

export type CrdDefinitionTable = DecliningTable<CrdDefinitionCase>;

/** A v1 struct's fields: Go name to JSON name and Go type; and the named types that are a list, a map or a string. */
interface V1Types {
  structs: Map<string, Map<string, { json: string; type: string }>>;
  aliases: Map<string, string>;
}

/** The v1 types' structs and JSON tags, from types.go and types_jsonschema.go. */
export function v1Types(goSources: readonly string[]): V1Types {
  const structs = new Map<string, Map<string, { json: string; type: string }>>();
  const aliases = new Map<string, string>();
  for (const src of goSources) {
    for (const m of src.matchAll(/^type (\w+) (\[\]\w+|map\[string\]\w+|string|bool)\s*$/gm)) aliases.set(m[1]!, m[2]!);
    for (const m of src.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      const fields = new Map<string, { json: string; type: string }>();
      for (const f of m[2]!.matchAll(/^\t(?:(\w+)\s+)?([\w.*[\]]+)\s+`json:"([^",]*)/gm)) {
        // An embedded field (metav1.ObjectMeta) is named by its type.
        const type = f[2]!;
        fields.set(f[1] ?? type.replace(/^.*\./, ''), { json: f[3]!, type });
      }
      structs.set(m[1]!, fields);
    }
  }
  return { structs, aliases };
}

/** A Go value of a v1 type, as its JSON: fields by their tags, the schema unions as their one JSON form. */
function named(types: V1Types, value: unknown, goType: string): unknown {
  if (value === null || value === undefined) return undefined;
  let type = goType.replace(/^\*/, '');
  type = types.aliases.get(type) ?? type;
  if (type === '[]byte' || type === 'JSON') return value;
  // An empty composite literal reads as a list; as a struct or a map it is empty.
  if (type.startsWith('[]')) {
    if (!Array.isArray(value)) throw new GoUnsupported(`a ${type} that is not a list`);
    return value.map((v) => named(types, v, type.slice(2)));
  }
  if (Array.isArray(value) && value.length === 0) return named(types, {}, type);
  if (type.startsWith('map[string]')) return Object.fromEntries(Object.entries(value as Go).map(([k, v]) => [k, named(types, v, type.slice(11))]));
  const v = value as Go;
  if (type === 'JSONSchemaPropsOrArray') return v.Schema ? named(types, v.Schema, 'JSONSchemaProps') : named(types, v.JSONSchemas, '[]JSONSchemaProps');
  if (type === 'JSONSchemaPropsOrBool') return v.Schema ? named(types, v.Schema, 'JSONSchemaProps') : v.Allows === true;
  if (type === 'JSONSchemaPropsOrStringArray') return v.Schema ? named(types, v.Schema, 'JSONSchemaProps') : v.Property;
  // metav1.ObjectMeta is not in the checkout read: its fields' JSON names are their Go names as their tags spell them.
  if (type === 'metav1.ObjectMeta' && isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, inner]) => [jsonName(k), inner]));
  const fields = types.structs.get(type);
  if (!fields || !isMap(value)) return value;
  const out: Go = {};
  for (const [k, inner] of Object.entries(value)) {
    const field = fields.get(k);
    if (!field) throw new GoUnsupported(`${type}.${k} is no field of the v1 types`);
    const json = named(types, inner, field.type);
    if (json !== undefined) out[field.json] = json;
  }
  return out;
}

/** Why no v1 object converts to this internal resource, or undefined. */
function unreachable(resource: Go, errors: ExpectedError[]): string | undefined {
  const spec: Go = resource.Spec ?? {};
  const versions: Go[] = spec.Versions ?? [];
  if (spec.Version && versions[0]?.Name !== spec.Version) return 'a spec.version other than the first version: v1 has no spec.version';
  const perVersion = [
    ['Validation', 'Schema'],
    ['Subresources', 'Subresources'],
    ['AdditionalPrinterColumns', 'AdditionalPrinterColumns'],
    ['SelectableFields', 'SelectableFields'],
  ] as const;
  for (const [top, own] of perVersion) {
    const set = versions.filter((v) => v[own] !== undefined && v[own] !== null);
    if (spec[top] && set.length > 0) return `spec.${jsonName(top)} beside a version's: v1 converts to one or the other`;
    const first = JSON.stringify(versions[0]?.[own]);
    if (versions.length > 0 && set.length === versions.length && versions.every((v) => JSON.stringify(v[own]) === first))
      return `every version's ${jsonName(own)} alike: v1 converts them to spec's top level`;
  }
  // v1's preserveUnknownFields is a bool, so the internal pointer it converts to is never nil; nil and false part
  // where a conversion strategy or a default is judged against it (validation.go).
  if ((spec.PreserveUnknownFields ?? null) === null && ((spec.Conversion && spec.Conversion.Strategy !== 'None') || /"Default":/.test(JSON.stringify(spec))))
    return 'no preserveUnknownFields: v1 converts its bool to a pointer that is never nil';
  const names: Go = spec.Names ?? {};
  if (names.Kind && (!names.Singular || !names.ListKind)) return 'no singular name or list kind beside a kind: the v1 defaults fill them';
  if (errors.some((e) => e.field.startsWith('status'))) return 'an error of status: a create resets status';
  return undefined;
}

/** The v1 object an internal resource converts to (Convert_apiextensions_CustomResourceDefinitionSpec_To_v1_...). */
function toV1(types: V1Types, resource: Go): Record<string, unknown> {
  const { Validation, Subresources, AdditionalPrinterColumns, SelectableFields, Version: _version, Conversion, ...spec } = structuredClone(resource.Spec ?? {});
  spec.Versions = ((spec.Versions as Go[] | undefined) ?? []).map((v) => ({
    ...v,
    ...(Validation ? { Schema: Validation } : {}),
    ...(Subresources ? { Subresources } : {}),
    ...(AdditionalPrinterColumns ? { AdditionalPrinterColumns } : {}),
    ...(SelectableFields ? { SelectableFields } : {}),
  }));
  if (Conversion) {
    const { WebhookClientConfig: client, ConversionReviewVersions: reviews, Strategy } = Conversion as Go;
    // The test's own defaulting: a webhook with no review versions is given v1beta1.
    const review = Strategy === 'Webhook' && !(reviews as unknown[] | undefined)?.length ? ['v1beta1'] : reviews;
    // The internal port is an int32, 0 where unset; the v1 one a pointer that 0 sets.
    const service = client?.Service ? { ...client.Service, Port: client.Service.Port ?? 0 } : undefined;
    spec.Conversion = {
      Strategy,
      ...(client || review
        ? { Webhook: { ClientConfig: client ? { ...client, ...(service ? { Service: service } : {}) } : undefined, ConversionReviewVersions: review } }
        : {}),
    };
  }
  const crd = { ObjectMeta: resource.ObjectMeta, Spec: spec };
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', ...(named(types, crd, 'CustomResourceDefinition') as Go) };
}

const TYPE_OF: Readonly<Record<string, string>> = {
  required: 'Required value',
  invalid: 'Invalid value',
  invalidtypecode: 'Invalid value',
  immutable: 'Invalid value',
  invalidIndex: 'Invalid value',
  unsupported: 'Unsupported value',
  forbidden: 'Forbidden',
  duplicate: 'Duplicate value',
  tooMany: 'Too many',
};

/** The test file's helpers and constants, as the rows call them. */
function environment(goSource: string, constants: ReadonlyMap<string, string>): GoEnvironment {
  const values = new Map<string, unknown>();
  const env: GoEnvironment = {
    value(name) {
      if (values.has(name)) return values.get(name);
      const constant = constants.get(name.replace(/^apiextensions\./, ''));
      if (constant !== undefined) return constant;
      // A variable of the file (`var validValidationSchema = ...`) or of the test (`singleVersionList := ...`).
      const at = new RegExp(`(?:var ${name} =|\\b${name} :=) `).exec(goSource);
      if (!at) throw new GoUnsupported(`unknown identifier ${name}`);
      // Bytes of a raw string (`var exampleCert = []byte(\`...\`)`).
      const bytes = /^\[\]byte\(`([^`]*)`\)/.exec(goSource.slice(at.index + at[0].length));
      if (bytes) {
        values.set(name, bytes[1]);
        return bytes[1];
      }
      const start = at.index + at[0].length;
      const open = goSource.indexOf('{', start);
      const value = asJson(new GoParser(tokenize(goSource.slice(start, open + blockAt(goSource, open).length + 2)), env).expr());
      values.set(name, value);
      return value;
    },
    call(name, args) {
      if (name in TYPE_OF) {
        const [first, ...rest] = name === 'invalidIndex' ? args.slice(1) : args;
        return { type: TYPE_OF[name], field: [first, ...rest].join('.') + (name === 'invalidIndex' ? `[${String(args[0])}]` : '') };
      }
      if (name === '.contains') return { ...(args[0] as object), contains: args[1] };
      if (name === 'jsonSlice') return args;
      const built = goBuiltin(name, args);
      if (built !== NOT_BUILTIN) return built;
      // The test file's own wrappers and the internal types' conversions hand their argument on.
      if (name === 'jsonPtr' || name === 'byteText' || /^apiextensions\.[A-Z]\w*$/.test(name)) return args[0];
      throw new GoUnsupported(`unknown function ${name}`);
    },
  };
  return env;
}

/** The string constants of the internal types (`NamespaceScoped ResourceScope = "Namespaced"`). */
function stringConstants(goSources: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const src of goSources) for (const m of src.matchAll(/^\t(\w+)\s+\w+\s*=\s*"([^"]*)"/gm)) out.set(m[1]!, m[2]!);
  return out;
}

/** The tests that call ValidateCustomResourceDefinition on a table of rows shaped alike (name, resource, errors). */
const CREATE_TESTS = ['TestValidateCustomResourceDefinition', 'TestSelectableFields'];

/**
 * The rows of the create tests (CREATE_TESTS): `testGo` is validation_test.go, `v1Go` the v1 types.go and
 * types_jsonschema.go, `internalGo` the internal ones (for their constants). Each row is named `<test>/<name>`.
 */
export function crdDefinitionCases(testGo: string, v1Go: readonly string[], internalGo: readonly string[]): CrdDefinitionTable {
  const table: CrdDefinitionTable = { cases: [], declined: [], unread: [] };
  const types = v1Types(v1Go);
  const constants = stringConstants(internalGo);
  for (const test of CREATE_TESTS) {
    const at = testGo.indexOf(`func ${test}(`);
    if (at === -1) continue;
    const body = blockAt(testGo, testGo.indexOf('{', at));
    // A test's own variables first (each declares its singleVersionList), then the file's.
    const env = environment(`${body}\n${testGo}`, constants);
    for (const { text, row, why } of structTableRows(body, /tests/, env)) {
      const name = `${test}/${/name:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '(unnamed)'}`;
      if (!row) {
        table.unread.push({ name, why: why ?? 'unread' });
        continue;
      }
      try {
        const errors = (row.errors as ExpectedError[] | undefined) ?? [];
        const resource = row.resource as Go;
        const declined = unreachable(resource, errors);
        if (declined) table.declined.push({ name, why: declined });
        else table.cases.push({ name, object: toV1(types, resource), errors });
      } catch (err) {
        if (!(err instanceof GoUnsupported)) throw err;
        table.unread.push({ name, why: err.message });
      }
    }
  }
  return table;
}

/** What the gate refuses of a v1 CRD, as (type, field): crd-accepted's judgement and the CRD's name rule. */
export function refusedFields(object: Record<string, unknown>): { refused: ExpectedError[]; notJudged: string[] } {
  const said = judgeCrd(object, String((object.metadata as Go | undefined)?.name ?? ''));
  const named = validateBuiltin('CustomResourceDefinition', object).map((p) => ({ type: 'Invalid value', field: p.path.join('.') }));
  return {
    // A warning is admitted: no refusal.
    refused: [...said.filter((s) => !s.notJudged && !s.warning).map((s) => ({ type: s.type ?? 'Invalid value', field: s.field })), ...named],
    notJudged: said.filter((s) => s.notJudged).map((s) => s.field),
  };
}

/** The test's comparison: each expected error matched once by type and field, and no refusal left unmatched. */
export function crdDefinitionAgreement(table: CrdDefinitionTable): Agreement {
  const a = emptyAgreement();
  for (const c of table.cases) {
    const { refused, notJudged } = refusedFields(c.object);
    const left = [...refused];
    const missing = c.errors.filter((e) => {
      const i = left.findIndex((r) => r.type === e.type && r.field === e.field);
      if (i === -1) return true;
      left.splice(i, 1);
      return false;
    });
    const group = c.errors[0]?.field.split(/[.[]/).slice(0, 2).join('.') ?? 'admitted';
    const why = [
      ...missing.map((e) => `expected ${e.type} at ${e.field}`),
      ...left.map((r) => `refused ${r.type} at ${r.field}`),
      ...notJudged.map((f) => `not judged at ${f}`),
    ].join('; ');
    count(a, { group: group || 'admitted', ok: why === '', file: c.name, why });
  }
  countUnread(a, table.unread);
  return a;
}
