/**
 * Argo CD's repo-server, as it reads one source of a git repository: the
 * gate's one idea of which files Argo CD applies. It follows v3.5.1, the
 * release this repository pins (apps/platform/argocd):
 * - the tool: `ApplicationSource.ExplicitType` (a `kustomize`, `helm`,
 *   `directory` or `plugin` block decides, two of them are an error), else
 *   `discovery.AppType` (a name ending in `Chart.yaml`, or a kustomization
 *   file, at the source path; the later of the two in walk order wins);
 * - a directory source: `getPotentiallyValidManifests`, a plain
 *   `filepath.Walk` (dot-names included, linked folders not entered), the
 *   extension filter `^.*\.(yaml|yml|json|jsonnet)$` on the base name, then
 *   exclude and include as gobwas globs without separators over the path
 *   relative to the source path (`*` crosses `/`);
 * - the source parameter files `mergeSourceParameters` merges into the
 *   source before it picks the tool: `.argocd-source.yaml` and
 *   `.argocd-source-<app>.yaml` at the source path;
 * - before any of it, the whole checkout's symlinks
 *   (`CheckOutOfBoundsSymlinks`, util/app/path).
 * Pure: it works on the list of paths a checkout holds, so tests and the
 * loader ask it the same question.
 */
import { posix } from 'node:path';
import { argoGlobMatcher } from '../core/glob.ts';
import type { AppSource } from './app-source.ts';

/** `manifestFile` in reposerver/repository/repository.go. */
export const ARGOCD_MANIFEST_NAME = /^.*\.(yaml|yml|json|jsonnet)$/;
/** A file that holds this text is skipped by the directory walk (`skipFileRenderingMarker`). */
export const SKIP_RENDERING_MARKER = '+argocd:skip-file-rendering';

/** The names kustomize looks for in a folder, in its order (`kustomize.KustomizationNames`). */
export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

