/**
 * An AppProject as Argo CD 3.5 reads it when it syncs an Application (pkg/apis/application/v1alpha1
 * app_project_types.go, util/argo/argo.go): the project merged with the global projects argocd-cm's
 * `globalProjects` gives it (GetAppVirtualProject), which kinds it permits by group, kind and, for a cluster-scoped
 * one, name (IsGroupKindNamePermitted: Go's filepath.Match patterns), and which destinations (isDestinationMatched:
 * globs, `!` denials).
 */
import { parse } from 'yaml';
import { isMap, type Obj } from '../core/dig.ts';
import { argoGlobMatch, goFilepathMatch, matchStringInList } from '../core/glob.ts';
import { selectorMatches } from '../core/label-selector.ts';
import type { Resource } from '../core/manifest.ts';

export interface GroupKindName {
  group: string;
  kind: string;
  /** A cluster-scoped entry may name its objects (a filepath.Match pattern); '' for every one. */
  name: string;
}

export interface ProjectDestination {
  server: string;
  name: string;
  namespace: string;
}

/** The lists of a project that decide what it permits, merged with its global projects'. */
export interface ProjectSpec {
  sourceRepos: string[];
  destinations: ProjectDestination[];
  clusterResourceWhitelist: GroupKindName[];
  clusterResourceBlacklist: GroupKindName[];
  /** undefined where the project sets none: then every namespaced kind is permitted (nil, not empty). */
  namespaceResourceWhitelist: GroupKindName[] | undefined;
  namespaceResourceBlacklist: GroupKindName[];
  destinationServiceAccounts: Obj[];
  syncWindows: Obj[];
  /** A destination counts only on a cluster scoped to this project (its cluster Secret's `project`). */
  permitOnlyProjectScopedClusters: boolean;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const maps = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isMap) : []);
const entries = (v: unknown): GroupKindName[] => maps(v).map((e) => ({ group: text(e.group), kind: text(e.kind), name: text(e.name) }));

export function projectSpec(project: Resource): ProjectSpec {
  const spec = isMap(project.object.spec) ? project.object.spec : {};
  return {
    sourceRepos: (Array.isArray(spec.sourceRepos) ? spec.sourceRepos : []).map((s) => text(s)),
    destinations: maps(spec.destinations).map((d) => ({ server: text(d.server), name: text(d.name), namespace: text(d.namespace) })),
    clusterResourceWhitelist: entries(spec.clusterResourceWhitelist),
    clusterResourceBlacklist: entries(spec.clusterResourceBlacklist),
    namespaceResourceWhitelist: Array.isArray(spec.namespaceResourceWhitelist) ? entries(spec.namespaceResourceWhitelist) : undefined,
    namespaceResourceBlacklist: entries(spec.namespaceResourceBlacklist),
    destinationServiceAccounts: maps(spec.destinationServiceAccounts),
    syncWindows: maps(spec.syncWindows),
    permitOnlyProjectScopedClusters: spec.permitOnlyProjectScopedClusters === true,
  };
}

/** argocd-cm's `globalProjects` (GetGlobalProjectsSettings): each a label selector and the project it gives; what does not parse gives none. */
function globalProjectSettings(argocdCm: Record<string, unknown> | undefined): { labelSelector: Obj; projectName: string }[] {
  const value = argocdCm?.globalProjects;
  if (typeof value !== 'string' || value === '') return [];
  let parsed: unknown;
  try {
    parsed = parse(value);
  } catch {
    return [];
  }
  return maps(parsed).map((g) => ({ labelSelector: isMap(g.labelSelector) ? g.labelSelector : {}, projectName: text(g.projectName) }));
}

/**
 * GetGlobalProjects: the projects argocd-cm's globalProjects gives this one, in its order: each whose selector
 * matches the project's labels (never the project itself). As Argo CD has it, one that does not exist ends the list.
 */
export function globalProjectsOf(project: Resource, projects: readonly Resource[], argocdCm: Record<string, unknown> | undefined): Resource[] {
  const labels = isMap(project.object.metadata) && isMap(project.object.metadata.labels) ? project.object.metadata.labels : {};
  const out: Resource[] = [];
  for (const gp of globalProjectSettings(argocdCm)) {
    if (gp.projectName === project.name || !selectorMatches(gp.labelSelector, labels)) continue;
    const global = projects.find((p) => p.kind === 'AppProject' && p.name === gp.projectName);
    if (!global) break;
    out.push(global);
  }
  return out;
}

