/**
 * A directory source's jsonnet, evaluated as Argo CD's repo-server evaluates it (model/argocd/jsonnet.ts says how):
 * each `.jsonnet` file the walk reads, in walk order, with the source's folder and its `libs` as library paths, its
 * external variables and top-level arguments with the build environment substituted, and what it yields applied as
 * Argo CD applies it (an array of objects, a null skipped, or one object). The YAML files beside them stay with the
 * loader, as every directory source's do.
 *
 * The gate reads nothing outside the repository: every file an evaluation can import is found before it runs (jsonnet
 * imports only string literals), the way go-jsonnet's importer finds it, and one that resolves outside the checkout,
 * or through a symlink out of it, refuses the source. The import's files are the render's key, so an unchanged
 * source costs nothing. Jsonnet is a function of its files: one evaluation answers the determinism check.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { filesOfSource, type AppSource, type ArgoApp } from '../model/argocd/argocd.ts';
import {
  jsonnetClosure,
  jsonnetImports,
  jsonnetLibraryPaths,
  jsonnetOptions,
  jsonnetPlaces,
  type JsonnetPlaces,
  type JsonnetVar,
} from '../model/argocd/jsonnet.ts';
import type { SourceRender } from '../model/argocd/rendered.ts';
import { SKIP_RENDERING_MARKER } from '../model/argocd/repo-server.ts';
import { dig, isMap } from '../model/core/dig.ts';
import type { Positions, Resource } from '../model/core/manifest.ts';
import { byText } from '../model/core/findings.ts';
import { cachedRun } from './cache.ts';
import { hash, NotRendered, substitutedBuildEnv, type Context, type Invocation } from './context.ts';
import { assertRealInside, assertSize, RenderRefused } from './limits.ts';
import { toResources } from './output.ts';
import { jsonnetTool, RenderToolError, type JsonnetTool } from './tools.ts';

/** Argo CD's own error for output it cannot read as objects: it fails the source as it is. */
class JsonnetOutputError extends Error {}

/**
 * What one jsonnet file yields, as `findManifests` takes it: an array of objects (a null in it skipped, anything else
 * fails the array and then the file), one object, or null (nothing); as the `---` documents the render cache splits.
 */
