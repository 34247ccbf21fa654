/**
 * apiextensions-apiserver's own cases of the fields the API server prunes from a custom resource
 * (pkg/apiserver/schema/pruning/algorithm_test.go, `TestPrune`), which strict field validation, as Argo CD's apply
 * asks for it, turns into "unknown field" errors: each row's structural schema written as the CRD schema it stands
 * for, its JSON walked by the schema layer's unknown-field reading (schema/repo-crds.ts `prunedFieldPaths`), the paths held to the row's pruned ones. A resource's metadata is left to
 * ObjectMeta's own reading, as the pruning leaves it; a row this reader cannot follow is counted apart.
 */
import { isMap } from '../../model/core/dig.ts';
import { prunedFieldPaths } from '../../schema/repo-crds.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, builtinEnvironment, structTableRows } from './go-literals.ts';
import { schemaOf } from './structural-defaulting-cases.ts';

export interface PruningCase {
  test: string;
  json: unknown;
  isResourceRoot: boolean;
  schema?: Record<string, unknown>;
  expected: string[];
}

/** TestPrune's rows, and those this reader cannot follow. */
export function pruningCases(source: string): { cases: PruningCase[]; unread: { test: string; why: string }[] } {
  const cases: PruningCase[] = [];
  const unread: { test: string; why: string }[] = [];
  const at = source.indexOf('func TestPrune(');
  if (at < 0) return { cases, unread };
  for (const { text, row, why } of structTableRows(blockAt(source, source.indexOf('{', at)), /tests/, builtinEnvironment())) {
    const test = `TestPrune/${/name:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '(unnamed)'}`;
    if (!isMap(row) || typeof row.json !== 'string') {
      unread.push({ test, why: why ?? 'a row of another shape' });
      continue;
    }
    const expected = Array.isArray(row.expectedPruned) ? row.expectedPruned.map(String) : [];
    cases.push({ test, json: JSON.parse(row.json), isResourceRoot: row.isResourceRoot === true, schema: schemaOf(row.schema), expected: expected.sort() });
  }
  return { cases, unread };
}

/** A path as the pruning records it: `a.b[0].c`. */
const pathText = (path: (string | number)[]): string => path.map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? seg : `.${seg}`)).join('');

/** The paths the schema layer finds unknown in a row's JSON. */
export function unknownPathsOf(c: PruningCase): string[] {
  // The pruning records no apiVersion, kind or metadata at the top of what it is given, a resource or not.
  return prunedFieldPaths(c.schema, c.json, c.isResourceRoot)
    .filter((path) => path.length > 1 || !['apiVersion', 'kind', 'metadata'].includes(String(path[0])))
    .map(pathText)
    .sort();
}

/** Each row's unknown paths, as the schema layer reads them, held to the pruning's. */
export function pruningAgreement(cases: readonly PruningCase[], unread: readonly { test: string; why: string }[] = []): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const got = unknownPathsOf(c);
    count(a, {
      group: 'TestPrune',
      ok: JSON.stringify(got) === JSON.stringify(c.expected),
      file: c.test,
      why: `finds ${JSON.stringify(got)}, the API server prunes ${JSON.stringify(c.expected)}`,
    });
  }
  for (const u of unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}
