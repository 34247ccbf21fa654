/**
 * The files of this repository an Application source names, resolved as
 * Argo CD resolves them: paths confined to the repository, and a Helm
 * source's `valueFiles` (`$ref/...` from the source that lends that ref,
 * anything else relative to the chart's path). The one route: the renderer
 * reads value files from here, and so does every check that reads values.
 */
import { checkoutPathSet, checkoutTree, type Repo } from '../repository/repo.ts';
import { foldersOf } from '../repository/checkout-paths.ts';
import { perObject } from '../core/per-object.ts';
import { doublestarMatch } from '../core/glob.ts';
import { scalarText } from '../core/text.ts';
import { argocdSettings } from '../controller/resource-filter.ts';
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
  /** Argo CD reads it, the gate cannot: another repository, a URL, a file inside the chart archive (`inChart`, its path there). */
  | { entry: string; notRendered: string; inChart?: string }
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

/**
 * Each of a source's `valueFiles`, in Helm's order, resolved the way Argo CD 3.5 resolves them (getResolvedValueFiles):
 * a glob (`*`, `?` or `[` in the path) stands for the checkout's files it matches, in doublestar's order; a file listed
 * outright keeps its own place (a glob passes over it), and a file comes once, where it first comes. A glob that
 * matches nothing fails the source unless `ignoreMissingValueFiles` is set, and one that matches a folder fails Helm.
 */
export function valueFilesOf(repo: Repo, app: ArgoApp, source: AppSource): ValueFile[] {
  const raws = source.helm?.valueFiles ?? [];
  const resolved = raws.map((raw) => sourceFile(repo, { app, source }, raw, 'value file'));
  const explicit = new Set(resolved.flatMap((v) => ('rel' in v && !isGlobPath(v.rel) ? [v.rel] : [])));
  const seen = new Set<string>();
  const out: ValueFile[] = [];
  resolved.forEach((v, i) => {
    const files = 'rel' in v && isGlobPath(v.rel) ? globbed(repo, source, raws[i]!, v).filter((g) => !('rel' in g) || !explicit.has(g.rel)) : [v];
    for (const f of files) {
      if ('rel' in f && seen.has(f.rel)) continue;
      if ('rel' in f) seen.add(f.rel);
      out.push(f);
    }
  });
  return out;
}

/**
 * Why Argo CD fails a source on this one value file of this repository, if it does: a glob that matches nothing or a
 * folder, or a file the checkout does not hold (each unless `ignoreMissingValueFiles`). Anything else about it
 * (another repository, a URL, a path out of the repository) is said where it is read.
 */
export function valueFileProblem(repo: Repo, app: ArgoApp, source: AppSource, raw: string): string | undefined {
  const v = sourceFile(repo, { app, source }, raw, 'value file');
  if (!('rel' in v)) return undefined;
  if (isGlobPath(v.rel)) return globbed(repo, source, raw, v).flatMap((g) => ('error' in g ? [g.error] : []))[0];
  return source.helm?.ignoreMissingValueFiles || checkoutPathSet(repo).has(v.rel) ? undefined : `value file ${v.rel} does not exist`;
}

/** What one glob entry stands for: the files it matches, in doublestar's order; nothing (ignoreMissingValueFiles); or Argo CD's failure. */
function globbed(repo: Repo, source: AppSource, raw: string, v: { entry: string; rel: string }): ValueFile[] {
  const { files, folder, error } = globMatches(checkoutTree(repo), v.rel);
  if (error !== undefined) return [{ entry: v.entry, error: `error expanding glob pattern ${JSON.stringify(raw)}: ${error}` }];
  if (folder !== undefined)
    return [{ entry: v.entry, error: `values file glob ${JSON.stringify(raw)} matches the folder ${folder}, which Helm cannot read as values` }];
  if (files.length > 0) return files.map((rel) => ({ entry: v.entry, rel }));
  return source.helm?.ignoreMissingValueFiles ? [] : [{ entry: v.entry, error: `values file glob ${JSON.stringify(raw)} matched no files` }];
}

/** The schemes Helm 4's getters fetch a values file from (getter.All, without plugins). */
const HELM_GETTER_SCHEMES = new Set(['http', 'https', 'oci']);

/** Go's url.Parse scheme (getScheme): a letter, then letters, digits, `+`, `-` or `.`, up to a `:`, lower-cased. */
function urlScheme(entry: string): string | undefined {
  return /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(entry)?.[1]!.toLowerCase();
}

/**
 * The URL schemes a value file may have (GetHelmSettings, isURLSchemeAllowed): argocd-cm's helm.valuesFileSchemes,
 * comma-separated, compared without case; http and https where argocd-cm does not set it, none where it is empty.
 */
