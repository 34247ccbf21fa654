/**
 * AppProjects that mean something: each project allows what its apps render
 * (destinations, cluster-scoped kinds, and no blacklisted namespaced kind),
 * and not far more (no wildcard kinds, no destination or kind that none of
 * its apps uses, judged when every app of the project is rendered).
 */
import { applications, argoNormalizeGitURL, owningApplication, rootApplication, sourcePermitted, syncOptions } from '../model/argocd/argocd.ts';
import { destinationCluster, knownClusters } from '../model/argocd/clusters.ts';
import { destinationPermitted, kindPermitted, virtualProject, type ProjectSpec } from '../model/controller/projects.ts';
import { ARGOCD_CM_PATCH, argocdSettings } from '../model/controller/resource-filter.ts';
import { argoGlobMatch, goFilepathMatch } from '../model/core/glob.ts';
import { groupOf, type Resource } from '../model/core/manifest.ts';
import { type CheckContext, type PolicyCheck, type Area, type CheckEnvironment } from '../model/checks/kit.ts';
import { scalarText } from '../model/core/text.ts';
import { obj, objects } from '../model/core/dig.ts';
import { emptyEntries, installedKinds, servedKinds } from '../model/controller/served-kinds.ts';

interface GroupKind {
  group: string;
  kind: string;
}

interface Project {
  resource: Resource;
  /** The project as written: what the house policy holds to use. */
  destinations: { namespace: string }[];
  clusterWhitelist: GroupKind[];
  /** The project as Argo CD syncs with it, its global projects merged in: what decides a refusal. */
  virtual: ProjectSpec;
}

/** An entry of a list of kinds matches as isResourceInList matches it: kind and group by filepath.Match. */
const matches = (entry: GroupKind, group: string, kind: string) => goFilepathMatch(entry.kind, kind) && goFilepathMatch(entry.group, group);

/** Every project, as written and as Argo CD syncs with it (GetAppVirtualProject: argocd-cm's globalProjects merged in). */
function readProjects(ctx: { resources: readonly Resource[]; repo: Parameters<typeof argocdSettings>[1] }): Map<string, Project> {
  const all = ctx.repo.resources.filter((r) => r.kind === 'AppProject');
  const argocdCm = argocdSettings(ctx.resources, ctx.repo)?.data;
  return new Map(
    all.map((r) => {
      const spec = (r.object.spec ?? {}) as Record<string, unknown>;
      const project: Project = {
        resource: r,
        destinations: objects(spec.destinations).map((d) => ({ namespace: scalarText(d.namespace ?? '') })),
        clusterWhitelist: objects(spec.clusterResourceWhitelist).map((e) => ({ group: scalarText(e.group ?? ''), kind: scalarText(e.kind ?? '') })),
        virtual: virtualProject(r, all, argocdCm),
      };
      return [r.name, project];
    }),
  );
}

