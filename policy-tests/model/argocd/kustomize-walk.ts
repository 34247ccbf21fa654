/**
 * The files a kustomization reads, walked from a view of the repository's file tree and its parsed kustomization
 * files: pure, so the loader (model/repository/repo.ts, following a kustomize source beyond the manifest roots) and
 * the render tier walk alike. model/argocd/kustomize.ts gives the checkout's view of it.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { DataFile } from '../repository/data-file.ts';
import { isMap } from '../core/dig.ts';
import { perObject } from '../core/per-object.ts';
import { KUSTOMIZATION_FILES } from './repo-server.ts';

/** What the repository offers: its files, and the parsed kustomization files among its data files. */
export interface KustomizeView {
  files: ReadonlySet<string>;
  dataFiles: Pick<ReadonlyMap<string, DataFile>, 'get'>;
}

/**
 * A view of the files under `root` that reads a kustomization from disk where `dataFiles` does not hold it, each once,
 * parsed by `parse`: what kustomize itself reads, whatever the loader took in.
 */
export function diskView(
  root: string,
  files: ReadonlySet<string>,
  dataFiles: Pick<ReadonlyMap<string, DataFile>, 'get'>,
  parse: (file: string, text: string) => DataFile,
): KustomizeView {
  const read = new Map<string, DataFile | undefined>();
  const fromDisk = (rel: string): DataFile | undefined => {
    if (!files.has(rel)) return undefined;
    if (!read.has(rel)) {
      let text: string | undefined;
      try {
        text = readFileSync(join(root, rel), 'utf8');
      } catch {
        text = undefined; // A file that cannot be read is kustomize's to report.
      }
      read.set(rel, text === undefined ? undefined : parse(rel, text));
    }
    return read.get(rel);
  };
  return { files, dataFiles: { get: (rel) => dataFiles.get(rel) ?? fromDisk(rel) } };
}

export interface KustomizeInputs {
  /** Repository files the build reads, `/`-separated, relative to the root. */
  files: string[];
  /** Files reached through `components:`: shared by design, so two apps may consume them. */
  componentFiles: string[];
  /** What the build is made of: each kustomization, and each file it takes as a resource (never a patch, a generator's input or a CRD schema). */
  built: string[];
  /** Why the build cannot be judged at all (a remote git base). */
  unsupported?: string;
  /** Each chart a kustomization inflates (`helmCharts`; kustomize does so only with --enable-helm), and the folder kustomize looks for it in before it pulls it. */
  helmCharts: HelmChartEntry[];
  /** Remote files (https URLs) the build fetches: kustomize reads them when the network allows. */
  remote: string[];
  /**
   * Everything the build can read, for the render key: every file under every
   * folder it visits, and every file a field names (replacements, transformers,
   * generators, validators, configurations, openapi, JSON 6902 patches, env
   * files). Two trees share a render only when all of these match.
   */
  keyFiles: string[];
  /** Paths a kustomization names that leave the repository: Argo CD refuses the build. */
  outside: string[];
}

/**
 * One `helmCharts` entry: a chart from `repo` at `version`, which kustomize's inflator looks for in
 * `<chartHome>/<name>-<version>/<name>` below the kustomization (chartHome `charts`, or `helmGlobals.chartHome`) and
 * pulls there only where it is missing; with no repo, the chart at `<chartHome>/<name>` of the repository.
 */
export interface HelmChartEntry {
  file: string;
  /** Its place in the kustomization's `helmCharts` list. */
  index: number;
  name: string;
  repo?: string;
  version?: string;
  /** Where kustomize reads the chart from, relative to the repository's root. */
  chartDir: string;
}

function helmChartEntries(file: string, folder: string, k: Record<string, unknown>): HelmChartEntry[] {
  const globals = isMap(k.helmGlobals) ? k.helmGlobals : {};
  const home = typeof globals.chartHome === 'string' ? globals.chartHome : 'charts';
  // An absolute chart home is kustomize's as written: outside the repository, and refused by the walk.
  const base = posix.isAbsolute(home) ? posix.normalize(home) : posix.normalize(folder ? `${folder}/${home}` : home);
  return (Array.isArray(k.helmCharts) ? k.helmCharts : []).flatMap((c: unknown, index) => {
    if (!isMap(c) || typeof c.name !== 'string') return [];
    const repo = typeof c.repo === 'string' && c.repo ? c.repo : undefined;
    const version = typeof c.version === 'string' && c.version ? c.version : undefined;
    // kustomize 5.8 (HelmChartInflationGenerator absChartHome) files a chart under its version only when it pulls it
    // from a repository: a chart with a version and no repository is read at `<chartHome>/<name>`.
    const chartDir = version && repo ? `${base}/${c.name}-${version}/${c.name}` : `${base}/${c.name}`;
    return [{ file, index, name: c.name, ...(repo ? { repo } : {}), ...(version ? { version } : {}), chartDir }];
  });
}

