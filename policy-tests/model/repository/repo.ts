/**
 * The repository as data: every file under the manifest roots, every manifest
 * parsed once with positions, and the cluster facts. Policy checks are pure
 * functions of this value.
 */
import { existsSync, lstatSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentPositions, type ParsedFile, type Resource } from '../core/manifest.ts';
import { recall, remember as record, storedPositions } from '../stores/parse-store.ts';
import { parseFiles } from './parse-pool.ts';
import { duplicateKeys } from '../yaml/duplicate-keys.ts';
import { YAML11_FIX, yaml11Ambiguities } from '../yaml/yaml11.ts';
import { readDocument } from '../yaml/go-quoted.ts';
import { goRefusalMessage, goYamlRefusals } from '../yaml/go-refusals.ts';
import type { Finding, ParseError } from '../core/findings.ts';
import { yamlLibraryErrors } from '../yaml/helm-values.ts';
import { readSource } from '../core/source.ts';
import { isLfsPointer } from '../core/text.ts';
import {
  isChartSource,
  isHelmValues,
  isManifestPath,
  isNonManifest,
  isSourceParameterFile,
  lazyValuesPositions,
  parseTomlFile,
  unparsedConsequence,
  unparsedFinding,
  valuesDataFile,
  type DataFile,
} from './data-file.ts';
import { findFactsResource, readClusterFacts, type ClusterFacts, type FactsProblem } from './cluster-facts.ts';
import { perKey } from '../core/per-object.ts';
import { checkoutPaths, pathsByFolder, type CheckoutLink, type Submodule } from './checkout-paths.ts';
import { appPathOf, directoryFiles, discoveredTool, explicitTool, normalizeRepoURL } from '../argocd/repo-server.ts';
import { sourceParameterTexts } from './directory-source.ts';
import { mergeSourceParameters } from '../argocd/source-parameters.ts';
import { diskView, kustomizeInputs, type KustomizeView } from '../argocd/kustomize-walk.ts';

/** The checkout this gate belongs to: the folder above policy-tests/, whether this module runs from its source or from the bundle in dist/. */
export const REPO_ROOT = ((here: string) => here.slice(0, here.lastIndexOf(`${sep}policy-tests${sep}`) + 1))(fileURLToPath(import.meta.url));

/** Where Argo CD-applied manifests live (docs/design.md, Layout). */
/** The chart lock, at the repository root (not under the manifest roots: Argo CD never sees it). */
export const CHART_LOCK_FILE = 'charts.lock.json';

export const MANIFEST_ROOTS = ['clusters', 'apps', 'monitoring', 'security', 'portfolio-api/deploy'] as const;

export interface Repo {
  root: string;
  /** Every file under the manifest roots, repo-relative with `/` separators. */
  files: ReadonlySet<string>;
  dirs: ReadonlySet<string>;
  manifestFiles: readonly string[];
  nonManifestFiles: readonly string[];
  parsed: readonly ParsedFile[];
  resources: readonly Resource[];
  facts?: ClusterFacts;
  factsResource?: Resource;
  factsProblems: readonly FactsProblem[];
  /** Non-manifest YAML/JSON files (Helm values, facts, settings) and TOML (wrangler.toml), parsed with positions. */
  dataFiles: ReadonlyMap<string, DataFile>;
  /** Every path of the checkout a pull request can write (model/repository/checkout-paths.ts); absent for an in-memory repository. */
  checkout?: {
    paths: readonly string[];
    from: 'git' | 'walk';
    submodules?: readonly Submodule[];
    links?: readonly CheckoutLink[];
    lfsPointers?: readonly string[];
  };
}

/** What Argo CD's repo-server walks for this repository: every path of the checkout (git's view), else the files under the manifest roots (an in-memory repository). */
export function checkoutTree(repo: Repo): readonly string[] {
  return repo.checkout?.paths ?? [...repo.files];
}

const checkoutSets = new WeakMap<readonly string[], ReadonlySet<string>>();

/** The checkout's paths as a set, once per checkout: a file is looked up by name. */
export function checkoutPathSet(repo: Repo): ReadonlySet<string> {
  const tree = checkoutTree(repo);
  let set = checkoutSets.get(tree);
  if (!set) checkoutSets.set(tree, (set = new Set(tree)));
  return set;
}

export type { DataFile } from './data-file.ts';

/** Parsed data files by path and content, for the same reason as the manifest cache (parse-pool.ts). */
export const parseDataFile: (file: string, text: string) => DataFile = perKey(2000, parseDataFileUncached, (file, text) => `${file}\0${text}`);

