/**
 * Argo CD's repo-server tests (reposerver/repository/repository_test.go at the
 * pinned tag), read as data and judged through the gate's reading of a source:
 * each call the tests make of the directory walk (`getPotentiallyValidManifests`,
 * `findManifests`) or of the tool choice (`GetAppSourceType`) on the
 * checked-in `testdata/`, with the assertions that follow it (how many
 * manifests, which names, an error or none), and the generate-manifests tests
 * of directory, jsonnet and parameter-file sources. A case whose files the
 * test makes at run time (symlinks, permissions), that sets the server's size
 * limit, or that needs Helm, kustomize, git, OCI or a plugin server is counted
 * apart as not applicable, with the reason; nothing is guessed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { discoveredTool, type DirectoryOptions } from '../../model/argocd/repo-server.ts';
import { judgeParameterCase, parameterCases, type ParameterCase } from './argocd-parameter-cases.ts';
import { readDirectorySource, walkPaths } from '../../model/repository/directory-source.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, callArgumentTexts, GoParser, GoUnsupported, tokenize } from './go-literals.ts';
import { helmCases, isolatedRenderEnv, judgeHelmCase, type HelmCase } from './argocd-helm-cases.ts';

export interface RepoServerCase {
  test: string;
  /**
   * What it calls: the walk, findManifests, the tool choice, a generate-manifests request, one of a Helm or jsonnet
   * source, or the app details of a source with parameter files (its merged source).
   */
  kind: 'walk' | 'find' | 'tool' | 'generate' | 'helm' | 'jsonnet' | 'parameters';
  /** A Helm or jsonnet source's request, for kinds `helm` and `jsonnet`, judged through the render tier. */
  helm?: HelmCase;
  appPath: string;
  repoRoot: string;
  directory: DirectoryOptions;
  /** The repo-server's limit on a directory's combined manifest size the call passes (0: none). */
  maxCombinedBytes?: number;
  /** What the test asserts. */
  expect: { error?: boolean; count?: number; names?: string[]; tool?: string };
  /** An app-details request on a folder of source parameter files, judged through the gate's merge. */
  parameters?: ParameterCase;
  /** Why it is not judged here, if it is not. */
  notApplicable?: string;
  /** What the gate does on purpose that Argo CD does not (refusing source parameter files, dangling symlinks). */
  byDesign?: string;
}

