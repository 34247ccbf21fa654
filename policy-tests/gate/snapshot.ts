/**
 * A snapshot of what Argo CD would apply from one tree: every Application's
 * objects, plain and rendered with the gate's render tier (and its cache, so
 * a second ref costs only what changed). An Application that cannot be
 * rendered is kept apart with its cause and a fingerprint of its inputs, so
 * the diff can say whether that matters, and still report the rest.
 */
import { cidrFamily } from '../model/repository/node-network.ts';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  applications,
  refusesWipeOut,
  isThisRepo,
  normalizeSourcePath,
  owningApplication,
  sourceRefusals,
  sourceType,
  syncOptions,
  type ArgoApp,
} from '../model/argocd/argocd.ts';
import { checkoutView, kustomizeInputs } from '../model/argocd/kustomize.ts';
import { valueFilesOf } from '../model/argocd/source-files.ts';
import { localDependencies } from '../render/helm-dependencies.ts';
import { CHART_LOCK_FILE, dependencyCharts } from '../render/charts.ts';
import { disabledToolRefusals, jsonnetInputs, refusalsOf, submoduleRefusals, symlinkRefusals } from '../model/argocd/refusals.ts';
import { heldBackApps, heldBackWords } from '../model/controller/sync-windows.ts';
import { argocdSettings } from '../model/controller/resource-filter.ts';
import { ignoredFields, resolveJqExpressions, type IgnoredFields } from '../model/compare/ignore-differences.ts';
import { checkoutTree, type Repo } from '../model/repository/repo.ts';
import { groupOf } from '../model/core/manifest.ts';
import type { SourceRender } from '../model/argocd/rendered.ts';
import { crdSchemas, type JsonSchemaNode } from '../admission/index.ts';
import {
  applicationSetProblems,
  controllerComparison,
  madeBy,
  preservedMetadata,
  restrainedApplications,
  type PreservedMetadata,
} from '../model/appset/outcomes.ts';
import { loadTree, renderTree, renderWithBuiltinApis, type RenderedTree } from './pipeline.ts';
import { chartFaces, type ChartFace } from './chart-faces.ts';

/** What Argo CD would apply from one tree. */
export interface Snapshot {
  /** `app|group/kind|namespace|name` (Argo CD's resource key; the core group is empty) to the object as Argo CD would apply it. */
  objects: Map<
    string,
    {
      app: string;
      prune: boolean;
      object: Record<string, unknown>;
      /** The owning Application's syncOptions: how the sync writes the object (model/controller/sync-method.ts). */
      syncOptions?: readonly string[];
      /**
       * The fields Argo CD's comparison ignores (the Application's ignoreDifferences, argocd-cm's overrides;
       * ignore-differences.ts), where any does: a change to them alone leaves the app Synced. Under
       * RespectIgnoreDifferences=true (`respectIgnored`) the sync also sends them as the cluster holds them.
       */
      ignored?: IgnoredFields;
      respectIgnored?: boolean;
      /**
       * Where the base's snapshot holds the object too (SnapshotOptions.base): what the same settings ignore of the
       * base's object, as the normalizer runs them on the live object (a jq expression may select other fields there).
       */
      liveIgnored?: IgnoredFields;
      /** For an Application an ApplicationSet makes: the ApplicationSet's name (its controller writes it, no sync does). */
      madeBy?: string;
      /** For such an Application: the annotations and labels its controller keeps as the cluster holds them. */
      preserved?: PreservedMetadata;
    }
  >;
  /** `apiVersion/Kind` to the CRD schema the API server validates that kind with (rendered, plain or bundled). */
  schemas?: ReadonlyMap<string, { schema: JsonSchemaNode; source: string }>;
  /** Applications this tree could not render: the cause, and a fingerprint of their inputs. */
  unrendered?: ReadonlyMap<string, { cause: string; inputs: string }>;
  /** Every Application's input fingerprint. */
  fingerprints?: ReadonlyMap<string, string>;
  /** Applications with a chart that can read the API versions (it names them, or renders values through tpl). */
  capabilityReaders?: ReadonlySet<string>;
  /**
   * Those of them asked about (SnapshotOptions.judgeApis) whose render differs when the chart sees the cluster's
   * built-in API versions alone (or fails then): what they make depends on the APIs the cluster serves. The others
   * asked about render the same either way.
   */
  apiDependent?: ReadonlySet<string>;
  /**
   * Each chart source's version, defaults, and what the repository sets of them (chart-faces.ts), a wrapper chart's
   * fetched dependencies among them, by Application and chart: what a chart bump shows.
   */
  charts?: ReadonlyMap<string, ChartFace>;
  /** Applications their AppProject's sync windows hold back, and when they sync on their own (model/controller/sync-windows.ts). */
  heldBack?: ReadonlyMap<string, string>;
  /**
   * Applications an ApplicationSet makes whose controller policy keeps it from updating or deleting them, by name,
   * with that policy (`create-only`, `create-update`, `create-delete`; model/appset/outcomes.ts).
   */
  restrained?: ReadonlyMap<string, string>;
  /** The IP families of the cluster's Service range (nodeNetwork.services in the cluster facts), the default first. */
  serviceFamilies?: readonly string[];
  /**
   * Applications whose automated sync prunes but never prunes every resource it manages (syncPolicy.automated.allowEmpty
   * is not true): where one renders nothing, Argo CD skips its sync ("auto-sync will wipe out all resources").
   */
  refusesWipeOut?: ReadonlySet<string>;
}

