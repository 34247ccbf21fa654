/**
 * What Argo CD will do with this repository, computed from the Application
 * objects: which sources they use and exactly which files each one applies.
 */
import { dig, obj } from '../core/dig.ts';
import { argoGlobMatch } from '../core/glob.ts';
import { perObject, perObjects } from '../core/per-object.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Resource } from '../core/manifest.ts';
import { checkoutPathSet, checkoutTree, parseDataFile, type Repo } from '../repository/repo.ts';
import { isManifestPath, isNonManifest } from '../repository/data-file.ts';
import { sourceParameterTexts } from '../repository/directory-source.ts';
import { foldersOf, pathsByFolder } from '../repository/checkout-paths.ts';
import { kustomizeInputs } from './kustomize.ts';
import { appPathOf, appPathProblem, directoryFiles, discoveredTool, explicitTool, normalizeRepoURL, SKIP_RENDERING_MARKER } from './repo-server.ts';
import { mergeSourceParameters } from './source-parameters.ts';

export { normalizeRepoURL };
export { isExactChartVersion, type AppSource, type HelmOptions } from './app-source.ts';
import { refProblems, str, toSource, type AppSource } from './app-source.ts';

/** The root app-of-apps; bootstrapped once with kubectl, then it manages itself. */
export const ROOT_APP_FILE = 'clusters/home/root.yaml';
export const APPLICATION_FILE = 'application.yaml';
/** The server of the cluster Argo CD runs in, and the name it gives it. */
export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';
export const IN_CLUSTER_NAME = 'in-cluster';

/** The cluster an object is applied to, as Argo CD's resource filter matches it: its Application's destination server. */
export function filterCluster(app: { resource: Resource } | undefined): string {
  const destination = (dig(app?.resource.object, ['spec', 'destination']) ?? {}) as { server?: unknown; name?: unknown };
  if (typeof destination.server === 'string') return destination.server;
  return destination.name === IN_CLUSTER_NAME ? IN_CLUSTER_SERVER : '';
}

export interface ArgoApp {
  resource: Resource;
  name: string;
  /** Its AppProject as Argo CD reads it (ApplicationSpec.GetProject): `default` where spec.project is empty. */
  project: string;
  destinationNamespace?: string;
  sources: AppSource[];
  /** spec.syncPolicy.automated; `enabled` is false only when it says so (Argo CD's IsAutomatedSyncEnabled). */
  automated?: { prune?: boolean; selfHeal?: boolean; allowEmpty?: boolean; enabled: boolean };
}

export function toArgoApp(resource: Resource): ArgoApp {
  const spec = obj(resource.object.spec);
  // HasMultipleSources: `sources` wins only when it holds one; an empty list leaves `source` to Argo CD. There, a
  // source with an empty path and no chart generates nothing (GenerateManifest): it lends its files, if anything.
  const sources =
    Array.isArray(spec.sources) && spec.sources.length > 0
      ? spec.sources.map((s, i) => toSource(s, ['spec', 'sources', i])).map((s) => (s.path === '' && s.chart === undefined ? { ...s, path: undefined } : s))
      : spec.source !== undefined
        ? [toSource(spec.source, ['spec', 'source'])]
        : [];
  const automated = obj(obj(spec.syncPolicy).automated);
  return {
    resource,
    name: resource.name,
    project: str(spec.project) || 'default',
    destinationNamespace: str(obj(spec.destination).namespace),
    sources,
    automated:
      obj(spec.syncPolicy).automated === undefined
        ? undefined
        : {
            prune: automated.prune === true,
            selfHeal: automated.selfHeal === true,
            ...(automated.allowEmpty === true ? { allowEmpty: true } : {}),
            enabled: automated.enabled !== false,
          },
  };
}

export function isApplication(r: Resource): boolean {
  return r.apiVersion === 'argoproj.io/v1alpha1' && r.kind === 'Application';
}

/**
 * An Application read once per parsed object: every view of a run, and the next run where its file did not change,
 * get the same ArgoApp (and the same sources), so what is derived from one is derived once.
 */
const argoAppOf = perObject(toArgoApp);

/** Every Application of the repository, read once per repository, its sources as Argo CD's repo-server takes them. */
export const applications = perRepo((repo: Repo): ArgoApp[] => repo.resources.filter(isApplication).map((r) => withSourceParameters(repo, argoAppOf(r))));

/**
 * An Application with the source parameter files of its sources merged in, as the repo-server merges them
 * (source-parameters.ts); the same object where no source has one. Kept per Application and the files' texts, so
 * every view of a run, and the next run where nothing changed, get the same object.
 */
