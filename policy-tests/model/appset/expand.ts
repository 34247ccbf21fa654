/**
 * The Applications Argo CD's ApplicationSet controller makes from each ApplicationSet the repository applies
 * (applicationset/controllers/template GenerateApplications, v3.5.1), put into the repository as Applications it
 * declares, so that everything the gate judges an Application by, and renders it with, judges them too. An
 * ApplicationSet the gate cannot expand as Argo CD would is left out and said: its outcome is read by
 * `argocd-applied-files` (model/appset/outcomes.ts) and by the rendered diff, never taken as fine.
 */
import type { ParsedFile, Resource } from '../core/manifest.ts';
import type { PathSegment } from '../core/positions.ts';
import { dig, isMap, obj, type Obj } from '../core/dig.ts';
import type { Repo } from '../repository/repo.ts';
import { argocdNamespace, namespaceOrDestination, owningApplication, ownersByFile } from '../argocd/argocd.ts';
import { APPSET_DRY_RUN_KEY, argocdCmdParams, cmdParamsList, cmdParamsSwitch } from '../argocd/refusals.ts';
import { matchStringInList } from '../core/glob.ts';
import type { Params } from './params.ts';
import { generatorBody, generatorParams, type Run } from './generators.ts';
import { generatorTemplate, isEmpty } from './generator-template.ts';
import { GeneratorError, renderObjects, renderStrings, Unjudged, type GoTemplateEngine, type TemplateMode } from './renderer.ts';
import { applyTemplatePatch } from './template-patch.ts';
import { generatedApplicationErrors, qualifiedName } from './validation.ts';
import { destinationOf, knownClusters } from '../argocd/clusters.ts';
import { isApplicationSet, madeBy, outcomeOf, recordOutcome, type SetOutcome } from './outcomes.ts';

export type { GoTemplateEngine, GoTemplateJob } from './renderer.ts';

const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

/**
 * The repository with every Application its ApplicationSets make. `engine` renders `goTemplate` strings; without
 * one (--no-render), an ApplicationSet that needs it is not judged.
 */
export async function expandApplicationSets(
  repo: Repo,
  engine: GoTemplateEngine | undefined,
  sets: readonly Resource[] = repo.resources.filter(isApplicationSet),
): Promise<Repo> {
  if (sets.length === 0) return repo;
  const outcomes: SetOutcome[] = [];
  for (const set of sets) {
    const outcome = await expandOne(repo, set, engine);
    recordOutcome(repo, set, outcome);
    outcomes.push(outcome);
  }
  const groups = sets.flatMap((set, i) => madeGroup(set, outcomes[i]!.apps));
  const expanded = { ...repo, parsed: [...repo.parsed, ...groups], resources: [...repo.resources, ...groups.flatMap((g) => g.resources)] };
  return withParameterFiles(expanded, outcomes);
}

/** What an ApplicationSet made, as resources of its file that the app applying the file rendered (none: no group). */
function madeGroup(set: Resource, made: Resource[]): ParsedFile[] {
  return made.length === 0 ? [] : [{ file: set.file, resources: made, findings: [], text: '', renderedBy: made[0]!.rendered!.app }];
}

/**
 * The repository as renders leave it, with what each ApplicationSet in it makes. One a render makes (a chart's
 * template) or changes (a kustomization that does more than set its namespace) is expanded as the controller expands
 * it; the Applications made of one a render changed away are dropped, as the controller never sees it as written; and
 * those of an ApplicationSet expanded before are put back where a later view of the repository lost them.
 */
export async function withRenderedApplicationSets(repo: Repo, engine: GoTemplateEngine | undefined): Promise<Repo> {
  const sets = repo.resources.filter(isApplicationSet);
  if (sets.length === 0) return repo;
  const expanded = await expandApplicationSets(
    repo,
    engine,
    sets.filter((set) => !outcomeOf(repo, set)),
  );
  const kept = new Set(sets.flatMap((set) => outcomeOf(expanded, set)?.apps ?? []));
  const present = new Set(expanded.resources);
  const lost = sets.flatMap((set) =>
    madeGroup(
      set,
      (outcomeOf(expanded, set)?.apps ?? []).filter((app) => !present.has(app)),
    ),
  );
  const stale = (r: Resource) => madeBy(r) !== undefined && !kept.has(r);
  if (lost.length === 0 && !expanded.resources.some(stale)) return expanded;
  const parsed = [...expanded.parsed.map((p) => (p.resources.some(stale) ? { ...p, resources: p.resources.filter((r) => !stale(r)) } : p)), ...lost];
  return { ...expanded, parsed, resources: parsed.flatMap((p) => p.resources) };
}

