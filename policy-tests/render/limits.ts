/**
 * What a render may cost, and where it may read. A pull request controls the
 * charts, values and kustomizations the gate renders, so every tool run has
 * a wall-clock limit (then SIGKILL: Helm ignores SIGTERM), every input a size
 * cap, and every path must stay inside the repository (or the chart), as Argo
 * CD confines them. A breach is one line that names the limit and how to
 * raise it.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { confinedPath } from '../model/argocd/source-files.ts';

/** A path or a resource that the render refuses: a finding on the source, never a render. */
export class RenderRefused extends Error {}

/** An archive that unpacks past its limit (the archive limit times 8), in one line. */
export function unpackedTooLarge(archive: string, limit: number): RenderRefused {
  const said = limit >= 1024 * 1024 ? `${Math.round(limit / 1024 / 1024)} MiB` : `${Math.round(limit / 1024)} KiB`;
  return new RenderRefused(`chart archive ${archive} unpacks to more than ${said}, the limit (HOMELAB_RENDER_MAX_CHART_MIB, times 8)`);
}

const MIB = 1024 * 1024;

export interface RenderLimits {
  /** Wall-clock limit of one helm or kustomize run, in ms (HOMELAB_RENDER_TIMEOUT, seconds). */
  timeoutMs: number;
  /** The largest output a tool may print (HOMELAB_RENDER_MAX_OUTPUT_MIB). */
  outputBytes: number;
  /** The largest values file or file parameter read (HOMELAB_RENDER_MAX_VALUES_MIB). */
  valuesBytes: number;
  /** The largest chart archive, and the most it may unpack to (HOMELAB_RENDER_MAX_CHART_MIB, times 8 unpacked). */
  archiveBytes: number;
  unpackedBytes: number;
  /** The address space a jsonnet evaluation may take (HOMELAB_RENDER_MAX_MEMORY_MIB): it has no memory bound of its own. */
  memoryBytes: number;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new RenderRefused(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** The limits in force: the defaults, or the environment's. */
export function renderLimits(env: NodeJS.ProcessEnv = process.env): RenderLimits {
  const chart = positive(env, 'HOMELAB_RENDER_MAX_CHART_MIB', 16) * MIB;
  return {
    timeoutMs: positive(env, 'HOMELAB_RENDER_TIMEOUT', 120) * 1000,
    outputBytes: positive(env, 'HOMELAB_RENDER_MAX_OUTPUT_MIB', 64) * MIB,
    valuesBytes: positive(env, 'HOMELAB_RENDER_MAX_VALUES_MIB', 4) * MIB,
    archiveBytes: chart,
    unpackedBytes: chart * 8,
    memoryBytes: positive(env, 'HOMELAB_RENDER_MAX_MEMORY_MIB', 2048) * MIB,
  };
}

/** `a` lies inside `b` (or is it). */
export function inside(b: string, a: string): boolean {
  const rel = relative(b, a);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..');
}

/**
 * A repository path as a source names it, refused when it leaves the
 * repository (`..` past the root, or absolute), as Argo CD refuses it.
 */
export function confinedRel(path: string, what: string): string {
  const confined = confinedPath(path, what);
  if ('refused' in confined) throw new RenderRefused(confined.refused);
  return confined.rel;
}

/** Resolves real paths; a render run keeps one (`realPaths`), so each folder is resolved once. */
export type RealPathOf = (abs: string) => string | undefined;

/**
 * Real paths for one render run, each folder resolved once: a file that is not
 * itself a symlink lies at its folder's real path under its own name. A
 * kustomization's key files then cost one lstat each, where realpath(3) walked
 * every component of every path (a tenth of a mutation test's time). Undefined:
 * missing, or a symlink that dangles or loops.
 */
export function realPaths(): RealPathOf {
  const folders = new Map<string, string>();
  const known = new Map<string, string | undefined>();
  const resolve = (abs: string): string | undefined => {
    const entry = lstatSync(abs, { throwIfNoEntry: false });
    if (!entry) return undefined;
    try {
      if (entry.isSymbolicLink()) return realpathSync.native(abs);
      const folder = dirname(abs);
      let real = folders.get(folder);
      if (real === undefined) folders.set(folder, (real = realpathSync.native(folder)));
      return join(real, basename(abs));
    } catch {
      return undefined;
    }
  };
  return (abs) => {
    if (!known.has(abs)) known.set(abs, resolve(abs));
    return known.get(abs);
  };
}

/** The real path of `abs` must lie inside `within` (real too): a symlink that leaves it is refused. Missing: the caller says so in its own words. */
export function assertRealInside(abs: string, within: string, what: string, realPathOf: RealPathOf = realPaths()): void {
  const real = realPathOf(abs);
  if (real === undefined) return;
  if (!inside(realPathOf(within) ?? within, real))
    throw new RenderRefused(`${what} resolves outside ${relative(process.cwd(), within) || within} (a symlink to ${real}); Argo CD refuses it`);
}

/** Every symlink under a folder (a local chart, a kustomization) must resolve inside `within`. */
export function assertNoEscapingLinks(dir: string, within: string, what: string): void {
  const root = realpathSync.native(within);
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const entry = lstatSync(path);
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync.native(path);
        } catch {
          throw new RenderRefused(`${what}: ${relative(within, path)} is a dangling or looping symlink`);
        }
        if (!inside(root, real))
          throw new RenderRefused(
            `${what}: ${relative(within, path)} is a symlink out of ${relative(process.cwd(), within) || within} (to ${real}); Argo CD refuses it`,
          );
        continue;
      }
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dir);
}

/** A file a render reads (values, file parameters): at most `limit` bytes. */
export function assertSize(abs: string, limit: number, what: string, knob: string): void {
  const size = statSync(abs).size;
  if (size > limit) throw new RenderRefused(`${what} is ${(size / MIB).toFixed(1)} MiB, over the ${(limit / MIB).toFixed(0)} MiB limit (${knob})`);
}

/** A chart name or version that names a cache file: no path tricks. */
export function assertChartRef(chart: string, version: string): void {
  const segments = chart.split('/');
  if (chart === '' || segments.some((s) => s === '' || s === '.' || s === '..' || !/^[A-Za-z0-9._-]+$/.test(s)))
    throw new RenderRefused(`chart name "${chart}" is not a chart name (letters, digits, '.', '_', '-', and '/' between OCI path segments)`);
  // A version may be a range Argo CD resolves (^19.0.0, >=1 <2); it only must not carry a path into the file name.
  // oxlint-disable-next-line no-control-regex -- a control character in a version is refused, as a path separator is
  if (version === '' || /[/\\\u0000-\u001f]/.test(version)) throw new RenderRefused(`chart version "${version}" is not a version`);
}
