/**
 * The files of this repository an Application source names, resolved as
 * Argo CD resolves them: paths confined to the repository, and a Helm
 * source's `valueFiles` (`$ref/...` from the source that lends that ref,
 * anything else relative to the chart's path). The one route: the renderer
 * reads value files from here, and so does every check that reads values.
 */
import type { Repo } from '../repository/repo.ts';
import { isThisRepo, normalizeSourcePath, type AppSource, type ArgoApp } from './argocd.ts';

/** A path inside the repository, `.` and `..` resolved; or why Argo CD refuses it. */
export function confinedPath(path: string, what: string): { rel: string } | { refused: string } {
  if (path.startsWith('/')) return { refused: `${what} ${path} is an absolute path; Argo CD reads only inside the repository` };
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.length === 0) return { refused: `${what} ${path} leaves the repository; Argo CD refuses it` };
    else parts.pop();
  }
  return { rel: parts.join('/') };
}

export type ValueFile =
  /** A file of this repository, at `rel`. */
  | { entry: string; rel: string }
  /** Argo CD reads it, the gate cannot: another repository, a URL, a file inside the chart archive. */
  | { entry: string; notRendered: string }
  /** Argo CD refuses it: the path leaves the repository. */
  | { entry: string; refused: string }
  /** Argo CD fails the sync: no source of the Application lends the ref. */
  | { entry: string; error: string };

/** Each of a source's `valueFiles`, in its order, resolved the way Argo CD resolves it. */
export function valueFilesOf(repo: Repo, app: ArgoApp, source: AppSource): ValueFile[] {
  return (source.helm?.valueFiles ?? []).map((entry): ValueFile => {
    const what = `value file ${entry}`;
    const ref = /^\$([^/]+)\/(.*)$/.exec(entry);
    if (ref) {
      const lender = app.sources.find((s) => s.ref === ref[1]);
      if (!lender) return { entry, error: `${what}: no source of ${app.name} has ref: ${ref[1]}` };
      if (!isThisRepo(repo, lender)) return { entry, notRendered: `${what} comes from ${lender.repoURL}, another repository; the gate reads only this one` };
      return { entry, ...confinedPath(ref[2]!, what) };
    }
    if (/^[a-z]+:\/\//i.test(entry)) return { entry, notRendered: `${what} is a URL; the gate renders offline` };
    if (source.chart !== undefined) return { entry, notRendered: `${what} lies inside the chart archive; the gate reads values only from this repository` };
    return { entry, ...confinedPath(`${normalizeSourcePath(source.path ?? '')}/${entry}`, what) };
  });
}
