/**
 * Which kinds Argo CD manages at all (util/settings/resources_filter.go, v3.5): a kind it excludes is neither
 * watched nor applied, so a manifest of one is silently inert. The excluded are its core list (events, metrics,
 * Leases) and argocd-cm's `resource.exclusions`; where `resource.inclusions` names a cluster, only what it includes
 * there is managed. The install manifest's argocd-cm carries a default `resource.exclusions`; a patch that sets the
 * key replaces that list whole, as a strategic merge replaces a ConfigMap's value.
 */
import { parse } from 'yaml';
import { argoGlobMatch } from '../core/glob.ts';
import { healthOverrideFor, resourceOverrides } from '../compare/resource-overrides.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import type { DataFile, Repo } from '../repository/repo.ts';
import { dig, obj } from '../core/dig.ts';

/** The repository's patch over the install manifest's argocd-cm (apps/platform/argocd's kustomization applies it). */
export const ARGOCD_CM_PATCH = 'apps/platform/argocd/patches/argocd-cm.yaml';

/** One entry of resource.exclusions or resource.inclusions: an empty list matches everything. */
export interface FilteredResource {
  apiGroups: string[];
  kinds: string[];
  clusters: string[];
}

export interface ResourcesFilter {
  exclusions: FilteredResource[];
  inclusions: FilteredResource[];
}

const entry = (apiGroups: string[], kinds: string[] = []): FilteredResource => ({ apiGroups, kinds, clusters: [] });

/** coreExcludedResources: excluded whatever argocd-cm says. */
const CORE_EXCLUDED: readonly FilteredResource[] = [
  entry(['events.k8s.io', 'metrics.k8s.io']),
  entry([''], ['Event']),
  entry(['coordination.k8s.io'], ['Lease']),
];

/** The `resource.exclusions` of the pinned install manifest's argocd-cm (v3.5.1). */
export const INSTALL_EXCLUSIONS: readonly FilteredResource[] = [
  entry(['', 'discovery.k8s.io'], ['Endpoints', 'EndpointSlice']),
  entry(['coordination.k8s.io'], ['Lease']),
  entry(
    ['authentication.k8s.io', 'authorization.k8s.io'],
    ['SelfSubjectReview', 'TokenReview', 'LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'],
  ),
  entry(['certificates.k8s.io'], ['CertificateSigningRequest']),
  entry(['cert-manager.io'], ['CertificateRequest']),
  entry(['cilium.io'], ['CiliumIdentity', 'CiliumEndpoint', 'CiliumEndpointSlice']),
  entry(
    ['kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io'],
    [
      'PolicyReport',
      'ClusterPolicyReport',
      'EphemeralReport',
      'ClusterEphemeralReport',
      'AdmissionReport',
      'ClusterAdmissionReport',
      'BackgroundScanReport',
      'ClusterBackgroundScanReport',
      'UpdateRequest',
    ],
  ),
];

const FIELDS = ['apiGroups', 'kinds', 'clusters'] as const;

/**
 * A `resource.exclusions` or `resource.inclusions` value as Argo CD unmarshals it into []FilteredResource (YAML,
 * unknown keys ignored), or why it cannot: then GetResourcesFilter fails, and with it the controller's settings.
 */
export function readFilteredResources(text: string): FilteredResource[] | string {
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    return `not YAML: ${(err as Error).message.split('\n')[0]}`;
  }
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) return 'not a list of {apiGroups, kinds, clusters}';
  const out: FilteredResource[] = [];
  for (const [i, item] of value.entries()) {
    if (item === null) {
      out.push(entry([]));
      continue;
    }
    if (typeof item !== 'object' || Array.isArray(item)) return `entry ${i} is not a mapping`;
    const read = { apiGroups: [] as string[], kinds: [] as string[], clusters: [] as string[] };
    for (const field of FIELDS) {
      const list = (item as Record<string, unknown>)[field];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list) || list.some((v) => typeof v !== 'string')) return `entry ${i}: ${field} is not a list of strings`;
      read[field] = list as string[];
    }
    out.push(read);
  }
  return out;
}

const matchGroup = (r: FilteredResource, group: string) => r.apiGroups.length === 0 || r.apiGroups.some((g) => argoGlobMatch(g, group));
const matchKind = (r: FilteredResource, kind: string) => r.kinds.length === 0 || r.kinds.some((k) => k === '*' || k === kind);
const matchCluster = (r: FilteredResource, cluster: string) => r.clusters.length === 0 || r.clusters.some((c) => argoGlobMatch(c, cluster));
const matches = (r: FilteredResource, group: string, kind: string, cluster: string) => matchGroup(r, group) && matchKind(r, kind) && matchCluster(r, cluster);