/**
 * Everything an Application's render depends on in this tree: the
 * Application itself, every file under its sources' paths, its value files
 * (those its `$ref` sources lend too), what its kustomizations and jsonnet
 * read beyond its folder, its chart's file:// dependencies, and the lock where
 * its chart's build fetches a dependency. Equal
 * fingerprints on both refs mean the render would be the same, whatever
 * stopped it.
 */
function inputsFingerprint(repo: Repo, app: ArgoApp): string {
  const h = createHash('sha256').update(JSON.stringify(app.resource.object));
  const files = new Set<string>();
  const under = (folder: string, paths: Iterable<string>) => {
    for (const f of paths) if (folder === '' || f.startsWith(`${folder}/`)) files.add(f);
  };
  for (const source of app.sources) {
    const path = normalizeSourcePath(source.path ?? '');
    // A chart folder from git's list of the checkout (it may lie outside the manifest roots); any other folder from them.
    if (source.path !== undefined) under(path, isThisRepo(repo, source) && sourceType(repo, source) === 'helm-path' ? checkoutTree(repo) : repo.files);
    // What the render reads beyond the source's folder: value files, a kustomization's bases and components, jsonnet's
    // library paths, a chart's file:// dependencies. Too much is safe here (the diff fails where nothing changed); too
    // little would let a change pass unjudged.
    for (const v of valueFilesOf(repo, app, source)) if ('rel' in v) files.add(v.rel);
    if (source.path === undefined || !isThisRepo(repo, source)) continue;
    const type = sourceType(repo, source);
    if (type === 'kustomize') for (const f of kustomizeInputs(checkoutView(repo), path).keyFiles) files.add(f);
    if (type === 'directory') for (const f of jsonnetInputs(repo, source)) files.add(f);
    // A dependency may lie outside the manifest roots: git's list of the checkout.
    if (type === 'helm-path') for (const dep of dependencyFolders(repo, path)) under(dep, checkoutTree(repo));
    // A dependency the build fetches renders from the archive the lock pins: the lock is an input too.
    if (type === 'helm-path' && dependencyCharts(repo, source).length) files.add(CHART_LOCK_FILE);
  }
  // A kustomization names folders as well as files: a folder's own files are listed beside it.
  hashFiles(h, repo, [...files].sort());
  return h.digest('hex');
}

/** Each path into `h`, with the file's bytes, or what it is where it is no file (a folder, missing). */
function hashFiles(h: ReturnType<typeof createHash>, repo: Repo, paths: readonly string[]): void {
  for (const f of paths) {
    const stat = statSync(join(repo.root, f), { throwIfNoEntry: false });
    h.update(`\0${f}\0`).update(stat?.isFile() ? readFileSync(join(repo.root, f)) : stat ? 'folder' : 'missing');
  }
}

/** An ApplicationSet's inputs: its own object, the folders its directories generator took (`a/b/`), and the files it read, by content. */
function setInputs(repo: Repo, object: unknown, reads: readonly string[]): string {
  const h = createHash('sha256').update(JSON.stringify(object));
  hashFiles(h, repo, reads);
  return h.digest('hex');
}

/** A chart folder's file:// dependencies inside the repository (one outside it fails the render, which says so). */
function dependencyFolders(repo: Repo, dir: string): string[] {
  try {
    return localDependencies(repo, dir);
  } catch {
    return [];
  }
}