/**
 * The files a git files generator reads are its parameters, not manifests (Argo CD's controller reads them; no
 * Application applies them): such a file is data, whatever folder holds it. One an Application applies stays a
 * manifest, for Argo CD applies it too.
 */
function withParameterFiles(repo: Repo, outcomes: readonly SetOutcome[]): Repo {
  const read = new Set(outcomes.flatMap((o) => o.reads.filter((f) => !f.endsWith('/'))));
  const manifests = repo.manifestFiles.filter((f) => read.has(f));
  if (manifests.length === 0) return repo;
  const owners = ownersByFile(repo);
  const data = new Set(manifests.filter((f) => !owners.has(f)));
  if (data.size === 0) return repo;
  return {
    ...repo,
    manifestFiles: repo.manifestFiles.filter((f) => !data.has(f)),
    nonManifestFiles: [...repo.nonManifestFiles, ...data].sort(),
    parsed: repo.parsed.filter((p) => !data.has(p.file)),
    resources: repo.resources.filter((r) => !data.has(r.file)),
  };
}

/**
 * The namespaces the ApplicationSet controller watches: its own, Argo CD's, and those
 * applicationsetcontroller.namespaces names (ignoreNotAllowedNamespaces, IsNamespaceAllowed: globs or /regexes/).
 */
function unwatchedNamespace(repo: Repo, set: Resource): string | undefined {
  const home = argocdHome(repo);
  const namespace = namespaceOrDestination(repo, set) ?? home;
  const more = cmdParamsList(repo, 'applicationsetcontroller.namespaces');
  // With namespaces beyond its own, the controller refuses to start while SCM providers are on and none is listed.
  if (
    more.length > 0 &&
    cmdParamsSwitch(repo, 'applicationsetcontroller.enable.scm.providers', true) &&
    cmdParamsList(repo, 'applicationsetcontroller.allowed.scm.providers').length === 0
  )
    return 'argocd-cmd-params-cm sets applicationsetcontroller.namespaces, and leaves SCM providers on with none allowed (applicationsetcontroller.enable.scm.providers, applicationsetcontroller.allowed.scm.providers): the controller exits at start ("you must either set --enable-scm-providers=false or specify --allowed-scm-providers")';
  const watched = [home, ...more];
  return matchStringInList(watched, namespace)
    ? undefined
    : `it lives in namespace ${namespace}, and the controller watches ${watched.join(', ')} (argocd-cmd-params-cm applicationsetcontroller.namespaces)`;
}

async function expandOne(repo: Repo, set: Resource, engine: GoTemplateEngine | undefined): Promise<SetOutcome> {
  const reads: string[] = [];
  const ignored = unwatchedNamespace(repo, set);
  if (ignored) return { apps: [], reads, ignored };
  const rolling = rollingSync(repo, obj(set.object.spec));
  try {
    const { valid: apps, refused } = validated(repo, set, await applicationsOf(repo, set, engine, { reads, rolling }), argocdHome(repo));
    return { apps, reads, policy: applicationsSyncPolicy(repo, obj(set.object.spec)), ...(rolling ? { rolling } : {}), ...(refused.length ? { refused } : {}) };
  } catch (err) {
    if (err instanceof Unjudged) return { apps: [], reads, unjudged: err.message };
    if (err instanceof GeneratorError) return { apps: [], reads, fails: err.message };
    throw err;
  }
}

/**
 * The Applications the controller makes of those it generated (validation.ts): those it refuses (a name made twice, a
 * project or a destination Argo CD does not know) are left out, each refusal said in its words.
 */