/** Every test function's subtests (`t.Run("name", func...)`), or its whole body when it has none. */
export function testUnits(src: string): { name: string; body: string }[] {
  const out: { name: string; body: string }[] = [];
  for (const m of src.matchAll(/^func (Test\w+)\(t \*testing\.T\) \{/gm)) {
    const body = blockAt(src, m.index + m[0].length - 1);
    const runs = [...body.matchAll(/t\.Run\(("(?:[^"\\]|\\.)*"|tc\.name|tt\.name), func\(t \*testing\.T\) \{/g)];
    if (runs.length === 0) out.push({ name: m[1]!, body });
    // A subtest run over a table's rows is read with its table, below: its rows are the cases.
    // A subtest reads the setup its function makes before the first subtest (newService, shared variables).
    const setup = runs.length ? body.slice(0, runs[0]!.index) : '';
    for (const r of runs.filter((x) => x[1]!.startsWith('"')))
      out.push({ name: `${m[1]}/${r[1]!.replace(/^"|"$/g, '')}`, body: `${setup}\n${blockAt(body, r.index + r[0].length - 1)}` });
    if (runs.some((r) => !r[1]!.startsWith('"'))) out.push({ name: `${m[1]}#table`, body });
  }
  return out;
}

const RUN_TIME_FILES = /os\.Symlink|os\.WriteFile|os\.Chmod|CreateSymlink|t\.TempDir\(|tempDir\(t\)|os\.MkdirAll|os\.OpenFile|CopyDir|mkTempParameters/;
const goString = (arg: string): string | undefined => (/^"((?:[^"\\]|\\.)*)"$/.exec(arg) ? (JSON.parse(arg) as string) : undefined);

/** A path argument: a string, or a variable the unit sets from `filepath.Abs("...")`. */
function pathArg(arg: string, body: string): string | undefined {
  const literal = goString(arg);
  if (literal !== undefined) return literal;
  const abs = new RegExp(`${arg}, err :?= filepath\\.Abs\\(("[^"]*")\\)`).exec(body);
  return abs ? goString(abs[1]!) : undefined;
}

/** A directory argument: `noRecurse`/`recurse`, or an `ApplicationSourceDirectory{...}` literal (fields from a table row by `tc.`). */
function directoryArg(arg: string, row: Record<string, unknown> = {}): DirectoryOptions | undefined {
  if (arg === 'noRecurse') return { recurse: false };
  if (arg === 'recurse') return { recurse: true };
  const literal = /^(?:v1alpha1|argoappv1)\.ApplicationSourceDirectory\{([\s\S]*)\}$/.exec(arg);
  if (!literal) return undefined;
  const field = (name: string) => new RegExp(`${name}:\\s*([^,\\n]+)`).exec(literal[1]!)?.[1]!.trim();
  const value = (raw: string | undefined) => (raw === undefined ? undefined : raw.startsWith('tc.') ? row[raw.slice(3)] : goString(raw));
  const include = value(field('Include'));
  const exclude = value(field('Exclude'));
  return {
    recurse: field('Recurse') === 'true',
    ...(typeof include === 'string' && include !== '' ? { include } : {}),
    ...(typeof exclude === 'string' && exclude !== '' ? { exclude } : {}),
  };
}

/** What the assertions after a call (up to the next call) expect of it. */
function expectations(after: string, result: string): RepoServerCase['expect'] {
  const out: RepoServerCase['expect'] = {};
  const len = new RegExp(`(?:assert|require)\\.Len\\(t, ${result}, (\\d+)\\)`).exec(after);
  if (len) out.count = Number(len[1]);
  if (new RegExp(`assert\\.Empty\\(t, ${result}\\)`).test(after)) out.count = 0;
  if (/require\.NoError\(t, err\)/.test(after)) out.error = false;
  if (/(?:require|assert)\.(?:Error|ErrorIs|ErrorContains)\(t, err/.test(after)) out.error = true;
  const name = new RegExp(`assert\\.Equal\\(t, ("[^"]*"), ${result}\\[0\\]\\.GetName\\(\\)\\)`).exec(after);
  if (name) out.names = [goString(name[1]!)!];
  const match = /assert\.ElementsMatch\(t,\s*\[\]string\{([^}]*)\}/.exec(after);
  if (match) out.names = [...match[1]!.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  return out;
}

const SIZE = /resource\.MustParse\("(\d+)"\)/;

/** The walk and findManifests calls of one unit, each with what follows it. */
function walkCases(test: string, body: string, rows: Record<string, unknown>[] = [{}]): RepoServerCase[] {
  const out: RepoServerCase[] = [];
  const calls = [...body.matchAll(/(\w+), err :?= (getPotentiallyValidManifests|findManifests)\(/g)];
  calls.forEach((call, i) => {
    const open = call.index + call[0].length - 1;
    const args = callArgumentTexts(body, open);
    const after = body.slice(open, calls[i + 1]?.index ?? body.length);
    const kind = call[2] === 'findManifests' ? 'find' : 'walk';
    const appPath = pathArg(args[1]!, body);
    const repoRoot = pathArg(args[2]!, body);
    const size = SIZE.exec(args[args.length - 1]!)?.[1];
    for (const row of rows) {
      const directory =
        kind === 'walk'
          ? {
              recurse: args[3] === 'true',
              ...(goString(args[4]!) ? { include: goString(args[4]!) } : {}),
              ...(goString(args[5]!) ? { exclude: goString(args[5]!) } : {}),
            }
          : directoryArg(args[4]!, row);
      const expect = expectations(after, call[1]!);
      if (row.expectedNames) expect.names = row.expectedNames as string[];
      const name = rows.length > 1 || row.name ? `${test}/${String(row.name)}` : `${test}${calls.length > 1 ? `#${i + 1}` : ''}`;
      const limit = size === undefined ? {} : { maxCombinedBytes: Number(size) };
      const base = { test: name, kind, appPath: appPath ?? args[1]!, repoRoot: repoRoot ?? args[2]!, directory: directory ?? {}, expect, ...limit } as const;
      if (RUN_TIME_FILES.test(body))
        out.push({
          ...base,
          notApplicable: 'the test makes its files at run time (symlinks, permissions, temporary folders); the checkout holds none of them',
        });
      else if (appPath === undefined || repoRoot === undefined || directory === undefined || size === undefined)
        out.push({ ...base, notApplicable: 'its arguments are not literals this reader follows' });
      else out.push(base);
    }
  });
  return out;
}

/** The table of a table test (`testCases := []struct{...}{...}`), as rows. */
function tableRows(body: string): Record<string, unknown>[] {
  const m = /testCases := \[\]struct \{[\s\S]*?\n\t\}\{/.exec(body);
  if (!m) return [];
  const literal = `[]Row{${blockAt(body, m.index + m[0].length - 1)}}`;
  try {
    const rows = new GoParser(tokenize(literal), {
      value: (n) => {
        throw new GoUnsupported(n);
      },
      call: (n) => {
        throw new GoUnsupported(n);
      },
    }).expr();
    return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
  } catch {
    return [];
  }
}

const TOOL_NAMES: Record<string, string> = {
  ApplicationSourceTypeKustomize: 'Kustomize',
  ApplicationSourceTypeHelm: 'Helm',
  ApplicationSourceTypeDirectory: 'Directory',
  ApplicationSourceTypePlugin: 'Plugin',
};

/** `GetAppSourceType(ctx, &source, "<path>", ...)` followed by `assert.Equal(t, v1alpha1.ApplicationSourceType<T>, sourceType)`. */
function toolCases(test: string, body: string): RepoServerCase[] {
  const calls = [...body.matchAll(/sourceType, err :?= GetAppSourceType\(/g)];
  return calls.map((call, i) => {
    const open = call.index + call[0].length - 1;
    const args = callArgumentTexts(body, open);
    const after = body.slice(open, calls[i + 1]?.index ?? body.length);
    const expected = /assert\.Equal\(t, v1alpha1\.(ApplicationSourceType\w+), sourceType\)/.exec(after)?.[1];
    const appPath = goString(args[2]!) ?? args[2]!;
    const base: RepoServerCase = {
      test: `${test}#${i + 1}`,
      kind: 'tool',
      appPath,
      repoRoot: goString(args[3]!) ?? '.',
      directory: {},
      expect: { tool: TOOL_NAMES[expected ?? ''] },
    };
    return args[1] === '&v1alpha1.ApplicationSource{}' && base.expect.tool
      ? base
      : { ...base, notApplicable: 'a source with fields this reader does not follow' };
  });
}

/** Generate-manifests tests of a directory, jsonnet, parameter-file or Helm source, by what they hold. */
function generateCases(test: string, body: string, dir?: string): RepoServerCase[] {
  const one = generateCase(test, body, dir);
  if (one?.notApplicable === DIRECTORY) return directoryCases(test, body);
  if (one?.notApplicable !== HELM) return one ? [one] : [];
  return helmCases(test, body).map((h) => ({
    test: h.test,
    kind: h.source.directory === undefined ? ('helm' as const) : ('jsonnet' as const),
    appPath: h.serviceRoot,
    repoRoot: h.serviceRoot,
    directory: {},
    expect: { error: h.expect.error },
    helm: h,
    ...(h.notApplicable ? { notApplicable: h.notApplicable } : {}),
  }));
}

const HELM = 'a source the render tier renders (Helm, jsonnet)';
const DIRECTORY = 'a directory source';
/** What a test needs that no checkout holds: a git server, the repo-server's manifest cache, an OCI registry. */
const LIVE = /gitClient|ls-remote|ResolveRevision|Cache|cache|OCI|oci|\bgit\.(?!NoopCredsStore)|Revision:\s*"[0-9a-f]{7,}/;

/** Whether the test's repository holds a source parameter file at the root it serves (a checkout given, else unknown). */
function serviceHasParameterFile(body: string, dir?: string): boolean {
  const service = [...body.matchAll(/newService\(t, "([^"]+)"\)/g)].at(-1)?.[1];
  return dir !== undefined && service !== undefined && existsSync(join(dir, service, '.argocd-source.yaml'));
}

function generateCase(test: string, body: string, dir?: string): RepoServerCase | undefined {
  if (!/GenerateManifest\(|GenerateManifests\(/.test(body)) return undefined;
  const base = { test, kind: 'generate' as const, appPath: '', repoRoot: '.', directory: {}, expect: expectations(body, '\\w+\\.Manifests') };
  // Jsonnet is evaluated by the render tier, as Helm is rendered: the same reading of the request.
  if (/Jsonnet|jsonnet/.test(body)) return { ...base, notApplicable: HELM };
  // A folder of testdata/app-parameters rendered with its parameter files merged: through the render tier, as Helm is.
  const withParameters = /runWithTempTestdata\(t, "[^"]+", func\(t \*testing\.T, (?:path|_) string\)/.test(body) && /Path:\s*(?:path|""),/.test(body);
  if (withParameters && !LIVE.test(body)) return { ...base, notApplicable: HELM };
  if (/AppParameterFile|app-parameters|\.argocd-source/.test(test + body) || serviceHasParameterFile(body, dir))
    return {
      ...base,
      notApplicable:
        'a source whose parameter file the gate merges as Argo CD does; the test asks what this reader does not follow (the manifest cache, a ref-only source of several, a kustomize version)',
    };
  // NoCache only asks the repo-server not to use its cache: nothing live.
  if (LIVE.test(body.replace(/NoCache:\s*true,/g, ''))) return { ...base, notApplicable: 'needs a live server, git, the manifest cache or OCI' };
  if (RUN_TIME_FILES.test(body))
    return { ...base, notApplicable: 'the test makes its files at run time (symlinks, permissions, temporary folders); the checkout holds none of them' };
  if (/Kustomize|kustomize/.test(body))
    return { ...base, notApplicable: "a kustomize source: the gate's kustomize cases are the render tier's tests, not yet read from Argo CD's table" };
  if (/Helm|helm|Chart|chart/.test(body)) return { ...base, notApplicable: HELM };
  if (RUN_TIME_FILES.test(body))
    return { ...base, notApplicable: 'the test makes its files at run time (symlinks, permissions, temporary folders); the checkout holds none of them' };
  return { ...base, notApplicable: DIRECTORY };
}

/**
 * Each generate call of a directory source: `GenerateManifests(ctx, "<dir>", ...)` on a folder, or a request whose
 * source path (`src := ApplicationSource{Path: ...}`, or inline) is read under the `newService` root, with the
 * manifests it counts (Lists split, as GenerateManifest returns them).
 */
function directoryCases(test: string, body: string): RepoServerCase[] {
  const calls = [...body.matchAll(/(\w+), err :?= (?:service\.GenerateManifest\(t\.Context\(\), |GenerateManifests\(t\.Context\(\), "([^"]+)")/g)];
  return calls.map((call, i): RepoServerCase => {
    const before = body.slice(0, call.index);
    const after = body.slice(call.index, calls[i + 1]?.index ?? body.length);
    const name = `${test}${calls.length > 1 ? `#${i + 1}` : ''}`;
    const expect = expectations(after, `${call[1]}\\.Manifests`);
    const recurse = /Directory: &v1alpha1\.ApplicationSourceDirectory\{Recurse: true\}/.test(call[2] ? '' : before + after.slice(0, 400));
    if (call[2]) return { test: name, kind: 'generate', appPath: call[2], repoRoot: call[2], directory: { recurse: false }, expect };
    const service = [...before.matchAll(/newService\(t, "([^"]+)"\)/g)].at(-1)?.[1];
    const path = [...(before + after.slice(0, 400)).matchAll(/ApplicationSource\{Path: "([^"]*)"/g)].at(-1)?.[1];
    if (!service || path === undefined)
      return { test: name, kind: 'generate', appPath: '', repoRoot: '.', directory: {}, expect, notApplicable: 'its source is not a literal path' };
    return { test: name, kind: 'generate', appPath: join(service, path), repoRoot: service, directory: { recurse }, expect };
  });
}

/** Every case of the repo-server's tests: walk and find calls, the tool choice, and generate-manifests requests. */
export function repoServerCases(goSource: string, dir?: string): RepoServerCase[] {
  const out: RepoServerCase[] = [];
  for (const unit of testUnits(goSource)) {
    if (unit.name.endsWith('#table')) {
      const rows = tableRows(unit.body);
      const test = unit.name.replace('#table', '');
      const run = unit.body.slice(unit.body.search(/t\.Run\((?:tc|tt)\.name/));
      const cases = rows.length ? walkCases(test, run, rows) : [];
      if (cases.length) out.push(...cases);
      else out.push(...generateCases(test, unit.body, dir));
      continue;
    }
    const walks = walkCases(unit.name, unit.body);
    const tools = toolCases(unit.name, unit.body);
    const parameters = parameterCases(unit.name, unit.body).map((p): RepoServerCase => ({
      test: p.test,
      kind: 'parameters',
      appPath: join('testdata/app-parameters', p.folder),
      repoRoot: '.',
      directory: {},
      expect: p.expect,
      parameters: p,
    }));
    if (walks.length || tools.length || parameters.length) {
      out.push(...walks, ...tools, ...parameters);
      continue;
    }
    out.push(...generateCases(unit.name, unit.body, dir));
  }
  return out;
}

/** Judges one case through the gate's reading of a source; `dir` is reposerver/repository of the checkout. */
function judge(dir: string, c: RepoServerCase): { ok: boolean; why: string; refusedSaying?: string } {
  const appPath = join(dir, c.appPath);
  if (!existsSync(appPath)) return { ok: false, why: `${c.appPath} is not in the checkout` };
  if (c.kind === 'tool') {
    const paths = walkPaths(appPath, '');
    const tool = discoveredTool(paths, '');
    return { ok: tool === c.expect.tool, why: `Argo CD picks ${c.expect.tool}, the gate ${tool}` };
  }
  if (c.parameters) return judgeParameterCase(dir, c.parameters);
  const read = readDirectorySource(join(dir, c.repoRoot), appPath, c.directory, c.maxCombinedBytes ?? 0);
  const refused = read.refusals.length > 0;
  // The walk returns files; findManifests documents (a List once); a generate request the objects, Lists split.
  const objects = c.kind === 'walk' ? read.files.length - read.skipped.length : c.kind === 'find' ? read.documents : read.objects.length;
  const names = read.objects.map((o) => o.name).sort();
  const problems: string[] = [];
  if (c.expect.error !== undefined && c.expect.error !== refused)
    problems.push(
      c.expect.error ? 'Argo CD fails the source; the gate accepts it' : `Argo CD accepts the source; the gate refuses: ${read.refusals[0]?.message}`,
    );
  // A refused source applies nothing, in Argo CD and in the gate alike.
  if (c.expect.count !== undefined && !refused && objects !== c.expect.count) problems.push(`Argo CD finds ${c.expect.count}, the gate ${objects}`);
  if (c.expect.names && JSON.stringify([...c.expect.names].sort()) !== JSON.stringify(names))
    problems.push(`names: Argo CD ${c.expect.names.join(', ') || '(none)'}, the gate ${names.join(', ') || '(none)'}`);
  const saying = c.expect.error === false && read.refusals.find((r) => /Argo CD (?:skips|would skip)/.test(r.message));
  return {
    ok: problems.length === 0,
    why: problems.join('; '),
    ...(saying ? { refusedSaying: `the gate refuses what Argo CD tolerates, and says so: ${saying.message}` } : {}),
  };
}

export interface RepoServerAgreement extends Agreement {
  notApplicable: { test: string; why: string }[];
  /** Cases where Argo CD renders what the gate refuses on purpose (source parameter files, dangling symlinks): listed, never counted as agreeing. */
  refusedByDesign: { test: string; why: string }[];
}

/** Agreement over the applicable cases, grouped by the function the test calls; refusals by design are listed apart. */
export async function repoServerAgreement(dir: string, cases: readonly RepoServerCase[], env: NodeJS.ProcessEnv = process.env): Promise<RepoServerAgreement> {
  const a: RepoServerAgreement = { ...emptyAgreement(), notApplicable: [], refusedByDesign: [] };
  const helm = cases.filter((c) => c.helm && !c.notApplicable);
  const render = helm.length ? await isolatedRenderEnv(env) : undefined;
  try {
    for (const c of helm) {
      const { ok, why, refusedSaying } = await judgeHelmCase(dir, c.helm!, render!.env);
      if (!ok && refusedSaying) a.refusedByDesign.push({ test: c.test, why: refusedSaying });
      else count(a, { group: c.kind, ok, file: c.test, why });
    }
  } finally {
    render?.dispose();
  }
  for (const c of cases) {
    if (c.helm && !c.notApplicable) continue;
    if (c.notApplicable) {
      a.notApplicable.push({ test: c.test, why: c.notApplicable });
      continue;
    }
    if (c.byDesign) {
      a.refusedByDesign.push({ test: c.test, why: c.byDesign });
      continue;
    }
    const { ok, why, refusedSaying } = judge(dir, c);
    // Where Argo CD tolerates what the gate refuses, a refusal that says what Argo CD would do is the gate's rule, by design.
    if (!ok && refusedSaying) a.refusedByDesign.push({ test: c.test, why: refusedSaying });
    else count(a, { group: c.kind, ok, file: c.test, why });
  }
  return a;
}