/** What a snapshot works out beyond what Argo CD applies. */
export interface SnapshotOptions {
  /**
   * Which capability-reading Applications to render again with the built-in API versions alone (`apiDependent`), by
   * name and input fingerprint: the diff asks only of those whose inputs changed. All of them when not given.
   */
  judgeApis?: (app: string, fingerprint: string) => boolean;
  /** The base's snapshot, where this one is a diff's head: the ignored fields are also worked out on its objects (`liveIgnored`). */
  base?: Snapshot;
}

/**
 * What each object's ignore settings leave out of the base's object too: Argo CD's normalizer runs them on the live
 * object as on the target, and a jq expression may select other fields of each.
 */
async function ignoredOnLive(
  objects: Snapshot['objects'],
  base: Snapshot,
  comparisons: ReadonlyMap<string, Comparison>,
  argocdCm: Record<string, unknown> | undefined,
): Promise<void> {
  const pairs = [...objects].flatMap(([id, entry]) => {
    const live = base.objects.get(id);
    const comparison = comparisons.get(id)!;
    // Where either side's settings ignore anything of the object (the other side's may select nothing of its own).
    return live && (entry.ignored || live.ignored) ? [{ entry, object: live.object, appSpec: comparison.spec, argocdCm: comparison.argocdCm }] : [];
  });
  if (!pairs.length) return;
  await resolveJqExpressions(() => pairs, [], argocdCm);
  for (const pair of pairs) pair.entry.liveIgnored = ignoredFields(pair.object, pair.appSpec, pair.argocdCm);
}

/** The ignore settings Argo CD compares an object by: its app's spec and argocd-cm's overrides, or a controller's own. */
interface Comparison {
  spec: unknown;
  argocdCm?: Record<string, unknown>;
}