function valuesFileSchemes(repo: Repo): string[] {
  const value = argocdSettings(repo.resources, repo)?.data['helm.valuesFileSchemes'];
  if (value === undefined) return ['https', 'http'];
  return scalarText(value)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** Argo CD's isGlobPath: doublestar's metacharacters. A brace alone is not one: `{a,b}.yaml` is a file's name. */
function isGlobPath(path: string): boolean {
  return /[*?[]/.test(path);
}

/** The checkout's files and the folders that hold them (in doublestar's order, so the first one matched is the one it meets first), once per checkout. */
const checkoutEntries = perObject((tree: readonly string[]) => ({ files: tree, folders: [...foldersOf(tree)].sort(doublestarOrder) }));

/**
 * What doublestar.FilepathGlob finds for a pattern in the checkout (core/glob.ts doublestarMatch): the files in
 * doublestar's order, each folder's own files (by name) before its subfolders' (folders in name order, depth
 * first); or the first folder it matches, which Argo CD then fails to read as a file (Helm's values, a git files
 * generator's file); or doublestar's error.
 */
export function globMatches(tree: readonly string[], pattern: string): { files: string[]; folder?: string; error?: string } {
  const { files, folders } = checkoutEntries(tree);
  try {
    const folder = folders.find((f) => doublestarMatch(pattern, f));
    if (folder !== undefined) return { files: [], folder };
    return { files: files.filter((f) => doublestarMatch(pattern, f)).sort(doublestarOrder) };
  } catch (err) {
    return { files: [], error: (err as Error).message };
  }
}

/** doublestar's walk order: by folder (component by component, a folder before what it holds), then by name within one. */
function doublestarOrder(a: string, b: string): number {
  const [da, db] = [a.split('/'), b.split('/')];
  const [na, nb] = [da.pop()!, db.pop()!];
  for (let i = 0; i < Math.min(da.length, db.length); i++) if (da[i] !== db[i]) return da[i]! < db[i]! ? -1 : 1;
  if (da.length !== db.length) return da.length - db.length;
  return na === nb ? 0 : na < nb ? -1 : 1;
}

/**
 * A file a Helm source names (a value file, a file parameter's path), resolved the way Argo CD resolves it
 * (getReferencedSource and getResolvedRefValueFile for `$ref/...`, else the build environment substituted and
 * ResolveValueFilePathOrUrl: an absolute path from the repository's root, any other from the chart's folder).
 */
export function sourceFile(repo: Repo, { app, source }: { app: ArgoApp; source: AppSource }, raw: string, kind: string): ValueFile {
  // A `$ref/...` entry names a source's files first (getReferencedSource), then the rest of it is substituted
  // (getResolvedRefValueFile); any other entry is substituted whole.
  const ref = /^\$([^/]+)\/(.*)$/.exec(raw);
  if (ref) {
    const what = `${kind} ${raw}`;
    const lender = app.sources.find((s) => s.ref === ref[1]);
    if (!lender) return { entry: raw, error: `${what}: no source of ${app.name} has ref: ${ref[1]}` };
    if (!isThisRepo(repo, lender)) return { entry: raw, notRendered: `${what} comes from ${lender.repoURL}, another repository; the gate reads only this one` };
    const rest = argoEnvsubst(ref[2]!, app, source);
    if (rest === undefined) return { entry: raw, notRendered: `${what} names the revision Argo CD syncs, known only at sync time` };
    // The rest is a path from the lender's root, however many slashes it starts with.
    return { entry: raw, ...confinedPath(rest.replace(/^\/+/, ''), what) };
  }
  const entry = argoEnvsubst(raw, app, source);
  if (entry === undefined) return { entry: raw, notRendered: `${kind} ${raw} names the revision Argo CD syncs, known only at sync time` };
  const what = `${kind} ${entry}`;
  const scheme = urlScheme(entry);
  if (scheme !== undefined) {
    if (!valuesFileSchemes(repo).includes(scheme))
      return { entry, error: `${what}: the URL scheme '${scheme}' is not allowed (argocd-cm's helm.valuesFileSchemes)` };
    // Helm fetches what one of its getters serves; any other URL it opens as a file, which is not there.
    if (!HELM_GETTER_SCHEMES.has(scheme))
      return { entry, error: `${what}: Helm has no getter for '${scheme}' and opens it as a file: no such file or directory` };
    return { entry, notRendered: `${what} is a URL; the gate renders offline` };
  }
  if (source.chart !== undefined) {
    // A chart's folder is its root there (the repo-server renders it with the extracted chart as both).
    const inChart = confinedPath(entry.replace(/^\/+/, ''), what);
    if ('rel' in inChart && inChart.rel === '') return { entry, error: rootRefusal(what) };
    if ('refused' in inChart) return { entry, error: `${what}: file ${JSON.stringify(entry)} resolved to outside repository root` };
    return { entry, notRendered: `${what} lies inside the chart archive; the gate reads values only from this repository`, inChart: inChart.rel };
  }
  // An absolute path is the repository's (ResolveValueFilePathOrUrl joins it with the root); any other the chart's.
  const base = normalizeSourcePath(source.path ?? '');
  const resolved = entry.startsWith('/')
    ? confinedPath(entry.replace(/^\/+/, ''), `${kind}, from the repository root,`)
    : confinedPath(base === '' ? entry : `${base}/${entry}`, what);
  return 'rel' in resolved && resolved.rel === '' ? { entry, error: rootRefusal(what) } : { entry, ...resolved };
}

/** resolveFileOrDirectory without allowResolveToRoot, as a value file and a file parameter are resolved. */
const rootRefusal = (what: string) => `${what}: path resolved to repository root, which is not allowed`;
