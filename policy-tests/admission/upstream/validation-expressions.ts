/**
 * k8s.io/apiextensions-apiserver's TestValidationExpressions
 * (pkg/apiserver/schema/cel/validation_test.go), read as data: each entry's
 * object and schema, built by the test file's helpers (objs, schemas,
 * listType, withRule, ...), which are mirrored here one by one; then every
 * rule of its `valid` list must hold on the object, and every rule of its
 * `errors` map must fail, each placed at the schema's root as the test
 * places it. An entry whose Go this reader cannot follow is counted as not
 * read, with why.
 */
import { compileRule, ruleViolations, ruleAtNode } from '../cel/crd-rules.ts';
import type { JsonSchemaNode } from '../cel/schema-node.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { GoParser, GoUnsupported, tokenize, type GoEnvironment } from './go-literals.ts';

export interface ValidationCase {
  entry: string;
  rule: string;
  expect: 'valid' | 'error';
  schema: JsonSchemaNode;
  object: unknown;
  oldObject?: unknown;
  /** The error text the API server's must contain. */
  contains?: string;
  /** The rule sits at the custom resource's root (its type and object metadata are implicit there). */
  isRoot: boolean;
}

export interface ValidationTable {
  /** The Go test the table is read from, naming each case. */
  suite: string;
  cases: ValidationCase[];
  /** Entries this reader could not follow, with why. */
  unread: { entry: string; why: string }[];
}

const SCHEMA = Symbol('schema');
type Schema = JsonSchemaNode & { [SCHEMA]?: true };
const schemaNode = (s: JsonSchemaNode): Schema => ({ ...s, [SCHEMA]: true });
const clone = (s: Schema): Schema => structuredClone({ ...s, [SCHEMA]: undefined }) as Schema;

const primitive = (type: string, format = ''): Schema => schemaNode({ type, ...(format ? { format } : {}) });
const VARIABLES: Readonly<Record<string, unknown>> = {
  integerType: primitive('integer'),
  int32Type: primitive('integer', 'int32'),
  int64Type: primitive('integer', 'int64'),
  numberType: primitive('number'),
  floatType: primitive('number', 'float'),
  doubleType: primitive('number', 'double'),
  stringType: primitive('string'),
  byteType: primitive('string', 'byte'),
  booleanType: primitive('boolean'),
  durationFormat: primitive('string', 'duration'),
  dateFormat: primitive('string', 'date'),
  dateTimeFormat: primitive('string', 'date-time'),
  'math.MaxInt64': 9223372036854775807n,
  'math.MinInt64': -9223372036854775808n,
  'math.MaxInt32': 2147483647n,
  'math.MinInt32': -2147483648n,
  'math.MaxFloat64': Number.MAX_VALUE,
  'math.MaxFloat32': 3.4028234663852886e38,
  'math.SmallestNonzeroFloat64': Number.MIN_VALUE,
  'math.Inf': Infinity,
};

/** A schema.Structural composite literal (Generic, ValueValidation, Extensions, Properties, Items, AdditionalProperties) as a JSON schema. */
export function structural(v: unknown): Schema {
  if (v === null || v === undefined) return schemaNode({});
  const o = v as Record<string, any>;
  if ((o as Schema)[SCHEMA]) return o as Schema;
  const out: JsonSchemaNode = {};
  const g = o.Generic ?? {};
  if (g.Type) out.type = g.Type;
  if (g.Nullable) out.nullable = true;
  if (g.Default) out.default = g.Default.Object;
  const vv = o.ValueValidation ?? {};
  if (vv.Format) out.format = vv.Format;
  if (vv.Enum) out.enum = (vv.Enum as { Object: unknown }[]).map((e) => e.Object);
  for (const [from, to] of [
    ['MaxLength', 'maxLength'],
    ['MaxItems', 'maxItems'],
    ['MaxProperties', 'maxProperties'],
  ] as const)
    if (vv[from] !== undefined) out[to] = Number(vv[from]);
  const x = o.Extensions ?? {};
  if (x.XIntOrString) out['x-kubernetes-int-or-string'] = true;
  if (x.XListType) out['x-kubernetes-list-type'] = x.XListType;
  if (x.XListMapKeys) out['x-kubernetes-list-map-keys'] = x.XListMapKeys;
  if (x.XPreserveUnknownFields) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (x.XEmbeddedResource) out['x-kubernetes-embedded-resource'] = true;
  if (x.XValidations) out['x-kubernetes-validations'] = (x.XValidations as Record<string, string>[]).map((r) => ({ rule: r.Rule! }));
  if (o.Properties) out.properties = Object.fromEntries(Object.entries(o.Properties as object).map(([k, s]) => [k, structural(s)]));
  if (o.Items) out.items = structural(o.Items);
  if (o.AdditionalProperties) out.additionalProperties = o.AdditionalProperties.Structural ? structural(o.AdditionalProperties.Structural) : true;
  return schemaNode(out);
}