function parseDataFileUncached(file: string, text: string): DataFile {
  if (file.endsWith('.toml')) return parseTomlFile(file, text);
  // Parsed by an earlier run (parse-store.ts): its positions are found again only when a finding needs one.
  const prior = recall<Omit<DataFile, 'file' | 'positions'>>('data', file, text);
  if (prior) return { file, ...prior, data: prior.data, positions: isHelmValues(file) ? lazyValuesPositions(text) : storedPositions(file, text, 0, {}) };
  try {
    const parsed = parseYamlDataFile(file, text);
    record('data', file, text, {
      ...(parsed.data !== undefined ? { data: parsed.data } : {}),
      errors: parsed.errors,
      ...(parsed.ambiguities ? { ambiguities: parsed.ambiguities } : {}),
    });
    return parsed;
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return {
      file,
      data: undefined,
      positions: { at: () => ({ line: 1, col: 1 }) },
      errors: [{ line: 1, col: 1, message: 'nests deeper than the parser can take', check: 'nesting-depth' }],
    };
  }
}

function parseYamlDataFile(file: string, text: string): DataFile {
  if (isHelmValues(file)) return valuesDataFile(file, text);
  // As Argo CD reads it, with go-yaml: a quoted scalar's continuation lines at any indentation (go-quoted.ts).
  const { doc, lineCounter } = readDocument(text);
  const errors = yamlLibraryErrors(doc.errors);
  if (errors.length === 0)
    errors.push(
      ...duplicateKeys(doc, lineCounter).map((d): ParseError => ({
        line: d.line,
        col: d.col,
        message: `duplicate key "${d.key}": Map keys must be unique`,
        check: 'duplicate-key',
      })),
    );
  const goRead = isSourceParameterFile(file);
  // What go-yaml refuses of a file Argo CD reads with it (model/yaml/go-refusals.ts): the first of it.
  const [refused] = goRead && errors.length === 0 ? goYamlRefusals(text) : [];
  const at = refused && lineCounter.linePos(refused.offset);
  if (refused && at) errors.push({ ...at, message: goRefusalMessage(refused, 'Argo CD'), check: 'yaml-syntax' });
  const ambiguities = goRead && errors.length === 0 ? yaml11Ambiguities(doc, lineCounter) : [];
  let data: unknown;
  if (errors.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      // An alias bomb (or an alias to nothing) is refused in one line, as in a manifest.
      errors.push({ line: 1, col: 1, message: (err as Error).message.split('\n')[0]!, check: 'yaml-syntax' });
    }
  }
  return { file, data, positions: documentPositions(doc, lineCounter), errors, ...(ambiguities.length ? { ambiguities } : {}) };
}

function manifestFilesOf(files: Iterable<string>): string[] {
  return [...files].filter((f) => isManifestPath(f) && !isNonManifest(f)).sort();
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

/**
 * Lists files and directories under `dir` (repo-relative), as Argo CD's directory walk sees them: dot-names included
 * (it reads them like any other), only git's own folder and package installs left out.
 */
export function walkFiles(root: string, dir: string, files: Set<string>, dirs: Set<string>): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  dirs.add(dir);
  for (const entry of entries) {
    const name = entry.name;
    if (name === '.git' || name === 'node_modules') continue;
    const rel = dir ? `${dir}/${name}` : name;
    // The entry's own type, as lstat gives it: a symlink is never walked into (a loop would never end); as a file,
    // readSource judges it.
    if (entry.isDirectory()) walkFiles(root, rel, files, dirs);
    else files.add(rel);
  }
}

/** Why a symlink (that no loader reads as a manifest) must not be committed: a loop, or a way out of the repository. */
function linkProblem(root: string, file: string): string | undefined {
  const path = join(root, file);
  if (!lstatSync(path).isSymbolicLink()) return undefined;
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ELOOP' ? 'is a symlink loop' : undefined;
  }
  const top = realpathSync.native(root);
  const rel = relative(top, real);
  if (rel.startsWith('..') || isAbsolute(rel)) return 'is a symlink that points out of the repository; Argo CD refuses it';
  const folder = realpathSync.native(dirname(path));
  if (statSync(real).isDirectory() && (folder === real || folder.startsWith(`${real}${sep}`)))
    return `is a symlink loop: it points at ${rel || 'the repository root'}, a folder that holds it`;
  return undefined;
}