/** GetAppVirtualProject: the project with the lists of each of its global projects appended. */
export function virtualProject(project: Resource, projects: readonly Resource[], argocdCm: Record<string, unknown> | undefined): ProjectSpec {
  const merged = projectSpec(project);
  for (const global of globalProjectsOf(project, projects, argocdCm)) {
    const g = projectSpec(global);
    merged.sourceRepos.push(...g.sourceRepos);
    merged.destinations.push(...g.destinations);
    merged.clusterResourceWhitelist.push(...g.clusterResourceWhitelist);
    merged.clusterResourceBlacklist.push(...g.clusterResourceBlacklist);
    if (g.namespaceResourceWhitelist) merged.namespaceResourceWhitelist = [...(merged.namespaceResourceWhitelist ?? []), ...g.namespaceResourceWhitelist];
    merged.namespaceResourceBlacklist.push(...g.namespaceResourceBlacklist);
    merged.destinationServiceAccounts.push(...g.destinationServiceAccounts);
    merged.syncWindows.push(...g.syncWindows);
  }
  return merged;
}

/** isResourceInList and isNamedResourceInList: kind and group by filepath.Match, and a named entry's name too. */
function inList(list: readonly GroupKindName[], group: string, kind: string, name?: string): boolean {
  return list.some(
    (e) => goFilepathMatch(e.kind, kind) && goFilepathMatch(e.group, group) && (name === undefined || e.name === '' || goFilepathMatch(e.name, name)),
  );
}

/** IsGroupKindNamePermitted: a namespaced kind against the namespaced lists (no whitelist: every kind), a cluster-scoped one against the cluster lists and its name. */
export function kindPermitted(
  spec: ProjectSpec,
  { group, kind, name, namespaced }: { group: string; kind: string; name: string; namespaced: boolean },
): boolean {
  if (namespaced) {
    const white = spec.namespaceResourceWhitelist;
    const whitelisted = white === undefined || (white.length !== 0 && inList(white, group, kind));
    return whitelisted && !inList(spec.namespaceResourceBlacklist, group, kind);
  }
  return inList(spec.clusterResourceWhitelist, group, kind, name) && !inList(spec.clusterResourceBlacklist, group, kind, name);
}

/** globMatch: `!` denies, `*` is anything, else gobwas' glob. */
function globMatch(pattern: string, value: string): boolean {
  if (pattern.startsWith('!')) return !argoGlobMatch(pattern.slice(1), value);
  return pattern === '*' || argoGlobMatch(pattern, value);
}

/**
 * IsDestinationPermitted: the destination matches (isDestinationMatched), and where the project permits only its own
 * clusters, one of `projectClusters` (the clusters whose Secret names the project) bears its name or its server.
 */
export function destinationPermitted(
  spec: ProjectSpec,
  cluster: { server: string; name: string },
  namespace: string,
  projectClusters: readonly { server: string; name?: string }[] = [],
): boolean {
  if (!destinationMatched(spec, cluster, namespace)) return false;
  // As Argo CD compares them: two empty names are equal.
  return !spec.permitOnlyProjectScopedClusters || projectClusters.some((c) => (c.name ?? '') === cluster.name || c.server === cluster.server);
}

/** isDestinationMatched: a server or a name and the namespace match an entry, and no denying entry refuses it first. */
function destinationMatched(spec: ProjectSpec, cluster: { server: string; name: string }, namespace: string): boolean {
  let any = false;
  for (const item of spec.destinations) {
    const nameMatched = cluster.name !== '' && globMatch(item.name, cluster.name);
    const serverMatched = cluster.server !== '' && globMatch(item.server, cluster.server);
    const namespaceMatched = globMatch(item.namespace, namespace);
    if ((serverMatched || nameMatched) && namespaceMatched) any = true;
    else if ((!nameMatched && item.name.startsWith('!')) || (!serverMatched && item.server.startsWith('!') && namespaceMatched)) return false;
    else if (!namespaceMatched && item.namespace.startsWith('!') && serverMatched) return false;
  }
  return any;
}

/**
 * Whether a project lets an Application of this namespace use it (AppProject.IsAppNamespacePermitted): always in
 * Argo CD's own namespace, elsewhere only where its `sourceNamespaces` (globs, or `/regexes/`) match. Global projects
 * lend none. A project the repository does not declare (`default`, made by argocd-server) names none.
 */
export function appNamespacePermitted(project: Resource | undefined, namespace: string, home: string): boolean {
  if (namespace === '' || namespace === home) return true;
  const spec = project?.object.spec;
  const listed = isMap(spec) && Array.isArray(spec.sourceNamespaces) ? spec.sourceNamespaces.map(String) : [];
  return matchStringInList(listed, namespace);
}