/** Argo CD refuses an Application whose source its project's sourceRepos do not permit. */
const projectSourcesCheck: PolicyCheck = {
  id: 'argocd-project-sources',
  description:
    "Argo CD syncs an Application only from repositories its AppProject's sourceRepos permit (globs, `!` denials, URLs normalised as Argo CD normalises them): every project with apps permits this repository (the cluster facts' repoURL), and every source of every Application is permitted by its project (invariants P1).",
  invariants: ['P1'],
  remediation: "add the repository URL (as the Application writes it, or a glob that matches it) to the project's sourceRepos in clusters/home/projects.yaml",
  reads: { kinds: ['Application', 'AppProject', 'ConfigMap'], files: [ARGOCD_CM_PATCH] },
  exemptible: false,
  run(ctx) {
    const { repo } = ctx;
    const projects = readProjects(ctx);
    const thisRepo = repo.facts?.repoURL;
    // The root cause first: a project that does not permit this repository refuses every app of it that reads
    // this repository, so those apps are not reported again.
    const refusesThisRepo = new Set<string>();
    const apps = applications(repo);
    for (const [name, project] of projects) {
      if (!thisRepo || !apps.some((a) => a.project === name)) continue;
      if (sourcePermitted(project.virtual.sourceRepos, thisRepo)) continue;
      refusesThisRepo.add(name);
      ctx.fail(
        { resource: project.resource, path: project.virtual.sourceRepos.length ? ['spec', 'sourceRepos'] : ['spec'] },
        `project ${name} does not permit this repository (${thisRepo}, the cluster facts' repoURL) in sourceRepos: Argo CD refuses to sync every app of it`,
      );
    }
    for (const app of apps) {
      const project = projects.get(app.project);
      if (!project) continue;
      for (const source of app.sources) {
        if (!source.repoURL || sourcePermitted(project.virtual.sourceRepos, source.repoURL)) continue;
        if (thisRepo && refusesThisRepo.has(app.project) && argoNormalizeGitURL(source.repoURL) === argoNormalizeGitURL(thisRepo)) continue;
        ctx.fail(
          { resource: app.resource, path: [...source.at, 'repoURL'] },
          `app ${app.name} reads ${source.repoURL}, which project ${app.project} does not permit in sourceRepos: Argo CD refuses to sync it`,
        );
      }
    }
  },
};

type Use = Map<string, { namespaces: Set<string>; kinds: Set<string> }>;

/** GetProjectClusters: the clusters whose Secret scopes them to the project. */
const clustersOf = (clusters: Clusters, project: string) => clusters.filter((c) => c.project === project);
type Clusters = Parameters<typeof destinationCluster>[1];

/**
 * ValidatePermissions: an Application whose destination its project does not permit never syncs (InvalidSpecError).
 * A destination that resolves to no cluster, or names no namespace, is argocd-destination's and
 * argocd-destination-namespace's to report.
 */
function refusedDestinations(ctx: CheckContext, projects: ReadonlyMap<string, Project>, clusters: Clusters): void {
  for (const app of applications(ctx.repo)) {
    const project = projects.get(app.project);
    const cluster = destinationCluster(app, clusters);
    if (
      !project ||
      !cluster ||
      !app.destinationNamespace ||
      destinationPermitted(project.virtual, cluster, app.destinationNamespace, clustersOf(clusters, app.project))
    )
      continue;
    ctx.fail(
      { resource: app.resource, path: ['spec', 'destination'] },
      `application destination server '${cluster.server}' and namespace '${app.destinationNamespace}' do not match any of the allowed destinations in project '${app.project}': Argo CD never syncs Application ${app.name} (InvalidSpecError)`,
    );
  }
}

/**
 * CreateNamespace=true: gitops-engine adds the destination namespace to the sync as an object of its own
 * (autoCreateNamespace), and the project's permissions are checked on it like on any other: a project that does
 * not permit the cluster-scoped Namespace fails every such sync, whether or not the namespace exists.
 */
function refusedNamespaceCreation(ctx: CheckContext, projects: ReadonlyMap<string, Project>): void {
  for (const app of applications(ctx.repo)) {
    const project = projects.get(app.project);
    const index = syncOptions(app).indexOf('CreateNamespace=true');
    if (!project || index === -1 || !app.destinationNamespace) continue;
    if (kindPermitted(project.virtual, { group: '', kind: 'Namespace', name: app.destinationNamespace, namespaced: false })) continue;
    ctx.fail(
      { resource: app.resource, path: ['spec', 'syncPolicy', 'syncOptions', index] },
      `resource :Namespace is not permitted in project ${app.project}: CreateNamespace=true makes namespace ${app.destinationNamespace} an object of Application ${app.name}'s sync, and its clusterResourceWhitelist does not allow it (or its blacklist refuses it): Argo CD refuses the sync`,
    );
  }
}