/** Builds the repository model from parsed files (pure; used by tests with in-memory copies too). */
export function buildRepo(
  root: string,
  tree: { files: ReadonlySet<string>; dirs: ReadonlySet<string> },
  parsed: readonly ParsedFile[],
  dataFiles: ReadonlyMap<string, DataFile> = new Map(),
): Repo {
  const { files, dirs } = tree;
  const resources = parsed.flatMap((p) => p.resources);
  const factsResource = findFactsResource(resources);
  const { facts, problems } = factsResource ? readClusterFacts(factsResource) : { facts: undefined, problems: [] };
  const manifestFiles = manifestFilesOf(files);
  const nonManifestFiles = [...files].filter((f) => isManifestPath(f) && isNonManifest(f)).sort();
  return { root, files, dirs, manifestFiles, nonManifestFiles, parsed, resources, facts, factsResource, factsProblems: problems, dataFiles };
}

/** Data files (values, kustomizations, settings, TOML): read as data, never as manifests. */
const isData = (f: string) => (isManifestPath(f) && isNonManifest(f) && !isChartSource(f)) || f.endsWith('.toml');

/**
 * The files read: data files parsed, manifests parsed, and what cannot be read (or what Helm reads differently, or a
 * symlink no tool should follow) as findings on files that hold no resources.
 */
async function readFiles(
  root: string,
  files: readonly string[],
  options: { parallel?: boolean },
): Promise<{ data: Map<string, DataFile>; parsed: ParsedFile[] }> {
  const data = new Map<string, DataFile>();
  const unreadable: Finding[] = [];
  for (const file of files.filter(isData)) {
    const source = readSource(root, file);
    if (!('text' in source)) {
      unreadable.push(source.finding);
      continue;
    }
    const parsed = parseDataFile(file, source.text);
    data.set(file, parsed);
    for (const a of parsed.ambiguities ?? [])
      unreadable.push({ file, line: a.line, col: a.col, check: 'yaml-1.1-scalar', message: a.message, fix: YAML11_FIX });
    // A Git LFS pointer is refused as one, in words that say so (argocd/refusals.ts), not as text that does not parse.
    const consequence = isLfsPointer(source.text) ? undefined : unparsedConsequence(file);
    if (consequence) unreadable.push(...parsed.errors.map((error) => unparsedFinding(file, error, consequence)));
  }
  // A symlink of any name is judged too: one to a folder that holds it is a loop for every tool that follows links.
  for (const file of files)
    if (!isManifestPath(file)) {
      const problem = linkProblem(root, file);
      if (problem)
        unreadable.push({ file, line: 1, col: 1, check: 'file-type', message: problem, fix: 'commit a regular file or folder instead of the symlink' });
    }
  const byFile = Map.groupBy(unreadable, (f) => f.file);
  const parsed = [
    ...(await parseFiles(root, manifestFilesOf(files), options)),
    ...[...byFile].map(([file, findings]) => ({ file, resources: [], findings, text: '' })),
  ];
  return { data, parsed };
}

export async function loadRepo(root: string = REPO_ROOT, options: { parallel?: boolean } = {}): Promise<Repo> {
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const r of MANIFEST_ROOTS) walkFiles(root, r, files, dirs);
  const { data, parsed } = await readFiles(root, [...files], options);
  // The chart lock sits at the root, outside the manifest roots (Argo CD never reads it); the lock check reads it.
  if (existsSync(join(root, CHART_LOCK_FILE))) {
    const source = readSource(root, CHART_LOCK_FILE);
    if ('text' in source) data.set(CHART_LOCK_FILE, parseDataFile(CHART_LOCK_FILE, source.text));
    else parsed.push({ file: CHART_LOCK_FILE, resources: [], findings: [source.finding], text: '' });
  }
  const checkout = await checkoutPaths(root);
  const repo: Repo = { ...buildRepo(root, { files, dirs }, parsed, data), checkout };
  return (await readingBeyond(repo, async (own) => own, options)).applied;
}

/** How many times a load follows Applications to files beyond what it holds: Applications that declare Applications, a few deep. */
const BEYOND_ROUNDS = 8;

/**
 * What Argo CD applies beyond the manifest roots (the root app's include reaches any folder, an Application any path of
 * the checkout): read and judged too, until the Applications add nothing more. `applied` is the repository as its
 * Applications stand (with those its ApplicationSets make, model/appset/expand.ts); `own` is what the files declare.
 */
export async function readingBeyond(
  repo: Repo,
  applied: (own: Repo) => Promise<Repo>,
  options: { parallel?: boolean } = {},
): Promise<{ own: Repo; applied: Repo }> {
  let own = repo;
  let current = await applied(own);
  for (let round = 0; round < BEYOND_ROUNDS; round++) {
    const beyond = appliedBeyond(current).filter((f) => !own.files.has(f));
    if (beyond.length === 0) break;
    const files = new Set(own.files);
    const dirs = new Set(own.dirs);
    for (const file of beyond) {
      files.add(file);
      for (let dir = dirname(file); dir !== '.' && !dirs.has(dir); dir = dirname(dir)) dirs.add(dir);
    }
    const read = await readFiles(own.root, beyond, options);
    own = { ...buildRepo(own.root, { files, dirs }, [...own.parsed, ...read.parsed], new Map([...own.dataFiles, ...read.data])), checkout: own.checkout };
    current = await applied(own);
  }
  return { own, applied: current };
}

