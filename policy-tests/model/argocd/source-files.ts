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

/** The revision variables: a commit only the sync knows. */
const REVISION_VARIABLES = new Set(['ARGOCD_APP_REVISION', 'ARGOCD_APP_REVISION_SHORT', 'ARGOCD_APP_REVISION_SHORT_8']);

/** Go's isShellSpecialVar: a one-character name os.Expand reads after `$`. */
const SPECIAL = /^[*#$@!?\-0-9]$/;

/**
 * Go's os.Expand, exactly: `${NAME}`, `$NAME` (letters, digits, `_`), a one-character special name (`$$` is
 * `$`, `$1` a digit), `${}` and an unclosed `${` eaten, a `$` before anything else or at the end kept.
 */
export function goExpand(s: string, mapping: (name: string) => string): string {
  let out = '';
  let i = 0;
  for (let j = 0; j < s.length; j++) {
    if (s[j] !== '$' || j + 1 >= s.length) continue;
    out += s.slice(i, j);
    const rest = s.slice(j + 1);
    let name = '';
    let w = 0;
    if (rest[0] === '{') {
      if (rest.length > 2 && SPECIAL.test(rest[1]!) && rest[2] === '}') [name, w] = [rest[1]!, 3];
      else {
        const close = rest.indexOf('}', 1);
        if (close === 1) w = 2;
        else if (close === -1) w = 1;
        else [name, w] = [rest.slice(1, close), close + 1];
      }
    } else if (SPECIAL.test(rest[0]!)) [name, w] = [rest[0]!, 1];
    else {
      while (w < rest.length && /[A-Za-z0-9_]/.test(rest[w]!)) w++;
      name = rest.slice(0, w);
    }
    // Invalid syntax is eaten; a `$` followed by no name is kept.
    if (name) out += mapping(name);
    else if (w === 0) out += '$';
    j += w;
    i = j + 1;
  }
  return i === 0 ? s : out + s.slice(i);
}

/**
 * Argo CD's build environment substituted as its `Env.Envsubst` does (reposerver newEnv; os.Expand with `$$` for a
 * `$` and an unknown name empty). A revision variable is known only at sync: undefined, so what holds it is not
 * rendered.
 */
export function argoEnvsubst(text: string, app: ArgoApp, source: AppSource): string | undefined {
  const vars: Record<string, string> = {
    ARGOCD_APP_NAME: app.name,
    ARGOCD_APP_NAMESPACE: app.destinationNamespace ?? '',
    ARGOCD_APP_PROJECT_NAME: app.project,
    ARGOCD_APP_SOURCE_REPO_URL: source.repoURL,
    ARGOCD_APP_SOURCE_PATH: source.path ?? '',
    ARGOCD_APP_SOURCE_TARGET_REVISION: source.targetRevision,
  };
  let unknowable = false;
  const out = goExpand(text, (name) => {
    if (name === '$') return '$';
    if (REVISION_VARIABLES.has(name)) unknowable = true;
    return vars[name] ?? '';
  });
  return unknowable ? undefined : out;
}

/** Each of a source's `valueFiles`, in its order, resolved the way Argo CD resolves it (getResolvedValueFiles). */
export function valueFilesOf(repo: Repo, app: ArgoApp, source: AppSource): ValueFile[] {
  return (source.helm?.valueFiles ?? []).map((raw) => sourceFile(repo, { app, source }, raw, 'value file'));
}

/**
 * A file a Helm source names (a value file, a file parameter's path), resolved the way Argo CD resolves it
 * (getReferencedSource and getResolvedRefValueFile for `$ref/...`, else the build environment substituted and
 * ResolveValueFilePathOrUrl: an absolute path from the repository's root, any other from the chart's folder).
 */
export function sourceFile(repo: Repo, { app, source }: { app: ArgoApp; source: AppSource }, raw: string, kind: string): ValueFile {
  // A `$ref/...` entry names a source's files first; only another entry is substituted.
  const ref = /^\$([^/]+)\/(.*)$/.exec(raw);
  if (ref) {
    const what = `${kind} ${raw}`;
    const lender = app.sources.find((s) => s.ref === ref[1]);
    if (!lender) return { entry: raw, error: `${what}: no source of ${app.name} has ref: ${ref[1]}` };
    if (!isThisRepo(repo, lender)) return { entry: raw, notRendered: `${what} comes from ${lender.repoURL}, another repository; the gate reads only this one` };
    return { entry: raw, ...confinedPath(ref[2]!, what) };
  }
  const entry = argoEnvsubst(raw, app, source);
  if (entry === undefined) return { entry: raw, notRendered: `${kind} ${raw} names the revision Argo CD syncs, known only at sync time` };
  const what = `${kind} ${entry}`;
  if (/^[a-z]+:\/\//i.test(entry)) return { entry, notRendered: `${what} is a URL; the gate renders offline` };
  if (source.chart !== undefined) return { entry, notRendered: `${what} lies inside the chart archive; the gate reads values only from this repository` };
  // An absolute path is the repository's (ResolveValueFilePathOrUrl joins it with the root); any other the chart's.
  if (entry.startsWith('/')) return { entry, ...confinedPath(entry.slice(1), `${kind}, from the repository root,`) };
  const base = normalizeSourcePath(source.path ?? '');
  return { entry, ...confinedPath(base === '' ? entry : `${base}/${entry}`, what) };
}
