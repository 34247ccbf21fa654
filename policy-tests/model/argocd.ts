/**
 * What Argo CD will do with this repository, computed from the Application
 * objects: which sources they use and exactly which files each one applies.
 */
import { argoGlobMatch } from './glob.ts';
import { perRepo } from './per-repo.ts';
import type { Resource } from './manifest.ts';
import type { PathSegment } from './positions.ts';
import { isManifestPath, type Repo } from './repo.ts';

/** The root app-of-apps; bootstrapped once with kubectl, then it manages itself. */
export const ROOT_APP_FILE = 'clusters/home/root.yaml';
export const APPLICATION_FILE = 'application.yaml';

export interface AppSource {
  /** YAML path of this source inside the Application, for findings. */
  at: PathSegment[];
  repoURL: string;
  targetRevision: string;
  path?: string;
  chart?: string;
  ref?: string;
  directory?: { recurse?: boolean; include?: string; exclude?: string };
  helm?: { valueFiles?: string[] };
}

export interface ArgoApp {
  resource: Resource;
  name: string;
  project: string;
  destinationNamespace?: string;
  sources: AppSource[];
  automated?: { prune?: boolean; selfHeal?: boolean };
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function toSource(raw: unknown, at: PathSegment[]): AppSource {
  const s = obj(raw);
  const directory = s.directory === undefined ? undefined : obj(s.directory);
  const helm = s.helm === undefined ? undefined : obj(s.helm);
  return {
    at,
    repoURL: str(s.repoURL) ?? '',
    targetRevision: str(s.targetRevision) ?? '',
    path: str(s.path),
    chart: str(s.chart),
    ref: str(s.ref),
    directory: directory && { recurse: directory.recurse === true, include: str(directory.include), exclude: str(directory.exclude) },
    helm: helm && { valueFiles: Array.isArray(helm.valueFiles) ? helm.valueFiles.filter((v): v is string => typeof v === 'string') : undefined },
  };
}

export function toArgoApp(resource: Resource): ArgoApp {
  const spec = obj(resource.object.spec);
  const sources = Array.isArray(spec.sources)
    ? spec.sources.map((s, i) => toSource(s, ['spec', 'sources', i]))
    : spec.source !== undefined
      ? [toSource(spec.source, ['spec', 'source'])]
      : [];
  const automated = obj(obj(spec.syncPolicy).automated);
  return {
    resource,
    name: resource.name,
    project: str(spec.project) ?? '',
    destinationNamespace: str(obj(spec.destination).namespace),
    sources,
    automated: obj(spec.syncPolicy).automated === undefined ? undefined : { prune: automated.prune === true, selfHeal: automated.selfHeal === true },
  };
}

export function isApplication(r: Resource): boolean {
  return r.apiVersion === 'argoproj.io/v1alpha1' && r.kind === 'Application';
}

/** Every Application of the repository, read once per repository. */
export const applications = perRepo((repo: Repo): ArgoApp[] => repo.resources.filter(isApplication).map(toArgoApp));

export function normalizeRepoURL(url: string): string {
  return url.replace(/\.git$/, '').replace(/\/+$/, '').toLowerCase();
}

export function isThisRepo(repo: Repo, source: AppSource): boolean {
  return repo.facts !== undefined && normalizeRepoURL(source.repoURL) === normalizeRepoURL(repo.facts.repoURL);
}

/** A source that makes Argo CD apply plain manifests from a folder of this repo. */
export function isDirectorySource(repo: Repo, source: AppSource): boolean {
  return isThisRepo(repo, source) && source.path !== undefined && source.chart === undefined;
}

export function normalizeSourcePath(path: string): string {
  return path.replace(/^\.\/?/, '').replace(/\/+$/, '');
}

/** The files Argo CD would apply for one directory source (its include/exclude/recurse rules). */
export function filesOfSource(repo: Repo, source: AppSource): string[] {
  const base = normalizeSourcePath(source.path ?? '');
  const prefix = base === '' ? '' : `${base}/`;
  const out: string[] = [];
  for (const file of repo.files) {
    if (!file.startsWith(prefix) || !isManifestPath(file)) continue;
    const rel = file.slice(prefix.length);
    if (!source.directory?.recurse && rel.includes('/')) continue;
    if (source.directory?.exclude && argoGlobMatch(source.directory.exclude, rel)) continue;
    if (source.directory?.include && !argoGlobMatch(source.directory.include, rel)) continue;
    out.push(file);
  }
  return out.sort();
}

export function filesOfApp(repo: Repo, app: ArgoApp): string[] {
  return [...new Set(app.sources.filter((s) => isDirectorySource(repo, s)).flatMap((s) => filesOfSource(repo, s)))].sort();
}

/** For every file, the Applications that apply it (computed once per repository). */
export const ownersByFile = perRepo((repo: Repo): Map<string, ArgoApp[]> => {
  const owners = new Map<string, ArgoApp[]>();
  for (const app of applications(repo)) {
    for (const file of filesOfApp(repo, app)) owners.set(file, [...(owners.get(file) ?? []), app]);
  }
  return owners;
});