/**
 * Files Argo CD's repo-server reads for some source of this repository (model/argocd/repo-server.ts) that the
 * repository model does not hold yet: what a directory source's walk reads, and a kustomize source's folder with every
 * folder and file its build reaches (model/argocd/kustomize-walk.ts). Found
 * here, on the model floor, from the Applications' own fields, so the loader never reaches up.
 */
function appliedBeyond(repo: Repo): string[] {
  const paths = repo.checkout?.paths ?? [];
  const repoURL = repo.facts?.repoURL;
  if (!repoURL || paths.length === 0) return [];
  const same = (url: unknown) => typeof url === 'string' && normalizeRepoURL(url) === normalizeRepoURL(repoURL);
  // Each source reads its own folder (or the folders under it), not every path.
  const byFolder = pathsByFolder(paths);
  // The checkout's one set of paths, which the render's view walks too: a kustomization walked here is not walked again.
  const pathSet = checkoutPathSet(repo);
  let kustomizeView: KustomizeView | undefined;
  const view = () => (kustomizeView ??= diskView(repo.root, pathSet, repo.dataFiles, parseDataFile));
  const under = (appPath: string, recurse: boolean): string[] =>
    recurse
      ? [...byFolder].filter(([folder]) => appPath === '' || folder === appPath || folder.startsWith(`${appPath}/`)).flatMap(([, files]) => files)
      : (byFolder.get(appPath) ?? []);
  const out = new Set<string>();
  for (const r of repo.resources) {
    if (r.apiVersion !== 'argoproj.io/v1alpha1' || r.kind !== 'Application') continue;
    const spec = (r.object.spec ?? {}) as Record<string, unknown>;
    // HasMultipleSources: an empty `sources` leaves `source` in force, as toArgoApp reads it.
    const several = Array.isArray(spec.sources) && spec.sources.length > 0;
    const sources = several ? (spec.sources as unknown[]) : spec.source !== undefined ? [spec.source] : [];
    for (const written of sources as Record<string, unknown>[]) {
      if (!written || typeof written !== 'object' || written.chart !== undefined || typeof written.path !== 'string' || !same(written.repoURL)) continue;
      // One of several sources with an empty path generates nothing (GenerateManifest); alone, it is the repository's root.
      if (written.path === '' && several) continue;
      const appPath = appPathOf(written.path);
      // The source as the repo-server walks it: with its parameter files merged in, which may name the tool or the walk.
      const parameters = sourceParameterTexts(repo.root, pathSet, appPath, r.name).map(({ file, text }) => parseDataFile(file, text));
      const raw = parameters.length ? mergeSourceParameters(written, parameters).source : written;
      const explicit = explicitTool(raw);
      const tool = explicit.tool ?? (explicit.error ? undefined : discoveredTool(under(appPath, false), appPath));
      // A kustomize build is read as kustomize reads it, wherever it stands: each kustomization it reaches (a `../base`,
      // a component) and each file it takes as a resource, where a finding lands. A patch, a generator's input or a
      // stray file of a folder it visits is no manifest of it, and is not read as one.
      if (tool === 'Kustomize' && appPath !== '')
        for (const file of kustomizeInputs(view(), appPath).built) if (pathSet.has(file) && !repo.files.has(file)) out.add(file);
      if (tool !== 'Directory') continue;
      const d = (raw.directory ?? {}) as Record<string, unknown>;
      const options = {
        recurse: d.recurse === true,
        include: typeof d.include === 'string' ? d.include : undefined,
        exclude: typeof d.exclude === 'string' ? d.exclude : undefined,
      };
      for (const file of directoryFiles(under(appPath, options.recurse), appPath, options))
        if (!repo.files.has(file) && !file.endsWith('.jsonnet')) out.add(file);
    }
  }
  return [...out].sort();
}

export function relativeToRepo(root: string, absolute: string): string | undefined {
  const rel = toPosix(relative(root, absolute));
  return rel.startsWith('..') || rel === '' ? undefined : rel;
}

/** A file's text as the loader read it, not a render's output of the same name; undefined where it read none. */
export const ownText = (repo: Repo, file: string): string | undefined => repo.parsed.find((p) => p.file === file && p.renderedBy === undefined)?.text;
