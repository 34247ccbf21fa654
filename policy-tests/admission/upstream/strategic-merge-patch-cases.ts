/**
 * apimachinery's own cases of a strategic merge patch applied (pkg/util/strategicpatch/patch_test.go), read as data
 * and judged through the model (model/appset/strategic-merge-patch.ts, which applies an ApplicationSet's
 * templatePatch): the test's `MergeItem` struct and its tags as the schema; every application the tests make (a
 * two-way patch on the original, a three-way patch on the current object, each a patch the test holds to its
 * expected text) with its expected document or the error it must contain. The YAML tables are sorted first, as the
 * test sorts them (`sortMergeListsByName`). A struct field this reader cannot type is said, never guessed.
 */
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { isMap, type Obj } from '../../model/core/dig.ts';
import { patchSchemaOf, type PatchTags, type PatchType } from '../../model/appset/application-type.ts';
import { goPrint } from '../../model/go/fmt.ts';
import { strategicMergePatch, type PatchSchema } from '../../model/appset/strategic-merge-patch.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt } from './go-literals.ts';

export interface PatchCase {
  test: string;
  original: Obj;
  patch: Obj;
  /** The document the patch makes, or undefined where it must fail. */
  expected?: Obj;
  /** What the error must contain, where it must fail. */
  error?: string;
}

/** The test's structs (`MergeItem`, `RetainKeysMergeItem`) as Go types, and their tags. */
export function mergeItemSchema(goSource: string): { schema: PatchSchema; unread: string[] } {
  type Struct = { struct: string; fields: Record<string, PatchType> };
  const structs = new Map<string, Struct>();
  const tags: Record<string, { strategy: string; mergeKey?: string }> = {};
  const unread: string[] = [];
  const bodies = [...goSource.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)];
  for (const [, name] of bodies) structs.set(name!, { struct: name!, fields: {} });
  const typeOf = (go: string): PatchType | undefined => {
    if (go === 'string' || go === 'int' || go === 'bool') return 'string';
    if (go === 'runtime.RawExtension') return 'raw';
    if (go === 'struct{ Raw []byte }') return { struct: '', fields: { Raw: 'string' } };
    if (go.startsWith('[]')) return ((t) => t && { list: t })(typeOf(go.slice(2)));
    if (go.startsWith('*')) return ((t) => t && { ptr: t })(typeOf(go.slice(1)));
    if (go.startsWith('map[string]')) return ((t) => t && { map: t })(typeOf(go.slice('map[string]'.length)));
    return structs.get(go);
  };
  for (const [, name, body] of bodies) {
    if (name !== 'MergeItem' && name !== 'RetainKeysMergeItem') continue;
    for (const line of body!.split('\n')) {
      const field = /^\s*\w+\s+(.+?)\s+`json:"([^",]*)[^"]*"(?:\s+patchStrategy:"([^"]*)")?(?:\s+patchMergeKey:"([^"]*)")?`/.exec(line);
      if (!field) continue;
      const [, go, json, strategy, mergeKey] = field;
      const t = typeOf(go!);
      if (!t) unread.push(`${name}.${json}: type ${go}`);
      else structs.get(name!)!.fields[json!] = t;
      if (strategy) tags[`${name}.${json}`] = { strategy, mergeKey };
    }
  }
  const root = structs.get('MergeItem');
  if (!root) throw new Error('patch_test.go declares no MergeItem struct');
  return { schema: patchSchemaOf(root, tags as PatchTags), unread };
}

/** `sortMergeListsByName`, as the test sorts its YAML tables: merge lists by their key, lists of scalars deduplicated and sorted. */
function sortMergeLists(value: Obj, schema: PatchSchema): Obj {
  const out: Obj = {};
  const byText = (a: unknown, b: unknown) => (goPrint(a) < goPrint(b) ? -1 : goPrint(a) > goPrint(b) ? 1 : 0);
  for (const [k, v] of Object.entries(value)) {
    if ((k === '$retainKeys' || k.startsWith('$deleteFromPrimitiveList')) && Array.isArray(v)) out[k] = [...v].sort(byText);
    else if (k.startsWith('$') || (!isMap(v) && !Array.isArray(v))) out[k] = v;
    else if (isMap(v)) out[k] = sortMergeLists(v, schema.forStruct(k).schema);
    else {
      const meta = schema.forSlice(k);
      const merges = meta.strategies.includes('merge');
      if (!merges || v.length === 0) out[k] = v;
      else if (!isMap(v[0])) out[k] = [...new Set(v)].sort(byText);
      else out[k] = v.map((e) => sortMergeLists(e as Obj, meta.schema)).sort((a, b) => byText(a[meta.mergeKey], b[meta.mergeKey]));
    }
  }
  return out;
}

const asObj = (v: unknown): Obj => (isMap(v) ? v : {});

/** The YAML tables: each case's two-way and three-way applications, sorted as the test sorts them. */
function tableCases(goSource: string, table: string, schema: PatchSchema, threeWay: boolean): PatchCase[] {
  const at = goSource.indexOf(`var ${table} = []byte(\``);
  if (at < 0) return [];
  const start = goSource.indexOf('`', at) + 1;
  const data = parse(goSource.slice(start, goSource.indexOf('`', start))) as { testCases?: Obj[] };
  const sorted = (v: unknown) => sortMergeLists(asObj(v), schema);
  return (data.testCases ?? []).flatMap((c) => {
    const name = `${table}/${String(c.description)}`;
    const out: PatchCase[] = [
      { test: `${name}/TwoWay`, original: sorted(c.original), patch: sorted(c.twoWay), expected: sorted(c.twoWayResult ?? c.modified) },
    ];
    if (threeWay && isMap(c.result) && Object.keys(c.result).length > 0)
      out.push({ test: `${name}/ThreeWay`, original: sorted(c.current), patch: sorted(c.threeWay), expected: sorted(c.result) });
    return out;
  });
}

