/**
 * The dependencies a chart at a path of the repository declares, read from the checkout's files alone: the ones
 * `helm dependency build` archives from a folder (`file://`), and the ones it fetches from a chart repository, each
 * at the version the build downloads (Helm 4.2 pkg/downloader/manager.go `Build`: every dependency of Chart.lock at
 * its recorded version; with no lock, `Update`, which resolves Chart.yaml's constraint against the repository's index
 * as it stands that day, so only an exact version names one archive). What names one archive is pinned in
 * charts.lock.json like an Application's chart (render/charts.ts), and `charts:pull` fetches it; the render hands it
 * to the real Helm's build (render/helm-dependencies.ts). The checks that read a chart's values find them under the
 * dependency's key of a wrapper chart's (chart-values.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutTree, parseDataFile, type DataFile, type Repo } from '../repository/repo.ts';
import { isThisRepo, normalizeSourcePath, sourceType, type AppSource } from '../argocd/argocd.ts';

export interface DeclaredDependency {
  name: string;
  /** As written: `file://…`, a chart repository's URL, `oci://…`, `@name` or `alias:name`, or empty (vendored). */
  repository: string;
  /** A version or a constraint, as written; empty where none is. */
  version: string;
  /** The key its values sit under in the chart's (Helm's `alias`, else its name). */
  key: string;
  /** Where it is written: the file (from the repository's root) and its index in that file's `dependencies`. */
  file: string;
  index: number;
}

/** A dependency the build fetches: pinned to one archive (a chart reference as charts.ts keeps them), or why it cannot be. */
export type FetchedDependency = DeclaredDependency & ({ ref: { repoURL: string; chart: string; version: string }; fromLock: boolean } | { unpinned: string });

/**
 * The folder of this repository a source renders as a Helm chart (a wrapper chart among them), or undefined for any
 * other source and for a path out of the repository (the render refuses it).
 */
export function chartDirOf(repo: Repo, source: AppSource): string | undefined {
  if (source.path === undefined || !isThisRepo(repo, source) || sourceType(repo, source) !== 'helm-path') return undefined;
  const dir = normalizeSourcePath(source.path);
  return dir.split('/').includes('..') ? undefined : dir;
}

/**
 * A file inside a chart's folder (Chart.yaml, Chart.lock, values), which the repository's loader leaves to Helm (no
 * data file of its own), read by the one parse every data file takes (remembered by its text).
 */
export function chartFile(repo: Repo, file: string): DataFile | undefined {
  const abs = join(repo.root, file);
  return existsSync(abs) ? parseDataFile(file, readFileSync(abs, 'utf8')) : undefined;
}

function dependencyList(repo: Repo, file: string): DeclaredDependency[] {
  // One that does not parse declares nothing here: Helm says what is wrong with it when it templates.
  const read = chartFile(repo, file);
  const deps = read && read.errors.length === 0 ? (read.data as { dependencies?: unknown } | undefined)?.dependencies : undefined;
  if (!Array.isArray(deps)) return [];
  const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
  return deps.flatMap((d: { name?: unknown; repository?: unknown; version?: unknown; alias?: unknown }, index) =>
    typeof d?.name === 'string' ? [{ name: d.name, repository: text(d.repository), version: text(d.version), key: text(d.alias) || d.name, file, index }] : [],
  );
}

/** The dependencies a chart's Chart.yaml (or an apiVersion v1 chart's requirements.yaml) declares. */
export function declaredDependencies(repo: Repo, dir: string): DeclaredDependency[] {
  return [...dependencyList(repo, join(dir, 'Chart.yaml')), ...dependencyList(repo, join(dir, 'requirements.yaml'))];
}

/**
 * What the chart's lock records (Chart.lock, or an apiVersion v1 chart's requirements.lock), when it has one, each
 * entry with the key its values sit under. A lock records no alias, but Helm's resolver writes one entry per
 * dependency of the file it pairs with, in its order, and the build refuses a lock out of step with it: the entry at
 * an index is that dependency (two aliases of one chart, say), its key the alias there.
 */
function lockedDependencies(repo: Repo, dir: string): DeclaredDependency[] | undefined {
  const pairs = [
    ['Chart.lock', 'Chart.yaml'],
    ['requirements.lock', 'requirements.yaml'],
  ] as const;
  for (const [lock, declaring] of pairs) {
    const file = join(dir, lock);
    if (!existsSync(join(repo.root, file))) continue;
    const declared = dependencyList(repo, join(dir, declaring));
    return dependencyList(repo, file).map((d, i) => {
      const same = declared[i]?.name === d.name ? declared[i] : declared.find((x) => x.name === d.name);
      return { ...d, key: same?.key ?? d.key };
    });
  }
  return undefined;
}

/**
 * Whether the checkout's `charts/` holds this dependency as `helm dependency build` leaves it (`<name>/` or
 * `<name>-<version>.tgz`): where it holds every one, `helm template` finds them and Argo CD builds nothing.
 */
function vendored(files: readonly string[], dir: string, name: string): boolean {
  const charts = `${dir ? `${dir}/` : ''}charts/`;
  return files.some(
    (f) => f === `${charts}${name}/Chart.yaml` || (f.startsWith(`${charts}${name}-`) && f.endsWith('.tgz') && !f.slice(charts.length).includes('/')),
  );
}

/**
 * Whether Argo CD's checkout of the chart at `dir` lacks a dependency in `charts/`, by git's list of files (what is
 * on disk and ignored by git, a local build's leftovers, is no part of it): Helm's template then fails, and the repo-server
 * builds the dependencies.
 */
export function buildsDependencies(repo: Repo, dir: string): boolean {
  return lacksOne(repo, dir, declaredDependencies(repo, dir));
}

function lacksOne(repo: Repo, dir: string, declared: readonly DeclaredDependency[]): boolean {
  const files = checkoutTree(repo);
  return declared.some((d) => !vendored(files, dir, d.name));
}

/** A version that Helm's resolver can match in one way only: no range, no wildcard, no build metadata it would ignore. */
const EXACT_VERSION = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

const isChartRepository = (repository: string) => /^https?:\/\//i.test(repository);

/**
 * The dependencies the repo-server's `helm dependency build` fetches for the chart at `dir`, none where the
 * checkout's `charts/` already holds every declared one (Argo CD builds only on Helm's missing-dependency error).
 */
export function fetchedDependencies(repo: Repo, dir: string): FetchedDependency[] {
  const declared = declaredDependencies(repo, dir);
  if (!lacksOne(repo, dir, declared)) return [];
  const locked = lockedDependencies(repo, dir);
  const fetched = (locked ?? declared).filter((d) => d.repository !== '' && !d.repository.startsWith('file://'));
  return fetched.map((d): FetchedDependency => {
    if (/^oci:\/\//i.test(d.repository))
      return { ...d, unpinned: `an OCI registry (${d.repository}), which the gate cannot stand in for offline when Helm's build asks it` };
    if (!isChartRepository(d.repository))
      return { ...d, unpinned: `a repository named in Argo CD's settings (${d.repository}), which this repository does not hold` };
    if (!locked && !EXACT_VERSION.test(d.version))
      return {
        ...d,
        unpinned: `the range ${d.version || '(none)'} with no Chart.lock, which Argo CD's build resolves against the repository's index on the day it renders: commit the Chart.lock \`helm dependency update\` writes`,
      };
    return { ...d, ref: { repoURL: d.repository, chart: d.name, version: d.version }, fromLock: locked !== undefined };
  });
}