/**
 * validateSyncPermissions, in the controller's words, for every object an app applies: its kind (and a
 * cluster-scoped object's name), then its namespace. Returns what each project's own lists were used for.
 */
function refusedObjects(
  ctx: CheckContext,
  projects: ReadonlyMap<string, Project>,
  clusters: Clusters,
  isClusterScoped: CheckEnvironment['isClusterScoped'],
): Use {
  const used: Use = new Map();
  const root = rootApplication(ctx.repo);
  // Each Application's cluster and its project's clusters, worked out once, not once per object.
  const where = new Map(applications(ctx.repo).map((a) => [a, { cluster: destinationCluster(a, clusters), scoped: clustersOf(clusters, a.project) }]));
  for (const r of ctx.resources) {
    const app = owningApplication(ctx.repo, r);
    const project = app && projects.get(app.project);
    if (!app || !project) continue;
    // The root app applies clusters/home and the Application documents; anything else it picks up is argocd-app-folder's to report.
    if (app === root && !r.file.startsWith('clusters/') && r.kind !== 'Application') continue;
    const use = used.get(app.project) ?? { namespaces: new Set<string>(), kinds: new Set<string>() };
    used.set(app.project, use);
    const group = groupOf(r.apiVersion);
    const namespaced = !isClusterScoped(r.apiVersion, r.kind) && r.kind !== 'CustomResourceDefinition';
    if (!kindPermitted(project.virtual, { group, kind: r.kind, name: r.name, namespaced }))
      ctx.fail(
        { resource: r, path: ['kind'] },
        `resource ${group}:${r.kind} is not permitted in project ${app.project} (app ${app.name}: ${namespaced ? 'its namespaceResourceWhitelist and namespaceResourceBlacklist' : `its clusterResourceWhitelist and clusterResourceBlacklist, for ${r.kind} ${r.name}`}): Argo CD refuses the sync`,
      );
    if (!namespaced) {
      const entry = project.clusterWhitelist.find((e) => matches(e, group, r.kind));
      if (entry) use.kinds.add(`${entry.group}/${entry.kind}`);
      continue;
    }
    const namespace = r.namespace ?? app.destinationNamespace ?? '';
    const destination = project.destinations.find((d) => argoGlobMatch(d.namespace, namespace));
    if (destination) use.namespaces.add(destination.namespace);
    const { cluster, scoped } = where.get(app) ?? { cluster: destinationCluster(app, clusters), scoped: clustersOf(clusters, app.project) };
    if (cluster && !destinationPermitted(project.virtual, cluster, namespace, scoped))
      ctx.fail(
        { resource: r, path: r.namespace ? ['metadata', 'namespace'] : ['metadata', 'name'] },
        `${r.kind} ${r.name} goes to namespace ${namespace}, which project ${app.project} (app ${app.name}) has no destination for: namespace ${namespace} is not permitted in project '${app.project}'`,
      );
  }
  return used;
}

/** The house's rule: no wildcard kind, and (when every app of a project was rendered) no destination or kind beyond use. */
function beyondUse(ctx: CheckContext, projects: ReadonlyMap<string, Project>, used: Use): void {
  const apps = applications(ctx.repo);
  for (const [name, project] of projects) {
    project.clusterWhitelist.forEach((e, i) => {
      if (e.kind === '*' || e.group === '*')
        ctx.fail(
          { resource: project.resource, path: ['spec', 'clusterResourceWhitelist', i] },
          `project ${name} allows every cluster-scoped kind${e.group === '*' ? '' : ` of ${e.group || 'core'}`}: list the kinds its apps render`,
        );
    });
    // What the project allows beyond use is judged only when it has apps and every one of them was rendered
    // (a project nobody uses is argocd-project's concern).
    const members = apps.filter((a) => a.project === name);
    const complete = members.length > 0 && members.every((a) => !ctx.renders.some((x) => x.app.name === a.name && x.status !== 'rendered'));
    if (!complete) continue;
    const use = used.get(name) ?? { namespaces: new Set<string>(), kinds: new Set<string>() };
    project.destinations.forEach((d, i) => {
      if (!use.namespaces.has(d.namespace))
        ctx.fail(
          { resource: project.resource, path: ['spec', 'destinations', i, 'namespace'] },
          `project ${name} allows namespace ${d.namespace}, where none of its apps puts anything`,
        );
    });
    project.clusterWhitelist.forEach((e, i) => {
      if (e.kind !== '*' && e.group !== '*' && !use.kinds.has(`${e.group}/${e.kind}`))
        ctx.fail(
          { resource: project.resource, path: ['spec', 'clusterResourceWhitelist', i] },
          `project ${name} allows ${e.group || 'core'}/${e.kind}, which none of its apps renders`,
        );
    });
  }
}