const isRemote = (entry: string) => /^[a-z]+:\/\/|^git@|^github\.com\//i.test(entry);

export function kustomizationIn(view: KustomizeView, dir: string): string | undefined {
  return KUSTOMIZATION_FILES.map((name) => (dir ? `${dir}/${name}` : name)).find((rel) => view.files.has(rel));
}

type Kustomization = Record<string, unknown>;

/** A list field's entries: strings, or objects with a path (patches). */
const entriesOf = (k: Kustomization, key: string): string[] =>
  (Array.isArray(k[key]) ? (k[key] as unknown[]) : []).flatMap((e) => (typeof e === 'string' ? [e] : isMap(e) && typeof e.path === 'string' ? [e.path] : []));

/** The files a generator reads (files and envs; `key=file` names the file). */
const generatedFiles = (k: Kustomization, key: string): string[] =>
  (Array.isArray(k[key]) ? (k[key] as unknown[]) : [])
    .flatMap((g) => (isMap(g) ? [...(Array.isArray(g.files) ? g.files : []), ...(Array.isArray(g.envs) ? g.envs : [])] : []))
    .filter((f): f is string => typeof f === 'string')
    .map((f) => f.replace(/^[^=]*=/, ''));

/** Fields that name files kustomize reads, beyond resources and patches: each is part of the render's key. */
function namedFiles(k: Kustomization): string[] {
  const entries = (key: string) => entriesOf(k, key);
  return [
    ...(Array.isArray(k.replacements) ? k.replacements : []).flatMap((r) => (isMap(r) && typeof r.path === 'string' ? [r.path] : [])),
    ...['transformers', 'generators', 'validators', 'configurations'].flatMap((key) =>
      (Array.isArray(k[key]) ? (k[key] as unknown[]) : []).filter((e): e is string => typeof e === 'string' && !e.includes('\n') && !isRemote(e)),
    ),
    ...(isMap(k.openapi) && typeof k.openapi.path === 'string' ? [k.openapi.path] : []),
    ...entries('patchesJson6902'),
    ...['configMapGenerator', 'secretGenerator'].flatMap((key) =>
      (Array.isArray(k[key]) ? (k[key] as unknown[]) : []).flatMap((g) => (isMap(g) && typeof g.env === 'string' ? [g.env] : [])),
    ),
    // The values files a Helm chart is inflated with.
    ...(Array.isArray(k.helmCharts) ? (k.helmCharts as unknown[]) : []).flatMap((c) =>
      isMap(c)
        ? [c.valuesFile, ...(Array.isArray(c.additionalValuesFiles) ? c.additionalValuesFiles : [])].filter(
            (f): f is string => typeof f === 'string' && f !== '',
          )
        : [],
    ),
  ];
}

/** A walk, with each kustomization file it read and what the view held for it (undefined: nothing). */
interface Walked {
  inputs: KustomizeInputs;
  read: readonly (readonly [string, DataFile | undefined])[];
}

/** Walks kept for a file tree, by folder: the few a run's views made of it. */
const WALKS_KEPT = 4;
const walksOf = perObject((_files: ReadonlySet<string>) => new Map<string, Walked[]>());

/**
 * Walks a kustomization and everything it references, inside the repository. A walk reads the view's file tree and
 * its kustomization files, nothing else: another view of the same tree that holds the very same parsed
 * kustomizations (every check's view of a gate run holds them alike) gets the same walk, made once.
 */
export function kustomizeInputs(view: KustomizeView, dir: string): KustomizeInputs {
  const walks = walksOf(view.files);
  const known = walks.get(dir) ?? [];
  const same = known.find((w) => w.read.every(([file, data]) => view.dataFiles.get(file) === data));
  if (same) return same.inputs;
  const read: [string, DataFile | undefined][] = [];
  const recording: KustomizeView = {
    files: view.files,
    dataFiles: {
      get: (file) => {
        const data = view.dataFiles.get(file);
        read.push([file, data]);
        return data;
      },
    },
  };
  const inputs = walk(recording, dir);
  walks.set(dir, [{ inputs, read }, ...known].slice(0, WALKS_KEPT));
  return inputs;
}