export async function snapshot(root: string, env: NodeJS.ProcessEnv = process.env, options: SnapshotOptions = {}): Promise<Snapshot> {
  // The gate's own pipeline: the diff shows what the gate judged.
  const loaded = await loadTree(root, { env });
  const tree = await renderTree(loaded, env);
  const { layer, renders, repo } = tree;
  const failed = new Map<string, string>();
  const fail = (app: string, cause: string) => failed.set(app, [failed.get(app), cause].filter(Boolean).join('; '));
  for (const r of renders) if (r.status !== 'rendered') fail(r.app.name, `${r.label}: ${r.message ?? r.status}`);
  // What Argo CD would merge or evaluate and the gate does not (model/argocd/refusals.ts): this side cannot vouch for the app.
  for (const app of applications(repo)) for (const refusal of refusalsOf(repo, app)) if (refusal.unread) fail(app.name, refusal.message);
  // Nor for a source Argo CD refuses before reading it (its path, its ref keys), whose files the gate still reads.
  for (const app of applications(repo)) for (const { message } of sourceRefusals(repo, app)) fail(app.name, message);
  // A tool argocd-cm turns off changes what Argo CD makes of an app whose own files stay: the switch is an input too.
  const switched = new Map<string, string>();
  for (const { key, apps, message } of disabledToolRefusals(repo, argocdSettings(repo.resources, repo)?.data))
    for (const app of apps) {
      fail(app, message);
      switched.set(app, `${switched.get(app) ?? ''}\0${key}`);
    }
  const unrendered = new Map<string, { cause: string; inputs: string }>();
  for (const app of applications(repo))
    if (failed.has(app.name))
      unrendered.set(app.name, { cause: failed.get(app.name)!, inputs: `${inputsFingerprint(repo, app)}${switched.get(app.name) ?? ''}` });
  // An ApplicationSet the gate could not expand, or Argo CD fails (it keeps what it made before): one that changed fails the diff, as an app that cannot be rendered.
  for (const { resource, message, reads } of applicationSetProblems(repo))
    unrendered.set(`ApplicationSet ${resource.name}`, { cause: message, inputs: setInputs(repo, resource.object, reads) });
  // A symlink Argo CD's repo-server refuses fails every source of the repository: one that came fails the diff.
  for (const { file, message } of symlinkRefusals(repo)) unrendered.set(`symlink ${file}`, { cause: message, inputs: file });
  // Nor is what a submodule brings into Argo CD's checkout: one that came or moved fails the diff the same way.
  const fetched = submoduleRefusals(repo).length > 0;
  for (const s of fetched ? (repo.checkout?.submodules ?? []) : [])
    if (s.gitlink !== false) unrendered.set(`submodule ${s.path}`, { cause: `Argo CD's checkout fetches it (.gitmodules)`, inputs: JSON.stringify(s) });
  const scopes = layer.withCrds(repo.resources.filter((r) => r.kind === 'CustomResourceDefinition'));
  const objects: Snapshot['objects'] = new Map();
  const comparisons = new Map<string, Comparison>();
  const argocdCm = argocdSettings(repo.resources, repo)?.data;
  for (const r of repo.resources) {
    const app = owningApplication(repo, r);
    if (!app) continue;
    const clusterScoped = r.kind === 'CustomResourceDefinition' || scopes.isClusterScoped(r.apiVersion, r.kind);
    const namespace = clusterScoped ? '' : (r.namespace ?? app.destinationNamespace ?? '');
    // Argo CD's resource key: group, kind, namespace and name, no version (a CR moved to a new version is updated).
    const options = syncOptions(app);
    // An Application an ApplicationSet made is written by its controller, which keeps what it ignores as the cluster holds it.
    const made = madeBy(r);
    const controller = controllerComparison(r);
    const comparison = controller ? { spec: controller } : { spec: app.resource.object.spec, argocdCm };
    const ignored = ignoredFields(r.object, comparison.spec, comparison.argocdCm);
    const id = `${app.name}|${groupOf(r.apiVersion)}/${r.kind}|${namespace}|${r.name}`;
    comparisons.set(id, comparison);
    objects.set(id, {
      app: app.name,
      prune: app.automated?.prune === true,
      object: r.object,
      syncOptions: options,
      ...(made ? { madeBy: made.set.name, preserved: preservedMetadata(repo, made.set) } : {}),
      ...(ignored.pointers.length || ignored.unread.length
        ? { ignored, respectIgnored: controller !== undefined || options.includes('RespectIgnoreDifferences=true') }
        : {}),
    });
  }
  if (options.base) await ignoredOnLive(objects, options.base, comparisons, argocdCm);
  // Every Application's fingerprint, so one rendered on one side only still compares.
  const fingerprints = new Map(applications(repo).map((a) => [a.name, inputsFingerprint(repo, a)]));
  const capabilityReaders = new Set(renders.filter((r) => r.chart?.readsApiVersions && r.status === 'rendered').map((r) => r.app.name));
  const judged = new Set([...capabilityReaders].filter((app) => options.judgeApis?.(app, fingerprints.get(app) ?? '') ?? true));
  const apiDependent = await dependOnApis(tree, renders, judged, env);
  const projects = repo.resources.filter((r) => r.kind === 'AppProject');
  const heldBack = new Map([...heldBackApps(projects, applications(repo))].map(([app, held]) => [app, heldBackWords(held)]));
  const range = repo.facts?.nodeNetwork?.services;
  const family = range === undefined ? undefined : cidrFamily(range);
  const serviceFamilies = family ? [family] : undefined;
  return {
    objects,
    schemas: crdSchemas(repo.resources),
    unrendered,
    fingerprints,
    capabilityReaders,
    apiDependent,
    charts: chartFaces(renders, repo),
    heldBack,
    restrained: restrainedApplications(repo),
    ...(serviceFamilies ? { serviceFamilies } : {}),
    refusesWipeOut: new Set(
      applications(repo)
        .filter(refusesWipeOut)
        .map((a) => a.name),
    ),
  };
}

/** The Applications among `readers` whose objects differ, or that fail, when rendered with the built-in API versions alone. */
async function dependOnApis(tree: RenderedTree, renders: readonly SourceRender[], readers: ReadonlySet<string>, env: NodeJS.ProcessEnv): Promise<Set<string>> {
  if (readers.size === 0) return new Set();
  const objectsOf = (list: readonly SourceRender[], app: string) =>
    list
      .filter((r) => r.app.name === app)
      .map((r) => (r.status === 'rendered' ? JSON.stringify(r.resources.map((x) => x.object)) : `failed: ${r.message ?? ''}`));
  const bare = await renderWithBuiltinApis(tree, [...readers], env);
  return new Set([...readers].filter((app) => JSON.stringify(objectsOf(renders, app)) !== JSON.stringify(objectsOf(bare, app))));
}