/** The raw tables (`[]StrategicMergePatchRawTestCase`): YAML fields as written, an expected error where one is named. */
function rawCases(goSource: string, table: string, threeWay: boolean): PatchCase[] {
  const at = goSource.indexOf(`var ${table} = []StrategicMergePatchRawTestCase{`);
  if (at < 0) return [];
  const body = blockAt(goSource, goSource.indexOf('{', at));
  const out: PatchCase[] = [];
  for (const chunk of body.split(/\n\t\{\n(?:\t\t\/\/[^\n]*\n)*\t\tDescription: /).slice(1)) {
    const name = `${table}/${/^"((?:[^"\\]|\\.)*)"/.exec(chunk)?.[1] ?? '(unnamed)'}`;
    const field = (f: string): Obj | undefined => {
      const m = new RegExp(`\\b${f}: \\[\\]byte\\(\`([^\`]*)\`\\)`).exec(chunk);
      return m ? asObj(parse(m[1]!)) : undefined;
    };
    const error = /ExpectedError: "((?:[^"\\]|\\.)*)"/.exec(chunk)?.[1];
    const twoWay = { test: `${name}/TwoWay`, original: field('Original') ?? {}, patch: field('TwoWay') ?? {} };
    out.push(error ? { ...twoWay, error } : { ...twoWay, expected: field('TwoWayResult') ?? field('Modified') ?? {} });
    const result = field('Result');
    if (threeWay && !error && result && Object.keys(result).length > 0)
      out.push({ test: `${name}/ThreeWay`, original: field('Current') ?? {}, patch: field('ThreeWay') ?? {}, expected: result });
  }
  return out;
}

/** TestUnknownField's table: JSON documents, each patch applied where no error is expected of making it. */
function unknownFieldCases(goSource: string): PatchCase[] {
  const at = goSource.indexOf('func TestUnknownField(');
  if (at < 0) return [];
  const out: PatchCase[] = [];
  // `testcases := map[string]struct {...}{`: the table opens where the struct type closes.
  const body = blockAt(goSource, goSource.indexOf('}{', at) + 1);
  for (const m of body.matchAll(/\n\t\t"([^"]+)": \{([\s\S]*?)\n\t\t\},/g)) {
    const json = (f: string) => ((t) => (t === undefined ? undefined : asObj(JSON.parse(t))))(new RegExp(`\\b${f}:\\s*\`([^\`]*)\``).exec(m[2]!)?.[1]);
    // A case whose patch cannot be made is never applied: the test stops at making it.
    if (/ExpectedTwoWayErr:/.test(m[2]!)) continue;
    const [original, current] = [json('Original'), json('Current')];
    const [twoWay, twoWayResult, threeWay, threeWayResult] = ['ExpectedTwoWay', 'ExpectedTwoWayResult', 'ExpectedThreeWay', 'ExpectedThreeWayResult'].map(json);
    if (original && twoWay && twoWayResult) out.push({ test: `TestUnknownField/${m[1]}/TwoWay`, original, patch: twoWay, expected: twoWayResult });
    if (current && threeWay && threeWayResult)
      out.push({ test: `TestUnknownField/${m[1]}/ThreeWay`, original: current, patch: threeWay, expected: threeWayResult });
  }
  return out;
}

/** Every application patch_test.go makes, through the test's own schema. */
export function strategicMergePatchCases(goSource: string): { cases: PatchCase[]; schema: PatchSchema; unread: string[] } {
  const { schema, unread } = mergeItemSchema(goSource);
  const cases = [
    ...tableCases(goSource, 'createStrategicMergePatchTestCaseData', schema, true),
    ...tableCases(goSource, 'customStrategicMergePatchTestCaseData', schema, false),
    ...rawCases(goSource, 'strategicMergePatchRawTestCases', true),
    ...rawCases(goSource, 'customStrategicMergePatchRawTestCases', false),
    ...rawCases(goSource, 'replaceRawExtensionPatchTestCases', true),
    ...unknownFieldCases(goSource),
  ];
  return { cases, schema, unread };
}

/** Each case applied through the model, held to apimachinery's document, or to its error. */
export function strategicMergePatchAgreement(cases: readonly PatchCase[], schema: PatchSchema, unread: readonly string[] = []): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    let got: Obj | undefined;
    let failed: string | undefined;
    try {
      got = strategicMergePatch(c.original, c.patch, schema);
    } catch (err) {
      failed = (err as Error).message;
    }
    const group = c.error !== undefined ? 'refused' : c.test.endsWith('/ThreeWay') ? 'three-way' : 'two-way';
    const ok = c.error !== undefined ? failed?.includes(c.error) === true : failed === undefined && isDeepStrictEqual(got, c.expected);
    const why =
      failed !== undefined
        ? `the model failed: ${failed}`
        : `made ${JSON.stringify(got)}, apimachinery ${c.error ? `fails with "${c.error}"` : JSON.stringify(c.expected)}`;
    count(a, { group, ok, file: c.test, why });
  }
  for (const u of unread) count(a, { group: 'not read', ok: false, file: 'MergeItem', why: `not read: ${u}` });
  return a;
}