/** A file tree in sorted order: the files under a folder are then one contiguous run of them. */
const sortedFiles = perObject((files: ReadonlySet<string>) => [...files].sort());

/** Every file of the view under `folder` ('' is the root): a binary search to the run, then the run. */
function filesUnder(view: KustomizeView, folder: string): string[] {
  const sorted = sortedFiles(view.files);
  if (folder === '') return sorted;
  const prefix = `${folder}/`;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < prefix) low = mid + 1;
    else high = mid;
  }
  let end = low;
  while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
  return sorted.slice(low, end);
}

/** The files a kustomization consumes as patches, CRDs and generator inputs, as it names them. */
const consumedEntries = (k: Record<string, unknown>): string[] => [
  ...entriesOf(k, 'patches'),
  ...entriesOf(k, 'patchesStrategicMerge'),
  ...entriesOf(k, 'crds'),
  ...generatedFiles(k, 'configMapGenerator'),
  ...generatedFiles(k, 'secretGenerator'),
];

function walk(view: KustomizeView, dir: string): KustomizeInputs {
  const files = new Set<string>();
  const componentFiles = new Set<string>();
  const built = new Set<string>();
  let unsupported: string | undefined;
  const helmCharts: HelmChartEntry[] = [];
  const remote: string[] = [];
  const keyFiles = new Set<string>();
  const outside: string[] = [];
  const seen = new Set<string>();
  const folders = new Set<string>();
  const visit = (folder: string, viaComponent: boolean): void => {
    const file = kustomizationIn(view, folder);
    if (!file || seen.has(`${file}#${viaComponent}`)) return;
    seen.add(`${file}#${viaComponent}`);
    files.add(file);
    built.add(file);
    folders.add(folder);
    if (viaComponent) componentFiles.add(file);
    // A file that does not parse is kustomize's to report, in its own words.
    const k = view.dataFiles.get(file)?.data;
    if (!isMap(k)) return;
    // The gate unpacks each chart at its folder: a chart home out of the repository is refused before anything is written.
    for (const c of helmChartEntries(file, folder, k)) {
      if (c.chartDir === '..' || c.chartDir.startsWith('../') || posix.isAbsolute(c.chartDir)) outside.push(`${file}: ${c.chartDir}`);
      helmCharts.push(c);
    }
    const entries = (key: string) => entriesOf(k, key);
    const local = (entry: string): string => {
      const rel = posix.normalize(folder ? `${folder}/${entry}` : entry);
      if (rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel)) outside.push(`${file}: ${entry}`);
      // The repository's root is '' here, as the walk names folders; normalize names it '.'.
      return rel === '.' ? '' : rel;
    };
    const named = namedFiles(k);
    for (const entry of named) {
      const rel = local(entry);
      if (kustomizationIn(view, rel)) visit(rel, viaComponent);
      else keyFiles.add(rel);
    }
    for (const [key, asComponent] of [
      ['resources', false],
      ['bases', false],
      ['components', true],
    ] as const) {
      for (const entry of entries(key)) {
        if (/^https:\/\/[^?]+\.ya?ml$/i.test(entry)) {
          remote.push(entry);
          continue;
        }
        if (isRemote(entry)) {
          unsupported ??= `${file} names the remote ${key} entry ${entry}, a git base the gate does not fetch`;
          continue;
        }
        const rel = local(entry);
        if (kustomizationIn(view, rel)) visit(rel, viaComponent || asComponent);
        else {
          files.add(rel);
          built.add(rel);
          if (viaComponent || asComponent) componentFiles.add(rel);
        }
      }
    }
    for (const rel of consumedEntries(k).map(local)) {
      files.add(rel);
      if (viaComponent) componentFiles.add(rel);
    }
  };
  visit(dir, false);
  for (const f of files) keyFiles.add(f);
  // Everything under a visited folder: a file no field names today may be named by the head of a diff.
  for (const folder of folders) for (const f of filesUnder(view, folder)) keyFiles.add(f);
  return {
    files: [...files].sort(),
    componentFiles: [...componentFiles].sort(),
    built: [...built].sort(),
    remote,
    keyFiles: [...keyFiles].sort(),
    outside,
    ...(unsupported ? { unsupported } : {}),
    helmCharts,
  };
}