function withSourceParameters(repo: Repo, app: ArgoApp): ArgoApp {
  const found = app.sources.map((source) =>
    source.path !== undefined && source.chart === undefined && isThisRepo(repo, source)
      ? sourceParameterTexts(repo.root, checkoutPathSet(repo), normalizeSourcePath(source.path), app.name)
      : [],
  );
  if (found.every((files) => files.length === 0)) return app;
  const key = JSON.stringify(found);
  let byTexts = mergedApps.get(app);
  if (!byTexts) mergedApps.set(app, (byTexts = new Map()));
  let merged = byTexts.get(key);
  if (!merged) {
    const sources = app.sources.map((source, i) => {
      const files = found[i]!.map(({ file, text }) => parseDataFile(file, text));
      if (files.length === 0) return source;
      const written = obj(dig(app.resource.object, source.at));
      const { source: raw, problems, placeOf } = mergeSourceParameters(written, files);
      // What Argo CD cannot read of a file, it fails the source for; a YAML 1.1 reading is said beside it.
      for (const f of files) {
        for (const { line, message } of f.errors) problems.push({ file: f.file, path: [], fails: true, message, line });
        for (const a of f.ambiguities ?? []) problems.push({ file: f.file, path: [], line: a.line, fails: false, message: a.message });
      }
      return { ...toSource(raw, source.at), parameterFiles: { files: files.map((f) => f.file), problems, placeOf } };
    });
    merged = { ...app, sources };
    byTexts.set(key, merged);
  }
  return merged;
}
const mergedApps = new WeakMap<ArgoApp, Map<string, ArgoApp>>();

/** Every Application by name (the first, when two share one: the gate reports that elsewhere). */
/**
 * Whether an Application's automated sync prunes but never prunes every resource it manages (allowEmpty is not true):
 * where it renders nothing, Argo CD skips the sync (appcontroller.go autoSync: "auto-sync will wipe out all resources").
 */
export const refusesWipeOut = (app: ArgoApp): boolean => app.automated?.enabled === true && app.automated.prune === true && !app.automated.allowEmpty;

/** The root app-of-apps, when the repository has one: applied by hand (scripts/bootstrap.ts), then it applies the rest. */
export const rootApplication = perRepo((repo: Repo): ArgoApp | undefined => applications(repo).find((a) => a.resource.file === ROOT_APP_FILE));

/** Argo CD's namespace, where its controllers run and read AppProjects and cluster Secrets: the root app's, when there is one. */
export const argocdNamespace = (repo: Repo): string | undefined => rootApplication(repo)?.resource.namespace;

export const applicationsByName = perRepo((repo: Repo): Map<string, ArgoApp> => {
  const out = new Map<string, ArgoApp>();
  for (const app of applications(repo)) if (!out.has(app.name)) out.set(app.name, app);
  return out;
});

/** The Application that applies a resource: the one that rendered it, else the first that applies its file. */
export function owningApplication(repo: Repo, r: Resource): ArgoApp | undefined {
  return r.rendered ? applicationsByName(repo).get(r.rendered.app) : ownersByFile(repo).get(r.file)?.[0];
}

/**
 * Argo CD's git.NormalizeGitURL, which AppProject.IsSourcePermitted compares with: lower case, trimmed, an scp-style
 * SSH URL (git@host:path) as host/path, no `.git` suffix. A trailing slash is kept, as Argo CD keeps it.
 */
