/**
 * apiextensions-apiserver's own cases of what the API server does to a custom resource before it validates it
 * (pkg/apiserver/schema/defaulting: `TestDefault` in algorithm_test.go, `TestPruneNonNullableNullsWithoutDefaults` in
 * prunenulls_test.go), read as data and judged through the schema layer's reading (schema/structural-defaults.ts):
 * each row's structural schema written as the CRD schema it comes from (properties, items, additionalProperties,
 * default, nullable), its JSON put through the one step the test runs, the result held to the row's. A row this
 * reader cannot follow is counted apart.
 */
import { isDeepStrictEqual } from 'node:util';
import { isMap } from '../../model/core/dig.ts';
import { pruneNulls, withDefaults } from '../../schema/structural-defaults.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, builtinEnvironment, structTableRows } from './go-literals.ts';

type Obj = Record<string, unknown>;

export interface DefaultingCase {
  test: string;
  step: 'Default' | 'PruneNonNullableNullsWithoutDefaults';
  json: unknown;
  schema?: Obj;
  expected: unknown;
}

/** A structuralschema.Structural literal as the CRD schema it stands for. */
export function schemaOf(go: unknown): Obj | undefined {
  if (!isMap(go)) return undefined;
  const out: Obj = {};
  const extensions = isMap(go.Extensions) ? go.Extensions : {};
  if (extensions.XPreserveUnknownFields === true) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (extensions.XEmbeddedResource === true) out['x-kubernetes-embedded-resource'] = true;
  if (isMap(go.Generic) && typeof go.Generic.Type === 'string' && go.Generic.Type !== '') out.type = go.Generic.Type;
  if (isMap(go.Properties)) out.properties = Object.fromEntries(Object.entries(go.Properties).map(([k, v]) => [k, schemaOf(v) ?? {}]));
  if (isMap(go.Items)) out.items = schemaOf(go.Items);
  if (isMap(go.AdditionalProperties))
    out.additionalProperties = isMap(go.AdditionalProperties.Structural) ? schemaOf(go.AdditionalProperties.Structural) : go.AdditionalProperties.Bool === true;
  const generic = isMap(go.Generic) ? go.Generic : {};
  if (isMap(generic.Default) && generic.Default.Object !== undefined) out.default = generic.Default.Object;
  if (generic.Nullable === true) out.nullable = true;
  return out;
}

/** The rows of both tests, and those this reader cannot follow. */
export function defaultingCases(files: readonly string[]): { cases: DefaultingCase[]; unread: { test: string; why: string }[] } {
  const cases: DefaultingCase[] = [];
  const unread: { test: string; why: string }[] = [];
  for (const source of files)
    for (const step of ['Default', 'PruneNonNullableNullsWithoutDefaults'] as const) {
      const at = source.indexOf(`func Test${step}(`);
      if (at < 0) continue;
      for (const { text, row, why } of structTableRows(blockAt(source, source.indexOf('{', at)), /tests/, builtinEnvironment())) {
        const name = `Test${step}/${/^\{?\s*"((?:[^"\\]|\\.)*)"/.exec(text.trim())?.[1] ?? '(unnamed)'}`;
        const cells = Array.isArray(row) ? (row as unknown[]) : undefined;
        if (!cells || cells.length !== 4) {
          unread.push({ test: name, why: why ?? 'a row of another shape' });
          continue;
        }
        const [, json, schema, expected] = cells;
        cases.push({ test: name, step, json: JSON.parse(String(json)), schema: schemaOf(schema), expected: JSON.parse(String(expected)) });
      }
    }
  return { cases, unread };
}

/** Each row's step run through the schema layer's reading, held to the test's result. */
export function defaultingAgreement(cases: readonly DefaultingCase[], unread: readonly { test: string; why: string }[] = []): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const got = c.schema === undefined ? c.json : c.step === 'Default' ? withDefaults(c.json, c.schema) : pruneNulls(c.json, c.schema);
    count(a, {
      group: c.step,
      ok: isDeepStrictEqual(got, c.expected),
      file: c.test,
      why: `gives ${JSON.stringify(got)}, the API server ${JSON.stringify(c.expected)}`,
    });
  }
  for (const u of unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}