/** A copy of a schema with these keywords set: the test's helpers build on copies (a Go struct passed by value). */
const extended = (s: unknown, keywords: JsonSchemaNode): Schema => schemaNode({ ...clone(structural(s)), ...keywords });
const withRule = (s: unknown, rule: string): Schema => extended(s, { 'x-kubernetes-validations': [{ rule }] });
const array = (listType: string, keys: string[] | null, items: unknown): Schema =>
  schemaNode({
    type: 'array',
    'x-kubernetes-list-type': listType,
    items: structural(items),
    ...(keys?.length && listType === 'map' ? { 'x-kubernetes-list-map-keys': keys } : {}),
  });
const objectOf = (props: Record<string, unknown>): Schema =>
  schemaNode({ type: 'object', properties: Object.fromEntries(Object.entries(props).map(([k, s]) => [k, structural(s)])) });
const vals = (values: unknown[]) => Object.fromEntries(values.map((v, i) => [`val${i + 1}`, v]));

/** Go's fmt verbs the tables use: %d, %s, %v, %q, %f (six decimals, the whole integer part written out). */
function sprintf(format: string, args: unknown[]): string {
  let i = 0;
  return format.replace(/%([dsvqf%])/g, (_, verb: string) => {
    if (verb === '%') return '%';
    const a = args[i++];
    if (verb === 'q') return JSON.stringify(a);
    if (verb === 'f') {
      const n = Number(a);
      return Number.isInteger(n) && Math.abs(n) >= 1e21 ? `${BigInt(n)}.000000` : n.toFixed(6);
    }
    return String(a);
  });
}

const HELPERS: Readonly<Record<string, (...args: any[]) => unknown>> = {
  primitiveType: (t: string, f: string) => primitive(t, f),
  listType: (items: unknown) => array('atomic', null, items),
  listTypePtr: (items: unknown) => array('atomic', null, items),
  listSetType: (items: unknown) => array('set', null, items),
  listMapType: (keys: string[], items: unknown) => array('map', keys, items),
  listMapTypePtr: (keys: string[], items: unknown) => array('map', keys, items),
  arrayType: (listType: string, keys: string[] | null, items: unknown) => array(listType, keys, items),
  objectType: objectOf,
  objectTypePtr: objectOf,
  mapType: (value: unknown) => schemaNode({ type: 'object', additionalProperties: value === null ? true : structural(value) }),
  mapTypePtr: (value: unknown) => schemaNode({ type: 'object', additionalProperties: value === null ? true : structural(value) }),
  intOrStringType: () => schemaNode({ 'x-kubernetes-int-or-string': true }),
  withRule,
  withRulePtr: withRule,
  cloneWithRule: withRule,
  withMaxLength: (s: unknown, n: unknown) => extended(s, { maxLength: Number(n) }),
  withMaxItems: (s: unknown, n: unknown) => extended(s, { maxItems: Number(n) }),
  withMaxProperties: (s: unknown, n: unknown) => extended(s, { maxProperties: Number(n) }),
  withDefault: (d: unknown, s: unknown) => extended(s, { default: d }),
  withNullable: (n: boolean, s: unknown) => extended(s, { nullable: n }),
  withNullablePtr: (n: boolean, s: unknown) => extended(s, { nullable: n }),
  objs: (...values: unknown[]) => vals(values),
  schemas: (...schemas: unknown[]) => objectOf(vals(schemas)),
  ValsEqualThemselvesAndDataLiteral: (a: string, b: string, lit: string) => `${a} == ${lit} && ${lit} == ${a} && ${a} == ${b}`,
  'fmt.Sprintf': (format: string, ...args: unknown[]) => sprintf(format, args),
  nilInterfaceOfStringSlice: () => null,
  'ptr.To': (v: unknown) => v,
  // celcoststability_test.go: a list of the ints 0 to size-1.
  buildLargeArray: (size: unknown) => Array.from({ length: Number(size) }, (_, i) => BigInt(i)),
  // Go's numeric conversions: an int stays exact, a float a float.
  int64: (v: unknown) => (typeof v === 'number' ? BigInt(Math.trunc(v)) : v),
  int32: (v: unknown) => (typeof v === 'number' ? BigInt(Math.trunc(v)) : v),
  int: (v: unknown) => (typeof v === 'number' ? BigInt(Math.trunc(v)) : v),
  uint64: (v: unknown) => v,
  float64: (v: unknown) => Number(v),
  float32: (v: unknown) => Math.fround(Number(v)),
};