export function jsonnetDocuments(stdout: string, file: string): string {
  const unmarshal = (why: string) => new JsonnetOutputError(`Failed to unmarshal generated json "${basename(file)}": ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch (err) {
    throw unmarshal((err as Error).message);
  }
  const items = Array.isArray(value) ? value : value === null ? [] : [value];
  const stray = items.find((v) => v !== null && !isMap(v));
  if (stray !== undefined) throw unmarshal(`${Array.isArray(value) ? 'an element is' : 'the result is'} ${JSON.stringify(stray).slice(0, 60)}, not an object`);
  return items
    .filter(isMap)
    .map((o) => `---\n# Source: ${file}\n${JSON.stringify(o)}\n`)
    .join('');
}

/** The library paths (jsonnetLibraryPaths), each one Argo CD accepts and inside the checkout: the source's folder first. */
function libraryPaths(ctx: Context, source: AppSource): string[] {
  const { jpaths, errors } = jsonnetLibraryPaths(source);
  // Argo CD's own error, which fails the source.
  if (errors.length) throw new Error(errors[0]);
  for (const lib of jpaths.slice(1)) assertInsideCheckout(ctx, lib, `jsonnet library path ${lib}`);
  return jpaths;
}

/** A file the evaluation reads must resolve inside the checkout: the gate reads nothing outside it. */
const assertInsideCheckout = (ctx: Context, rel: string, what: string) => assertRealInside(join(ctx.repo.root, rel), ctx.repo.root, what, ctx.realPathOf);

/**
 * Every file an evaluation of `file` can read (jsonnetClosure), each inside the checkout and within the size limit, by
 * repository path with its content's hash; and which of them are code. An import that would look outside the
 * repository refuses the source before jsonnet runs.
 */
function importClosure(ctx: Context, file: string, jpaths: readonly string[]): { hashes: Map<string, string>; code: string[] } {
  // Each file read once, within the size limit: the walk reads the code, the key hashes every file.
  const bytes = new Map<string, Buffer>();
  const read = (rel: string): Buffer => {
    let known = bytes.get(rel);
    if (!known) {
      assertSize(join(ctx.repo.root, rel), ctx.limits.valuesBytes, `jsonnet file ${rel}`, 'HOMELAB_RENDER_MAX_VALUES_MIB');
      bytes.set(rel, (known = readFileSync(join(ctx.repo.root, rel))));
    }
    return known;
  };
  const closure = jsonnetClosure(file, jpaths, {
    kind(rel) {
      const stat = statSync(join(ctx.repo.root, rel), { throwIfNoEntry: false });
      if (!stat) return undefined;
      assertInsideCheckout(ctx, rel, `jsonnet import ${rel}`);
      return stat.isFile() ? 'file' : 'other';
    },
    read: (rel) => read(rel).toString('utf8'),
  });
  if (closure.outside)
    throw new RenderRefused(
      `${closure.outside.where}, which go-jsonnet looks up outside the repository (${closure.outside.path}); the gate reads nothing there, so what it yields would reach the cluster unjudged`,
    );
  const hashes = new Map([...closure.code, ...closure.data].map((rel) => [rel, hash(read(rel))]));
  return { hashes, code: closure.code };
}

/**
 * Where a finding on a yielded object points: the string literal that spells its value, or the field that names its
 * key, where exactly one of the evaluation's code files holds exactly one (the values a library file sets point there);
 * else the file's first line. Read only when a finding asks.
 */
function jsonnetPositions(ctx: Context, file: string, code: readonly string[]): (object: Record<string, unknown>) => Positions {
  let places: { file: string; places: JsonnetPlaces }[] | undefined;
  const read = () => (places ??= code.map((f) => ({ file: f, places: jsonnetPlaces(readFileSync(join(ctx.repo.root, f), 'utf8')) })));
  const only = <T extends { line: number; col: number }>(hits: { file: string; at: T }[]) =>
    hits.length === 1 ? { file: hits[0]!.file, line: hits[0]!.at.line, col: hits[0]!.at.col } : undefined;
  return (object) => ({
    at(path) {
      const value = dig(object, path);
      const key = [...path].reverse().find((p): p is string => typeof p === 'string');
      const all = read();
      const literal =
        typeof value === 'string' && value.length >= 3
          ? only(all.flatMap((f) => f.places.strings.filter((s) => s.value === value).map((at) => ({ file: f.file, at }))))
          : undefined;
      const field = key === undefined ? undefined : only(all.flatMap((f) => f.places.fields.filter((x) => x.name === key).map((at) => ({ file: f.file, at }))));
      return literal ?? field ?? { file, line: 1, col: 1 };
    },
  });
}

/** Each variable with Argo CD's build environment substituted in its value; code that imports is not judged. */
function substituted(app: ArgoApp, source: AppSource, list: readonly JsonnetVar[], what: string): JsonnetVar[] {
  return list.map((v) => {
    const value = substitutedBuildEnv(v.value, { app, source }, `jsonnet ${what} ${v.name}`);
    if (v.name.includes('=')) throw new NotRendered(`jsonnet ${what} ${JSON.stringify(v.name)} has "=" in its name, which no jsonnet command line can pass`);
    const imported = v.code ? jsonnetImports(value)[0] : undefined;
    if (imported)
      throw new NotRendered(
        `jsonnet ${what} ${v.name} is code that ${imported.kind}s ${JSON.stringify(imported.path)}, which go-jsonnet looks up from the repo-server's working folder first: not judged`,
      );
    return { ...v, value };
  });
}

/** How every file of one source is evaluated: its library paths and its variables. */
interface JsonnetPlan {
  jpaths: readonly string[];
  vars: { ext: JsonnetVar[]; tla: JsonnetVar[] };
}

function invocation(ctx: Context, tool: JsonnetTool, file: string, { jpaths, vars }: JsonnetPlan): { inv: Invocation; code: string[] } {
  const flag = (kind: 'ext' | 'tla', v: JsonnetVar) => [`--${kind}-${v.code ? 'code' : 'str'}`, `${v.name}=${v.value}`];
  // Paths relative to the repository's root, its working folder: jsonnet's messages then name files as the repository does.
  const args = [...jpaths.flatMap((p) => ['-J', p || '.']), ...vars.ext.flatMap((v) => flag('ext', v)), ...vars.tla.flatMap((v) => flag('tla', v)), '--', file];
  const { hashes, code } = importClosure(ctx, file, jpaths);
  const closure = [...hashes].sort(([a], [b]) => byText(a, b));
  const key = { tool: tool.version, file, jpaths, vars, closure };
  // Jsonnet has no memory bound of its own: prlimit caps its address space, where the machine has it (util-linux).
  const bounded = tool.prlimit ? { bin: tool.prlimit, args: [`--as=${ctx.limits.memoryBytes}`, '--', tool.bin, ...args] } : { bin: tool.bin, args };
  return {
    inv: { ...bounded, tool: 'jsonnet', cwd: ctx.repo.root, key, sourceKey: key, pure: true, reshape: (stdout) => jsonnetDocuments(stdout, file) },
    code,
  };
}

/** The objects every jsonnet file of a directory source yields, in walk order, each pointing into its code. */
export async function renderJsonnet(ctx: Context, app: ArgoApp, source: AppSource, base: SourceRender): Promise<SourceRender> {
  let tool: JsonnetTool;
  try {
    tool = await jsonnetTool(ctx.env);
  } catch (err) {
    if (err instanceof RenderToolError) throw new NotRendered(err.message);
    throw err;
  }
  const options = jsonnetOptions(source);
  const jpaths = libraryPaths(ctx, source);
  const vars = { ext: substituted(app, source, options.extVars, 'external variable'), tla: substituted(app, source, options.tlas, 'top-level argument') };
  const resources: Resource[] = [];
  const madeOf: string[] = [];
  for (const file of filesOfSource(ctx.repo, source).filter((f) => f.endsWith('.jsonnet'))) {
    assertInsideCheckout(ctx, file, `jsonnet file ${file}`);
    // The walk passes over a file that holds Argo CD's skip marker, jsonnet or not (getPotentiallyValidManifestFile).
    if (readFileSync(join(ctx.repo.root, file), 'utf8').includes(SKIP_RENDERING_MARKER)) continue;
    const { inv, code } = invocation(ctx, tool, file, { jpaths, vars });
    let render;
    try {
      render = await cachedRun(ctx, inv);
    } catch (err) {
      if (err instanceof RenderRefused || err instanceof NotRendered || err instanceof JsonnetOutputError) throw err;
      if (/bad_alloc|out of memory|memory allocation error|Cannot allocate memory/i.test((err as Error).message))
        throw new RenderRefused(
          `jsonnet needed more than ${ctx.limits.memoryBytes / 1024 / 1024} MiB evaluating ${file}, the render memory limit (HOMELAB_RENDER_MAX_MEMORY_MIB); stopped`,
        );
      // Argo CD's words, jsonnet's trace on one line.
      throw new Error(`Failed to evaluate jsonnet "${basename(file)}": ${(err as Error).message.replace(/\s+/g, ' ')}`);
    }
    if (render.problem) throw new Error(render.problem);
    madeOf.push(`print ${render.key}`);
    const templateFor = jsonnetPositions(ctx, file, code);
    resources.push(...toResources({ app, source, label: base.label, docs: render.docs, values: [], firstIndex: resources.length, templateFor }));
  }
  return { ...base, status: 'rendered', resources, madeOf };
}
