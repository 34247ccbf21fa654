/**
 * Argo CD's own cases of an ApplicationSet's git and list generators (applicationset/generators/git_test.go:
 * TestGitGenerateParamsFromDirectories, TestGitGenerateParamsFromFiles and their GoTemplate twins; list_test.go:
 * TestGenerateListParams and its GoTemplate twin), judged through the gate's reading (model/appset/params.ts, and
 * the values rendered by model/appset/renderer.ts with the engine injected). A git case gives the folders or the
 * files the repo-server would answer (its mock) and expects the parameter sets, in order, or an error. A row that
 * sets the mock's own error, or a value this reader does not read as a literal, is counted apart.
 */
import { directoryParams, fileParams, listParams, type Params } from '../../model/appset/params.ts';
import { withValues, type GoTemplateEngine, type TemplateMode } from '../../model/appset/renderer.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, GoUnsupported, structTableRows } from './go-literals.ts';

type Obj = Record<string, unknown>;

const GIT_TESTS = [
  { test: 'TestGitGenerateParamsFromDirectories', kind: 'directories', goTemplate: false },
  { test: 'TestGitGenerateParamsFromDirectoriesGoTemplate', kind: 'directories', goTemplate: true },
  { test: 'TestGitGenerateParamsFromFiles', kind: 'files', goTemplate: false },
  { test: 'TestGitGenerateParamsFromFilesGoTemplate', kind: 'files', goTemplate: true },
] as const;
const LIST_TESTS = [
  { test: 'TestGenerateListParams', goTemplate: false },
  { test: 'TestGenerateListParamsGoTemplate', goTemplate: true },
] as const;

export interface GeneratorCase {
  test: string;
  goTemplate: boolean;
  /** What the generator is given and answers with: the git mock's folders or files, or the list's elements. */
  run: (mode: TemplateMode) => Promise<Params[]>;
  expected: unknown[];
  /** Argo CD fails the generator. */
  fails: boolean;
  /** Compared as a set (list_test's ElementsMatch), else in order (git_test's Equal). */
  unordered: boolean;
}

/** Go's values: `[]byte("...")` (read as byteText) as its text, `float64(n)` as n, `errors.New(m)` as an error. */
const ENV = {
  value: (name: string): unknown => {
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call: (name: string, args: unknown[]): unknown => {
    if (name === 'byteText' && typeof args[0] === 'string') return args[0];
    if (name === 'float64' && (typeof args[0] === 'bigint' || typeof args[0] === 'number')) return Number(args[0]);
    if (name === 'errors.New' && typeof args[0] === 'string') return { error: args[0] };
    throw new GoUnsupported(`unknown call ${name}`);
  },
};

/** The rows of a test's first table, each with its name. */
function rows(src: string, test: string): { name: string; row?: Obj; why?: string }[] {
  const start = src.indexOf(`func ${test}(`);
  if (start === -1) return [];
  return structTableRows(blockAt(src, src.indexOf('{', start)), /cases|testCases/, ENV).map(({ text, row, why }, i) => ({
    name: `${test}/${/name:\s*"([^"]*)"/.exec(text)?.[1] ?? `case ${i}`}`,
    ...(row ? { row } : { why: why! }),
  }));
}

const items = (v: unknown) =>
  (Array.isArray(v) ? v : []).map((i) => ({
    path: typeof (i as Obj).Path === 'string' ? ((i as Obj).Path as string) : '',
    exclude: (i as Obj).Exclude === true,
  }));

/** The cases of git_test.go and list_test.go, and the rows this reader cannot follow. */
export function generatorCases(gitTest: string, listTest: string): { cases: GeneratorCase[]; unread: { test: string; why: string }[] } {
  const cases: GeneratorCase[] = [];
  const unread: { test: string; why: string }[] = [];
  for (const { test, kind, goTemplate } of GIT_TESTS)
    for (const { name, row, why } of rows(gitTest, test)) {
      if (!row) {
        unread.push({ test: name, why: why! });
        continue;
      }
      // The repo-server mock's own failure is not something the generator reads.
      if ((row.repoError ?? row.repoPathsError ?? null) !== null) {
        unread.push({ test: name, why: "the repo-server mock's own error" });
        continue;
      }
      const prefix = typeof row.pathParamPrefix === 'string' ? row.pathParamPrefix : '';
      const values = (row.values ?? {}) as Obj;
      const found =
        kind === 'directories'
          ? () => directoryParams((row.repoApps ?? []) as string[], items(row.directories), goTemplate, prefix)
          : () =>
              fileParams(
                Object.entries((row.repoFileContents ?? {}) as Record<string, string>).map(([path, text]) => ({ path, text })),
                goTemplate,
                prefix,
              );
      cases.push({
        test: name,
        goTemplate,
        run: (mode) => withValues(mode, found(), values),
        expected: (row.expected ?? []) as unknown[],
        fails: row.expectedError !== undefined && row.expectedError !== null,
        unordered: false,
      });
    }
  for (const { test, goTemplate } of LIST_TESTS)
    for (const { name, row, why } of rows(listTest, test)) {
      if (!row) {
        unread.push({ test: name, why: why! });
        continue;
      }
      const elements = ((row.elements ?? []) as Obj[]).map((e) => JSON.parse(String(e.Raw)) as unknown);
      cases.push({
        test: name,
        goTemplate,
        run: () => Promise.resolve(listParams({ elements }, goTemplate)),
        expected: (row.expected ?? []) as unknown[],
        fails: false,
        unordered: true,
      });
    }
  return { cases, unread };
}

/** Object keys sorted, so two sets compare by content. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Obj).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
  );

/** Each case judged: the same parameter sets, or a failure where Argo CD fails. */
export async function generatorAgreement(cases: readonly GeneratorCase[], engine: GoTemplateEngine): Promise<Agreement> {
  const a = emptyAgreement();
  for (const c of cases) {
    let got: Params[] | undefined;
    let error: string | undefined;
    try {
      got = await c.run({ goTemplate: c.goTemplate, options: [], engine });
    } catch (err) {
      error = (err as Error).message;
    }
    const said = (sets: unknown[]) => (c.unordered ? sets.map(canonical).sort() : sets.map(canonical)).join('\n');
    const ok = c.fails ? error !== undefined : got !== undefined && said(got) === said(c.expected);
    const group = `${c.test.split('/')[0]}`;
    count(a, {
      group,
      ok,
      file: c.test,
      why: `Argo CD ${c.fails ? 'fails' : said(c.expected)}; the gate ${error !== undefined ? `fails: ${error}` : said(got ?? [])}`,
    });
  }
  return a;
}