export type FilterVerdict = 'excluded' | 'not-included' | 'managed';

/** How a kind fares (ResourcesFilter.IsExcludedResource): excluded, not included where inclusions name the cluster, or managed. */
export function filterVerdict(filter: ResourcesFilter, group: string, kind: string, cluster: string): FilterVerdict {
  if (CORE_EXCLUDED.some((r) => matches(r, group, kind, cluster)) || filter.exclusions.some((r) => matches(r, group, kind, cluster))) return 'excluded';
  if (filter.inclusions.some((r) => matches(r, group, kind, cluster))) return 'managed';
  return filter.inclusions.some((r) => matchCluster(r, cluster)) ? 'not-included' : 'managed';
}

/** argocd-cm as Argo CD reads it: rendered from the install with the patch on top, or, offline, the patch alone. */
export interface ArgocdSettings {
  data: Record<string, unknown>;
  rendered?: Resource;
  patch?: DataFile;
}

export function argocdSettings(resources: readonly Resource[], repo: Repo): ArgocdSettings | undefined {
  const rendered = resources.find((r) => r.kind === 'ConfigMap' && r.name === 'argocd-cm' && r.rendered);
  // A data written as no map (a list, a scalar) holds no setting: the schema layer refuses the ConfigMap.
  if (rendered) return { data: obj(rendered.object.data), rendered };
  const patch = repo.dataFiles.get(ARGOCD_CM_PATCH);
  if (!patch) return undefined;
  const data = dig(patch.data, ['data']);
  return { data: obj(data), patch };
}

/**
 * Where a finding about argocd-cm points: the node at `path` of the rendered ConfigMap (its key, with `target`), or
 * of the patch that sets it offline; undefined where neither is there.
 */
export function settingsPlace(
  settings: ArgocdSettings | undefined,
  path: Path,
  target?: 'key',
): { resource: Resource; path: Path; target?: 'key' } | { data: DataFile; path: Path } | undefined {
  if (settings?.rendered) return { resource: settings.rendered, path, ...(target ? { target } : {}) };
  return settings?.patch ? { data: settings.patch, path } : undefined;
}

const FILTER_KEYS = { exclusions: 'resource.exclusions', inclusions: 'resource.inclusions' } as const;

/**
 * The filter the controller manages kinds by, and each key Argo CD cannot read. Where argocd-cm is not rendered, a
 * `resource.exclusions` the patch does not set is the install manifest's.
 */
export function resourcesFilter(settings: ArgocdSettings | undefined): { filter: ResourcesFilter; problems: { key: string; problem: string }[] } {
  const filter: ResourcesFilter = { exclusions: [], inclusions: [] };
  const problems: { key: string; problem: string }[] = [];
  for (const [field, key] of Object.entries(FILTER_KEYS) as [keyof ResourcesFilter, string][]) {
    const value = settings?.data[key];
    if (value === undefined) {
      if (field === 'exclusions' && !settings?.rendered) filter.exclusions = [...INSTALL_EXCLUSIONS];
      continue;
    }
    const read = typeof value === 'string' ? readFilteredResources(value) : 'not a string';
    if (typeof read === 'string') problems.push({ key, problem: read });
    else filter[field] = read;
  }
  return { filter, problems };
}

/**
 * Whether argocd-cm gives a kind a health check of its own, which Argo CD then runs in place of gitops-engine's
 * built-in one (util/lua GetHealthScript: its kind's override, the older map's `health.lua`, or a glob's).
 */
export function customHealth(settings: ArgocdSettings | undefined, group: string, kind: string): boolean {
  return !!settings && healthOverrideFor(resourceOverrides(settings.data), group, kind) !== undefined;
}

/** filterVerdict, asked once per group, kind and cluster: a repository holds thousands of objects of a few dozen kinds. */
export function verdictsOf(filter: ResourcesFilter): (group: string, kind: string, cluster: string) => FilterVerdict {
  const known = new Map<string, FilterVerdict>();
  return (group, kind, cluster) => {
    const key = `${group}\0${kind}\0${cluster}`;
    let verdict = known.get(key);
    if (verdict === undefined) known.set(key, (verdict = filterVerdict(filter, group, kind, cluster)));
    return verdict;
  };
}