export function argoNormalizeGitURL(url: string): string {
  let repo = url.trim().toLowerCase();
  if (/^(ssh:\/\/)?([^/:]*?)@[^@]+$/.test(repo) && !repo.startsWith('ssh://')) repo = `ssh://${repo.replace(':', '/')}`;
  repo = repo.replace(/\.git$/, '');
  return repo.replace(/^ssh:\/\//, '');
}

/**
 * AppProject.IsSourcePermitted: each sourceRepos entry is a glob ('/' separates); a `!` entry denies what it matches,
 * and (as Argo CD has it) counts as a match for every other URL.
 */
export function sourcePermitted(sourceRepos: readonly string[], repoURL: string): boolean {
  const source = argoNormalizeGitURL(repoURL);
  let any = false;
  for (const entry of sourceRepos) {
    const deny = entry.startsWith('!');
    const pattern = argoNormalizeGitURL(deny ? entry.slice(1) : entry);
    const matched = deny ? !argoGlobMatch(pattern, source, '/') : pattern === '*' || argoGlobMatch(pattern, source, '/');
    if (matched) any = true;
    else if (deny) return false;
  }
  return any;
}

export function isThisRepo(repo: Repo, source: AppSource): boolean {
  return isThisRepoURL(repo, source.repoURL);
}

/** Whether a repository URL names this repository (the cluster facts' repoURL), as Argo CD compares URLs. */
export function isThisRepoURL(repo: Repo, url: string): boolean {
  return repo.facts !== undefined && normalizeRepoURL(url) === normalizeRepoURL(repo.facts.repoURL);
}

/**
 * How Argo CD 3 renders a source: a chart from a chart repository, or a path
 * of a git repository that is a Helm chart, a kustomization, a plain
 * directory or a plugin's, as its repo-server decides (repo-server.ts: the
 * source's own blocks first, then what the folder holds). A source with only
 * `ref` renders nothing: it lends its files to `$ref/...` value files.
 * `conflicting` is a source Argo CD refuses (two tool blocks).
 */
export type SourceType = 'chart' | 'helm-path' | 'kustomize' | 'directory' | 'plugin' | 'conflicting' | 'ref' | 'foreign';

const TOOL_TYPES = { Helm: 'helm-path', Kustomize: 'kustomize', Directory: 'directory', Plugin: 'plugin' } as const;

export function sourceType(repo: Repo, source: AppSource): SourceType {
  if (source.chart !== undefined) return 'chart';
  if (source.path === undefined) return source.ref !== undefined ? 'ref' : 'foreign';
  if (!isThisRepo(repo, source)) return 'foreign';
  const explicit = explicitTool(source);
  if (explicit.error) return 'conflicting';
  return TOOL_TYPES[explicit.tool ?? discoveredTool(filesAt(repo, normalizeSourcePath(source.path)), normalizeSourcePath(source.path))];
}

/** A source that makes Argo CD apply plain manifests from a folder of this repo. */
export function isDirectorySource(repo: Repo, source: AppSource): boolean {
  return sourceType(repo, source) === 'directory';
}

export function normalizeSourcePath(path: string): string {
  return appPathOf(path);
}

/**
 * What Argo CD refuses of an Application's sources before it reads one, in its words: a path of this repository it
 * will not join to its checkout (repo-server.ts appPathProblem) and a `ref` key it will not take (refProblems).
 * Each fails the source, or the whole Application: read by argocd-source-path, and by the rendered diff, which
 * cannot vouch for such an app.
 */
export function sourceRefusals(repo: Repo, app: ArgoApp): { source: AppSource; field: 'path' | 'ref'; message: string }[] {
  const paths = app.sources.flatMap((source) => {
    if (source.chart !== undefined || source.path === undefined || !isThisRepo(repo, source)) return [];
    const problem = appPathProblem(source.path, checkoutHolds(repo, normalizeSourcePath(source.path)));
    return problem ? [{ source, field: 'path' as const, message: `Argo CD fails the source of Application ${app.name}: ${problem}` }] : [];
  });
  const refs = refProblems(app.sources).map(({ source, message }) => ({
    source,
    field: 'ref' as const,
    message: `Argo CD refuses Application ${app.name}, which never syncs: ${message}`,
  }));
  return [...paths, ...refs];
}

/** What the checkout holds at a repository-relative path: a folder (a file under it), or a file. */
function checkoutHolds(repo: Repo, path: string): { folder: boolean; file: boolean } {
  return {
    folder: repo.dirs.has(path) || foldersOf(checkoutTree(repo)).has(path),
    file: checkoutPathSet(repo).has(path),
  };
}

/** The checkout's paths directly in `folder`. */
function filesAt(repo: Repo, folder: string): string[] {
  return pathsByFolder(checkoutTree(repo)).get(folder) ?? [];
}

/**
 * The files Argo CD's directory walk reads for one directory source (repo-server.ts), dot-names and jsonnet included.
 * It reads the checkout's paths and the skip markers of the parsed files, both shared by every view of a run: asked
 * once per source and run.
 */
export function filesOfSource(repo: Repo, source: AppSource): string[] {
  return sourceFilesMemo([source, checkoutTree(repo), repo.parsed], () => walkedFiles(repo, source));
}
const sourceFilesMemo = perObjects<string[]>();

function walkedFiles(repo: Repo, source: AppSource): string[] {
  const base = normalizeSourcePath(source.path ?? '');
  const prefix = base === '' ? '' : `${base}/`;
  const byFolder = pathsByFolder(checkoutTree(repo));
  const candidates = source.directory?.recurse
    ? [...byFolder].filter(([folder]) => folder === base || base === '' || folder.startsWith(prefix)).flatMap(([, files]) => files)
    : (byFolder.get(base) ?? []);
  const marked = skippedFiles(repo);
  return directoryFiles(candidates, base, source.directory ?? {}).filter((f) => !marked.has(f));
}

/** Files that hold Argo CD's skip marker: its directory walk passes over them without a word, so no directory source applies them. */
const skippedFiles = perRepo((repo: Repo): Set<string> => new Set(repo.parsed.filter((p) => p.text.includes(SKIP_RENDERING_MARKER)).map((p) => p.file)));

/** The manifest files a kustomize source builds from (its own, its bases', its components'). */
export function filesOfKustomization(repo: Repo, source: AppSource): string[] {
  return kustomizeInputs(repo, normalizeSourcePath(source.path ?? '')).files.filter((f) => isManifestPath(f) && !isNonManifest(f) && repo.files.has(f));
}

/** The type a source's folder would have without its blocks: what a refused source (a plugin's, two tools) is judged as owning. */
function ownedAs(repo: Repo, source: AppSource): SourceType {
  const type = sourceType(repo, source);
  if (type !== 'plugin' && type !== 'conflicting') return type;
  const base = normalizeSourcePath(source.path ?? '');
  return TOOL_TYPES[discoveredTool(filesAt(repo, base), base)];
}

/**
 * What filesOfApp reads, beside the app: the checkout's paths and the file tree (which folder is what tool's, what
 * a directory walk reads), the skip markers in the parsed files, the facts' repoURL (which sources are this
 * repository's) and the kustomization files. Every view of one run shares each of those objects (a view narrows
 * its resources and data files alone, and keeps every kustomization file: model/checks/runner.ts), so the checks
 * of a run ask once per app, not once per view.
 */
const appFilesMemo = perObjects<string[]>();
const NO_FACTS = {};

export function filesOfApp(repo: Repo, app: ArgoApp): string[] {
  return appFilesMemo([app, repo.files, checkoutTree(repo), repo.parsed, repo.facts ?? NO_FACTS], () => appFiles(repo, app));
}

function appFiles(repo: Repo, app: ArgoApp): string[] {
  const files = app.sources.flatMap((s) => {
    // A plugin reads its folder: the manifests there are the app's, but the file that declares the app.
    if (sourceType(repo, s) === 'plugin') return filesOfSource(repo, { ...s, directory: {} }).filter((f) => f !== app.resource.file);
    const type = ownedAs(repo, s);
    return type === 'directory' ? filesOfSource(repo, s) : type === 'kustomize' ? filesOfKustomization(repo, s) : [];
  });
  return [...new Set(files)].sort();
}

/** Files kustomize sources reach through `components:`: shared by design, so several apps may build from them. */
export const componentFiles = perRepo((repo: Repo): Set<string> => {
  const out = new Set<string>();
  for (const app of applications(repo)) {
    for (const s of app.sources.filter((x) => sourceType(repo, x) === 'kustomize'))
      for (const f of kustomizeInputs(repo, normalizeSourcePath(s.path ?? '')).componentFiles) out.add(f);
  }
  return out;
});

/** For every file, the Applications that apply it (computed once per repository). */
export const ownersByFile = perRepo((repo: Repo): Map<string, ArgoApp[]> => {
  const owners = new Map<string, ArgoApp[]>();
  for (const app of applications(repo)) {
    for (const file of filesOfApp(repo, app)) owners.set(file, [...(owners.get(file) ?? []), app]);
  }
  return owners;
});

/** The namespace a resource lands in: its own, or its Application's destination. */
export function namespaceOrDestination(repo: Repo, r: Resource): string | undefined {
  return r.namespace ?? owningApplication(repo, r)?.destinationNamespace;
}

/**
 * The values of a comma-separated annotation (sync options, hook types, delete policies), as gitops-engine reads them
 * (GetAnnotationCSVs): split at commas, trimmed, empty ones dropped, each once.
 */
export function annotationCsv(object: unknown, key: string): string[] {
  const raw = dig(object, ['metadata', 'annotations', key]);
  return typeof raw === 'string' ? [...new Set(raw.split(',').map((s) => s.trim()))].filter(Boolean) : [];
}

export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';

/** The options of an object's argocd.argoproj.io/sync-options annotation. */
export const annotationSyncOptions = (object: unknown): string[] => annotationCsv(object, SYNC_OPTIONS_ANNOTATION);

/** The value of the first `key=value` option that names `key` (SyncOptions.GetOptionValue, GetAnnotationOptionValue). */
export function syncOptionValue(options: readonly string[], key: string): string | undefined {
  return options.find((o) => o.startsWith(`${key}=`))?.slice(key.length + 1);
}

/** An Application's spec.syncPolicy.syncOptions (none for no Application). */
export function syncOptions(app: ArgoApp | undefined): string[] {
  const raw = dig(app?.resource.object, ['spec', 'syncPolicy', 'syncOptions']);
  return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
}