export const ENV: GoEnvironment = {
  value(name) {
    if (name in VARIABLES) {
      const v = VARIABLES[name];
      return typeof v === 'object' && v !== null ? extended(v, {}) : v;
    }
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call(name, args) {
    const f = HELPERS[name];
    if (!f) throw new GoUnsupported(`unknown function ${name}`);
    return f(...args);
  },
};

/** A JSON value from Go's: exact integers stay exact only past what a double holds. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v;
  if (Array.isArray(v)) return v.map(jsonValue);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== '@type')
        .map(([k, x]) => [k, jsonValue(x)]),
    );
  return v;
}

/** The text of a test's table: from `<table> := []struct {...}{` to the matching `}`. */
export function tableText(goSource: string, test = 'TestValidationExpressions', table = 'tests'): string {
  const start = goSource.indexOf(`func ${test}(`);
  if (start < 0) throw new Error(`${test} not found`);
  const open = goSource.indexOf('}{', goSource.indexOf(`${table} := []struct`, start)) + 1;
  let depth = 0;
  for (let i = open; i < goSource.length; i++) {
    const c = goSource[i];
    if (c === '"' || c === '`') {
      const close = c === '`' ? goSource.indexOf('`', i + 1) : findQuoteEnd(goSource, i);
      i = close;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return goSource.slice(open + 1, i);
  }
  throw new Error(`${test} has no table`);
}
function findQuoteEnd(s: string, i: number): number {
  let j = i + 1;
  while (s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
  return j;
}

/** Splits the table into its entries: each `{...}` at the top level. */
export function entries(table: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = -1;
  for (let i = 0; i < table.length; i++) {
    const c = table[i];
    if (c === '"' || c === '`') {
      i = c === '`' ? table.indexOf('`', i + 1) : findQuoteEnd(table, i);
      continue;
    }
    if (c === '/' && table[i + 1] === '/') {
      i = table.indexOf('\n', i);
      continue;
    }
    if (c === '{' && depth++ === 0) from = i;
    else if (c === '}' && --depth === 0) out.push(table.slice(from, i + 1));
  }
  return out;
}

export function validationExpressionCases(goSource: string): ValidationTable {
  const table: ValidationTable = { suite: 'TestValidationExpressions', cases: [], unread: [] };
  for (const text of entries(tableText(goSource))) {
    const name = /name:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '(unnamed)';
    try {
      const entry = new GoParser(tokenize(text.slice(1, -1)), ENV).fields();
      const schema = structural(entry.schema);
      const object = jsonValue(entry.obj);
      const oldObject = 'oldObj' in entry ? jsonValue(entry.oldObj) : undefined;
      const isRoot = entry.isRoot === true;
      for (const rule of (entry.valid as string[] | undefined) ?? [])
        table.cases.push({ entry: name, rule, expect: 'valid', schema: withRule(schema, rule), object, oldObject, isRoot });
      for (const [rule, contains] of Object.entries((entry.errors as Record<string, string> | undefined) ?? {}))
        table.cases.push({ entry: name, rule, expect: 'error', schema: withRule(schema, rule), object, oldObject, contains, isRoot });
    } catch (err) {
      if (!(err instanceof GoUnsupported)) throw err;
      table.unread.push({ entry: name, why: err.message });
    }
  }
  return table;
}

/**
 * The rules of TestCelCostStability (celcoststability_test.go), read with the same helpers: each rule of an entry's
 * expectCost holds on its object (the test asserts its runtime cost; the cost itself is not compared here, only
 * that the rule is admitted and holds, as the API server's evaluation of it does).
 */
export function celCostStabilityCases(goSource: string): ValidationTable {
  const table: ValidationTable = { suite: 'TestCelCostStability', cases: [], unread: [] };
  for (const text of entries(tableText(goSource, 'TestCelCostStability', 'cases'))) {
    const name = /name:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '(unnamed)';
    try {
      const entry = new GoParser(tokenize(text.slice(1, -1)), ENV).fields();
      const schema = structural(entry.schema);
      const object = jsonValue(entry.obj);
      // Each rule is validated at the resource's root (NewValidator(&s, true, ...)): apiVersion, kind and metadata are there.
      for (const rule of Object.keys((entry.expectCost as Record<string, unknown> | undefined) ?? {}))
        table.cases.push({ entry: name, rule, expect: 'valid', schema: withRule(schema, rule), object, isRoot: true });
    } catch (err) {
      if (!(err instanceof GoUnsupported)) throw err;
      table.unread.push({ entry: name, why: err.message });
    }
  }
  return table;
}

/**
 * Each case as the API server would meet it: a rule it refuses at CRD create (does not compile, or selects a field
 * its node does not declare) is an error; otherwise the object is validated, and a valid rule must hold, an error
 * rule must fail. A rule this evaluator does not judge agrees with neither. Grouped by table entry.
 */
export function validationAgreement(table: ValidationTable): Agreement {
  const a = emptyAgreement();
  for (const u of table.unread) count(a, { group: u.entry, ok: false, file: `${table.suite}/${u.entry}`, why: `not read: ${u.why}` });
  for (const c of table.cases) {
    const file = `${table.suite}/${c.entry}: ${c.rule}`;
    const compiled = compileRule(c.rule);
    if (!compiled.ok && !compiled.refused) {
      count(a, { group: c.entry, ok: false, file, why: `not judged: ${compiled.why}` });
      continue;
    }
    const atNode = compiled.ok ? ruleAtNode(c.rule, { ...c.schema, 'x-kubernetes-validations': [] }, c.isRoot) : undefined;
    // As crd-accepted refuses at create: a type problem, or a rule that does not evaluate to a bool.
    const notBool = atNode?.resultType && atNode.resultType !== 'bool' ? 'cel expression must evaluate to a bool' : undefined;
    const refused = !compiled.ok ? compiled.why : (atNode!.typeProblems[0] ?? notBool);
    const all = refused === undefined ? ruleViolations(c.schema, c.object, c.oldObject) : [];
    const beyond = all.find((v) => v.notJudged);
    if (beyond) {
      count(a, { group: c.entry, ok: false, file, why: `not judged: ${beyond.message}` });
      continue;
    }
    const violations = all;
    const failed = refused !== undefined || violations.length > 0;
    const said = refused ?? violations[0]?.message ?? 'it holds';
    count(a, {
      group: c.entry,
      ok: c.expect === 'valid' ? !failed : failed,
      file,
      why: c.expect === 'valid' ? `refused: ${said}` : `holds, upstream: ${c.contains ?? 'an error'}`,
    });
  }
  return a;
}