function validated(repo: Repo, set: Resource, apps: Resource[], home: string): { valid: Resource[]; refused: string[] } {
  const generatedApps = apps.map((app) => {
    const project = obj(app.object.spec).project;
    return { name: app.name, namespace: app.namespace ?? '', project: typeof project === 'string' ? project : '', destination: destinationOf(app.object) };
  });
  const { clusters, written } = knownClusters(repo);
  const projects = new Set([
    DEFAULT_PROJECT,
    ...repo.resources.filter((r) => r.kind === 'AppProject' && namespaceOrDestination(repo, r) === home).map((r) => r.name),
  ]);
  const errors = generatedApplicationErrors(set.name, generatedApps, { projects, clusters, clustersWritten: written });
  return {
    valid: apps.filter((_, i) => !errors.has(qualifiedName(generatedApps[i]!))),
    refused: [...errors].map(([name, error]) => `${name}: ${error}`),
  };
}

/** Argo CD's namespace, where its controllers run and read AppProjects: `argocd` where no root app says. */
const argocdHome = (repo: Repo): string => argocdNamespace(repo) ?? 'argocd';

/** The project argocd-server makes at its start where it is missing (initializeDefaultProject): it always exists. */
const DEFAULT_PROJECT = 'default';

async function applicationsOf(
  repo: Repo,
  set: Resource,
  engine: GoTemplateEngine | undefined,
  { reads, rolling }: { reads: string[]; rolling: boolean },
): Promise<Resource[]> {
  const spec = obj(set.object.spec);
  // The controller's client writes as a dry run (controller-runtime's DryRun): no Application is created, changed or deleted.
  if (cmdParamsSwitch(repo, APPSET_DRY_RUN_KEY))
    throw new Unjudged(
      `argocd-cmd-params-cm's ${APPSET_DRY_RUN_KEY} is true: the controller writes no Application, so what this one would make never reaches the cluster, and what the cluster holds of it is not in the repository`,
    );
  // A watched namespace (unwatchedNamespace): the Applications it makes live there too (template.go), for the
  // application controller and their projects to admit or not (argocd-sync-policy).
  const namespace = namespaceOrDestination(repo, set) ?? argocdHome(repo);
  if (spec.templatePatch !== undefined && typeof spec.templatePatch !== 'string') throw new Unjudged('its templatePatch is not a text');
  const mode: TemplateMode = {
    goTemplate: spec.goTemplate === true,
    options: Array.isArray(spec.goTemplateOptions) ? spec.goTemplateOptions.map(String) : [],
    engine,
  };
  const run: Run = { repo, mode, reads };
  const generators = Array.isArray(spec.generators) ? spec.generators : [];
  const template = obj(spec.template);
  // Each generator's sets are rendered with its own template merged over the ApplicationSet's (Transform); those of
  // generators one after another with none of their own, in one call.
  const groups: { template: Obj; sets: Params[]; own?: OwnTemplate }[] = [];
  for (const [i, generator] of generators.entries()) {
    const own = await generatorParams(run, obj(generator), `generator ${i}`);
    const used = generatorTemplate(generatorBody(obj(generator)), template);
    const last = groups.at(-1);
    if (last?.template === used) last.sets.push(...own);
    else groups.push({ template: used, sets: [...own], ...(used === template ? {} : { own: ownTemplate(obj(generator), i) }) });
  }
  const sets = groups.flatMap((g) => g.sets);
  const rendered: Obj[] = [];
  const ownOf: (OwnTemplate | undefined)[] = [];
  for (const g of groups) {
    rendered.push(...((await renderObjects(mode, g.template, g.sets)) as Obj[]));
    ownOf.push(...g.sets.map(() => g.own));
  }
  const preserve = obj(spec.syncPolicy).preserveResourcesOnDeletion === true;
  // The patch's text is rendered with each set like any string of the template, then applied (template-patch.ts).
  const patch = spec.templatePatch as string | undefined;
  const patches =
    patch === undefined
      ? undefined
      : await renderStrings(
          mode,
          sets.map((params) => ({ template: patch, params })),
        );
  const owner = owningApplication(repo, set)?.name ?? '';
  return rendered.map((made, i) => {
    // The finalizer is added to a template that names none, unless resources are preserved; an empty set renders nothing and adds none.
    const metadata = obj(made.metadata);
    const named = Array.isArray(metadata.finalizers) && metadata.finalizers.length > 0;
    const finalizers = named || preserve || Object.keys(sets[i]!).length === 0 ? metadata.finalizers : [RESOURCES_FINALIZER];
    const app: Obj = { metadata: { ...metadata, ...(finalizers === undefined ? {} : { finalizers }) }, spec: made.spec ?? {} };
    const patched = patches ? applyTemplatePatch(app, patches[i]!) : app;
    return generated(set, rolling ? withoutAutomatedSync(patched) : patched, i, { owner, namespace, own: ownOf[i] });
  });
}