const UNSERVED_FIX = 'name a kind the cluster serves, as its API group spells it (kubectl api-resources), in the lists of its scope';

/** Each entry of a project's lists of kinds that matches no resource Argo CD judges by it (model/controller/served-kinds.ts). */
function unservedEntries(ctx: CheckContext, projects: ReadonlyMap<string, Project>, builtinKinds: CheckEnvironment['builtinKinds']): void {
  const served = servedKinds(builtinKinds, installedKinds(ctx.repo, ctx.renders));
  const used = new Set(ctx.resources.map((r) => `${groupOf(r.apiVersion)}/${r.kind}`));
  for (const [name, project] of projects)
    for (const e of emptyEntries(obj(project.resource.object.spec), { served, used }))
      ctx.fail({ resource: project.resource, path: e.path }, `project ${name}'s ${e.message}`, UNSERVED_FIX);
}

/** Argo CD refuses an object its project does not permit; the house holds each project to what its apps use. */
function projectScopeCheck({ isClusterScoped, builtinKinds }: CheckEnvironment): PolicyCheck {
  return {
    id: 'argocd-project-scope',
    description:
      "Each AppProject allows exactly what its apps render, as Argo CD judges it with the project's global projects merged in (argocd-cm's globalProjects): every Application's destination is one of its destinations, every namespaced resource goes to one of them and its kind is on the namespaceResourceWhitelist (where one is set) and not on the namespaceResourceBlacklist, every cluster-scoped kind and name is on the clusterResourceWhitelist and not on the clusterResourceBlacklist (kinds, groups and names as Go's filepath.Match patterns, destinations as globs with ! denials, on a cluster scoped to the project where it sets permitOnlyProjectScopedClusters), and the namespace CreateNamespace=true makes is a Namespace the project permits; every kind its lists name is one the cluster serves, of the scope the list judges (else the entry refuses or permits nothing); no wildcard kind, and (when all its apps are rendered) no destination or kind none of them uses (invariants P1).",
    invariants: ['P1'],
    remediation:
      'list in the project exactly the namespaces and cluster-scoped kinds its apps render; move what does not belong to the project (a ClusterRoleBinding in a media app) out',
    reads: {
      kinds: ['*'],
      everyKind: "a project's namespaces and cluster-scoped kinds are held to everything its apps render",
      files: [ARGOCD_CM_PATCH],
      renders: true,
    },
    exemptible: false,
    run(ctx) {
      const projects = readProjects(ctx);
      const { clusters } = knownClusters(ctx.repo, ctx.resources);
      refusedDestinations(ctx, projects, clusters);
      refusedNamespaceCreation(ctx, projects);
      const used = refusedObjects(ctx, projects, clusters, isClusterScoped);
      beyondUse(ctx, projects, used);
      unservedEntries(ctx, projects, builtinKinds);
    },
  };
}

export function projectChecks(env: CheckEnvironment): PolicyCheck[] {
  return [projectSourcesCheck, projectScopeCheck(env)];
}

export const projectArea: Area = { name: 'projects', checks: projectChecks };