/** A repository URL as the gate compares two: lower case, no `.git`, no trailing slash. */
export function normalizeRepoURL(url: string): string {
  return url
    .replace(/\.git$/, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

export type ArgoTool = 'Helm' | 'Kustomize' | 'Directory' | 'Plugin';

/** What a source's own fields say (Helm, Kustomize, Directory, Plugin), as `ExplicitType` reads them. */
export interface ExplicitFields {
  kustomize?: unknown;
  helm?: unknown;
  directory?: unknown;
  plugin?: unknown;
}

/** `ApplicationSource.ExplicitType`: the tool its blocks name, none, or Argo CD's error for two. */
export function explicitTool(source: ExplicitFields): { tool?: ArgoTool; error?: string } {
  const named: ArgoTool[] = [];
  if (source.kustomize !== undefined) named.push('Kustomize');
  if (source.helm !== undefined) named.push('Helm');
  if (source.directory !== undefined) named.push('Directory');
  if (source.plugin !== undefined) named.push('Plugin');
  if (named.length > 1) return { error: `multiple application sources defined: ${named.join(',')}` };
  return named.length === 1 ? { tool: named[0] } : {};
}

/**
 * A folder's path relative to the repository root ('' for the root), as Argo CD joins it (`filepath.Join`, which
 * cleans): `.`, doubled and trailing slashes dropped, `..` taken back. A path that leaves the root keeps its leading
 * `..` (appPathProblem says Argo CD refuses it), and an absolute one is read from the root, which Argo CD refuses too.
 */
export function appPathOf(path: string): string {
  const clean = posix.normalize(path.replace(/^\/+/, '')).replace(/\/+$/, '');
  return clean === '.' ? '' : clean;
}

/**
 * What Argo CD's `Path` (util/app/path) refuses of a source's path before it reads the source, in its words, given
 * what the checkout holds there: an absolute path, one that leaves the repository once joined to it, one that names
 * nothing, or a file. Any of these fails the source, and the Application never syncs.
 */
export function appPathProblem(path: string, holds: { folder: boolean; file: boolean }): string | undefined {
  if (posix.isAbsolute(path)) return `${path}: app path is absolute`;
  const joined = appPathOf(path);
  if (joined === '..' || joined.startsWith('../')) return `${path}: app path outside root`;
  if (joined === '' || holds.folder) return undefined;
  return holds.file ? `${path}: app path is not a directory` : `${path}: app path does not exist`;
}

const within = (appPath: string, file: string) => (appPath === '' ? file : file.startsWith(`${appPath}/`) ? file.slice(appPath.length + 1) : undefined);

/** Paths in `filepath.Walk` order: lexical by name within each folder, a folder's entries right after its name. */
export function walkOrder(paths: Iterable<string>): string[] {
  // Each path split once, not at every comparison.
  return [...paths]
    .map((path) => ({ path, parts: path.split('/') }))
    .sort(({ parts: x }, { parts: y }) => {
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
      return x.length - y.length;
    })
    .map(({ path }) => path);
}

/** `discovery.AppType` on the files at the source path itself: Helm for a name ending in Chart.yaml, Kustomize for a kustomization file, the later in walk order winning. */
export function discoveredTool(paths: Iterable<string>, appPath: string): ArgoTool {
  let tool: ArgoTool = 'Directory';
  // Only the files at the source path itself decide, in their walk order: the rest of the repository is not sorted.
  const here = [...paths].filter((file) => {
    const rel = within(appPath, file);
    return rel !== undefined && !rel.includes('/');
  });
  for (const file of walkOrder(here)) {
    const rel = within(appPath, file)!;
    if (rel.endsWith('Chart.yaml')) tool = 'Helm';
    if ((KUSTOMIZATION_FILES as readonly string[]).includes(rel)) tool = 'Kustomize';
  }
  return tool;
}

export interface DirectoryOptions {
  recurse?: boolean;
  include?: string;
  exclude?: string;
}

/**
 * The files a directory source reads, in walk order: every path under the source path (direct children only without
 * `recurse`) whose base name passes the extension filter, not excluded, and included. The symlink, regular-file and
 * skip-marker rules need the file itself: the loader applies them (model/core/source.ts refuses what Argo CD refuses).
 */
export function directoryFiles(paths: Iterable<string>, path: string, options: DirectoryOptions = {}): string[] {
  const appPath = appPathOf(path);
  const out: string[] = [];
  // Only the files under the source path are put in walk order, not the whole repository once per source.
  const under = [...paths].filter((file) => within(appPath, file) !== undefined);
  // Each glob compiled once for the walk, not looked up again for every file.
  const exclude = options.exclude ? argoGlobMatcher(options.exclude) : undefined;
  const include = options.include ? argoGlobMatcher(options.include) : undefined;
  for (const file of walkOrder(under)) {
    const rel = within(appPath, file)!;
    if (!options.recurse && rel.includes('/')) continue;
    if (!ARGOCD_MANIFEST_NAME.test(rel.slice(rel.lastIndexOf('/') + 1))) continue;
    if (exclude?.test(rel)) continue;
    if (include && !include.test(rel)) continue;
    out.push(file);
  }
  return out;
}

/** The source parameter files Argo CD merges into an Application's source at `appPath` (`mergeSourceParameters`), those the checkout holds. */
export function sourceParameterFiles(paths: ReadonlySet<string>, appPath: string, appName: string): string[] {
  const at = (name: string) => (appPath === '' ? name : `${appPath}/${name}`);
  return ['.argocd-source.yaml', ...(appName ? [`.argocd-source-${appName}.yaml`] : [])].map(at).filter((f) => paths.has(f));
}

/** Why a file a directory source reads is refused here, though Argo CD would apply it (what Argo CD would have done, then what to do instead). */
export function appliedFileRefusal(file: string): string | undefined {
  const hidden = file.split('/').find((segment) => segment.startsWith('.'));
  if (hidden)
    return `Argo CD applies ${file}: its directory walk reads dot-names (${hidden}) as any other; a hidden manifest escapes a reviewer's eye, so the gate refuses it: give it a plain name`;
  return undefined;
}

/** The repo-server's --max-combined-directory-manifests-size where nothing sets it ("10M", a decimal quantity). */
export const DEFAULT_MAX_COMBINED_MANIFESTS_BYTES = 10_000_000;

/** The key of argocd-cmd-params-cm the repo-server's Deployment reads it from. */
export const MAX_COMBINED_MANIFESTS_KEY = 'reposerver.max.combined.directory.manifests.size';

/**
 * getPotentiallyValidManifests' limit: the walk's files but jsonnet ones (jsonnet minds its own memory), in walk
 * order, summed by the size of what each names (a link's target); past `max` the source fails. 0 is no limit.
 */
export function combinedSizeProblem(files: readonly string[], sizeOf: (file: string) => number, max: number): string | undefined {
  if (max === 0) return undefined;
  let total = 0;
  for (const file of files) {
    if (file.endsWith('.jsonnet')) continue;
    total += sizeOf(file);
    if (total > max)
      return `exceeded max combined manifest file size: the files up to ${file} hold ${total} bytes, over the repo-server's ${max} (argocd-cmd-params-cm ${MAX_COMBINED_MANIFESTS_KEY})`;
  }
  return undefined;
}

/**
 * Why Argo CD's repo-server refuses a symlink of the checkout, if it does (util/app/path `CheckOutOfBoundsSymlinks`,
 * run over the whole checkout but `.git` before any source is read): the target as written, never resolved, is
 * absolute, or some step of it, taken part by part from the link's folder, stands outside the repository. So
 * `../lab/apps/x.yaml`, which comes back in, is refused as well as `/etc/hostname`, and so is a dangling link that
 * leaves. `path` is the link's path in the checkout, `target` what readlink gives.
 */
export function outOfBoundsLink(path: string, target: string): string | undefined {
  if (posix.isAbsolute(target)) return 'absolute';
  let dir = posix.dirname(path);
  for (const part of target.split('/')) {
    dir = posix.join(dir, part);
    if (dir === '..' || dir.startsWith('../')) return 'leaves the repository';
  }
  return undefined;
}

/**
 * The links `CheckOutOfBoundsSymlinks` refuses, in its walk's order (it stops at the first), passing over `skip` (the
 * paths it is told to leave, `.git` in the repo-server's own call) and what lies under them, each with why.
 */
export function outOfBoundsLinks(
  links: readonly { path: string; target: string }[],
  skip: readonly string[] = [],
): { path: string; target: string; why: string }[] {
  const targets = new Map(links.map((l) => [l.path, l.target]));
  const skipped = (path: string) => skip.some((s) => path === s || path.startsWith(`${s}/`));
  return walkOrder(targets.keys()).flatMap((path) => {
    const why = skipped(path) ? undefined : outOfBoundsLink(path, targets.get(path)!);
    return why ? [{ path, target: targets.get(path)!, why }] : [];
  });
}

/** The first link `CheckOutOfBoundsSymlinks` refuses, the one Argo CD names; undefined where it refuses none. */
export const firstOutOfBoundsLink = (links: readonly { path: string; target: string }[], skip: readonly string[] = []): string | undefined =>
  outOfBoundsLinks(links, skip)[0]?.path;

/**
 * The Kubernetes version the repo-server renders a source for (reposerver/repository `parseKubeVersion`: apimachinery's
 * `ParseGeneric`, then `String`): two or more dot-separated numbers, an optional `v` and surrounding blanks, anything
 * after the numbers dropped (`v1.30.1-gke.1` is `1.30.1`). A version it cannot parse fails the source, in its words.
 */
export function parseKubeVersion(version: string): { version: string } | { error: string } {
  // Go's versionMatchRE: its \s is [\t\n\f\r ], its . stops at a newline, and its $ is the end of the text.
  const parts = /^[\t\n\f\r ]*v?([0-9]+(?:\.[0-9]+)*)([^\n]*)$/.exec(version);
  const fail = (why: string) => ({ error: `could not parse kubernetes version ${version}: ${why}` });
  if (!parts) return fail(`could not parse ${JSON.stringify(version)} as version`);
  const components = parts[1]!.split('.');
  if (components.length < 2) return fail(`illegal version string ${JSON.stringify(version)}`);
  if (components[0]!.startsWith('0') && components[0] !== '0')
    return fail(`illegal zero-prefixed version component ${JSON.stringify(components[0])} in ${JSON.stringify(version)}`);
  // Go's ParseUint: a component past 2^64-1 is out of range.
  const outOfRange = components.find((c) => BigInt(c) > 18446744073709551615n);
  if (outOfRange !== undefined) return fail(`illegal non-numeric version component ${JSON.stringify(outOfRange)} in ${JSON.stringify(version)}`);
  return { version: components.map((c) => BigInt(c).toString()).join('.') };
}

/**
 * The version a source renders for: its own (`helm.kubeVersion`, else `kustomize.kubeVersion`: GetKubeVersionOrDefault),
 * else the cluster's, parsed as the repo-server parses it; an empty one is none.
 */
export function sourceKubeVersion(source: AppSource, clusterVersion: string | undefined): { version?: string } | { error: string } {
  const raw = source.helm?.kubeVersion || (typeof source.kustomize?.kubeVersion === 'string' ? source.kustomize.kubeVersion : '') || clusterVersion || '';
  return raw === '' ? {} : parseKubeVersion(raw);
}

/** The API versions a source renders with: its own list where it has one (`helm.apiVersions`, else `kustomize.apiVersions`: GetAPIVersionsOrDefault), else the cluster's. */
export function sourceApiVersions(source: AppSource, clusterApiVersions: readonly string[]): readonly string[] {
  const kustomize = Array.isArray(source.kustomize?.apiVersions) ? source.kustomize.apiVersions.map(String) : [];
  if (source.helm?.apiVersions?.length) return source.helm.apiVersions;
  return kustomize.length ? kustomize : clusterApiVersions;
}