/**
 * Whether the controller syncs the Applications step by step (progressivesync RollingSyncStrategyEnabled, with
 * argocd-cmd-params-cm's applicationsetcontroller.enable.progressive.syncs true, false by default): a RollingSync
 * strategy with steps.
 */
function rollingSync(repo: Repo, spec: Obj): boolean {
  if (!cmdParamsSwitch(repo, 'applicationsetcontroller.enable.progressive.syncs')) return false;
  const strategy = obj(spec.strategy);
  return strategy.type === 'RollingSync' && Array.isArray(obj(strategy.rollingSync).steps) && (obj(strategy.rollingSync).steps as unknown[]).length > 0;
}

/** The controller's policies (utils/policy.go): `sync`, the default, creates, updates and deletes. */
const POLICIES = new Set(['create-only', 'create-update', 'create-delete', 'sync']);

/**
 * What the controller may do to the Applications an ApplicationSet made (DefaultPolicy): argocd-cmd-params-cm's
 * applicationsetcontroller.policy, unless the ApplicationSet's syncPolicy.applicationsSync overrides it, which it may
 * where applicationsetcontroller.enable.policy.override is true (by default, when no controller policy is set).
 */
function applicationsSyncPolicy(repo: Repo, spec: Obj): string {
  const params = obj(argocdCmdParams(repo));
  const controller = typeof params['applicationsetcontroller.policy'] === 'string' ? params['applicationsetcontroller.policy'] : '';
  const override = cmdParamsSwitch(repo, 'applicationsetcontroller.enable.policy.override', controller === '');
  const own = obj(spec.syncPolicy).applicationsSync;
  const chosen = override && typeof own === 'string' ? own : controller;
  return POLICIES.has(chosen) ? chosen : 'sync';
}

/** A RollingSync's Application: its automated sync turned off (disableAutomatedSync), the controller syncing it instead. */
function withoutAutomatedSync(app: Obj): Obj {
  const spec = obj(app.spec);
  const policy = obj(spec.syncPolicy);
  if (!isMap(policy.automated)) return app;
  return { ...app, spec: { ...spec, syncPolicy: { ...policy, automated: { ...policy.automated, enabled: false } } } };
}

/** A generator's own template, and where it stands in the ApplicationSet. */
interface OwnTemplate {
  template: Obj;
  at: PathSegment[];
}

function ownTemplate(generator: Obj, index: number): OwnTemplate {
  const kind = Object.keys(generator).find((k) => k !== 'selector' && generator[k] !== null) ?? '';
  return { template: obj(generatorBody(generator).template), at: ['spec', 'generators', index, kind, 'template'] };
}

/**
 * Where a path of a made Application sits in the ApplicationSet: under the generator's own template where that
 * template writes it and mergo kept it (a value it leaves empty takes the ApplicationSet's), else under the
 * ApplicationSet's.
 */
function templatePath(path: readonly PathSegment[], own: OwnTemplate | undefined): PathSegment[] {
  if (path[0] === 'apiVersion' || path[0] === 'kind') return [...path];
  if (own && path.length > 0 && !isEmpty(dig(own.template, path))) return [...own.at, ...path];
  return ['spec', 'template', ...path];
}

/** A made Application, as a resource of the ApplicationSet's file that the app applying the file rendered. */
function generated(set: Resource, made: Obj, index: number, { owner, namespace, own }: { owner: string; namespace: string; own?: OwnTemplate }): Resource {
  const metadata = obj(made.metadata);
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const object = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    // The ApplicationSet's namespace, whatever the template says (the appsets-in-any-namespace boundary).
    metadata: { ...metadata, name, namespace },
    spec: made.spec,
  };
  return {
    file: set.file,
    doc: set.doc,
    ...(set.item === undefined ? {} : { item: set.item }),
    apiVersion: object.apiVersion,
    kind: object.kind,
    name,
    namespace,
    object,
    positions: { at: (path, target) => set.positions.at(templatePath(path, own), target) },
    rendered: { id: `ApplicationSet/${set.name}#${index}`, app: owner, source: `ApplicationSet ${set.name}` },
  };
}
