/**
 * What an Application states about itself, in annotations, so the offline
 * gate knows what its chart installs, needs and creates without rendering it:
 * the CRDs it provides or requires, a LoadBalancer its chart renders, and the
 * objects its controllers create at run time. The closure checks hold each
 * statement to the render whenever the chart is rendered.
 */
import { applications } from './argocd.ts';
import { chartDirOf, declaredDependencies } from '../helm/chart-dependencies.ts';
import { dig } from '../core/dig.ts';
import { groupOf, type Resource } from '../core/manifest.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';

/** The annotation by which an Application says which API groups' CRDs it installs, so the gate knows offline. */
export const PROVIDES_CRDS = 'gate.homelab-gitops/provides-crds';
/**
 * The annotation by which an Application says which API groups' CRDs its operator registers at run time
 * (Cilium's operator creates cilium.io's): provided like PROVIDES_CRDS, but never in the render.
 */
export const PROVIDES_CRDS_AT_RUNTIME = 'gate.homelab-gitops/provides-crds-at-runtime';
/** The annotation by which an Application says which API groups its chart's objects use, so the gate knows offline. */
export const REQUIRES_CRDS = 'gate.homelab-gitops/requires-crds';
/** The annotation by which an Application says its chart renders a LoadBalancer Service. */
export const REQUIRES_LOAD_BALANCER = 'gate.homelab-gitops/requires-load-balancer';
/** The annotation by which an Application lists what its controllers create at run time ("Secret ns/name, Service ns/name"). */
export const CREATES_AT_RUNTIME = 'gate.homelab-gitops/creates-at-runtime';
/**
 * The annotation by which an Application says its chart upgrades one minor at a time, with why (whose upgrade guide
 * says so): Renovate must offer it minor by minor (renovate:check), and the rendered diff flags a bump past the next.
 */
export const UPGRADES_ONE_MINOR = 'gate.homelab-gitops/upgrades-one-minor-at-a-time';

/** One annotation of an object, when it is a non-empty string. */
const annotationOf = (object: unknown, key: string): string | undefined => {
  const v = dig(object, ['metadata', 'annotations', key]);
  return typeof v === 'string' && v !== '' ? v : undefined;
};
const annotation = (app: { resource: Resource }, key: string): string | undefined => annotationOf(app.resource.object, key);

/** An Application's declared CRDs (provided, or with `key`, required), comma-separated: an API group (all its kinds) or `group/Kind`. */
export function declaredEntries(app: { resource: Resource }, key: string = PROVIDES_CRDS): string[] {
  const raw = [annotation(app, key), key === PROVIDES_CRDS ? annotation(app, PROVIDES_CRDS_AT_RUNTIME) : undefined].filter(Boolean).join(',');
  return raw
    ? raw
        .split(',')
        .map((g) => g.trim())
        .filter(Boolean)
    : [];
}

/** The API groups of an Application's declaration. */
export function declaredGroups(app: { resource: Resource }, key: string = PROVIDES_CRDS): string[] {
  return [...new Set(declaredEntries(app, key).map((e) => e.split('/')[0]!))];
}

/**
 * An app's objects split by when they can be applied: `now`, or `later`, once the API groups it declares it
 * requires (requires-crds) are served. What bootstrap applies before Argo CD, which would wait for them itself.
 */
export function byRequiredApis(app: { resource: Resource }, resources: readonly Resource[]): { now: Resource[]; later: Resource[]; groups: string[] } {
  const groups = declaredGroups(app, REQUIRES_CRDS);
  const waits = (r: Resource) => groups.includes(groupOf(r.apiVersion));
  return { now: resources.filter((r) => !waits(r)), later: resources.filter(waits), groups };
}

/**
 * The APIs operators register at run time, as Helm's `--api-versions` takes them: each
 * `group/version/Kind` an Application declares in provides-crds-at-runtime, and its `group/version`. A chart
 * conditioned on one of them renders here what it renders in the cluster (a bare group says too little).
 */
export const runtimeApiVersions = perRepo((repo: Repo): string[] => {
  const out = new Set<string>();
  for (const app of applications(repo))
    for (const entry of declaredEntries(app, PROVIDES_CRDS_AT_RUNTIME)) {
      const parts = entry.split('/');
      if (parts.length !== 3 || parts.some((p) => p === '')) continue;
      out.add(`${parts[0]}/${parts[1]}`);
      out.add(entry);
    }
  return [...out].sort();
});

/** Whether an Application says its chart renders a LoadBalancer Service. */
export const requiresLoadBalancer = (app: { resource: Resource }): boolean => annotation(app, REQUIRES_LOAD_BALANCER) === 'true';

/** Objects Applications say their controllers create at run time, as `Kind namespace/name`. */
export function createdAtRuntime(repo: Repo): { kind: string; namespace: string; name: string }[] {
  const out: { kind: string; namespace: string; name: string }[] = [];
  for (const app of applications(repo)) {
    for (const entry of annotation(app, CREATES_AT_RUNTIME)?.split(',') ?? []) {
      const m = /^\s*(\w+)\s+([^/\s]+)\/(\S+)\s*$/.exec(entry);
      if (m) out.push({ kind: m[1]!, namespace: m[2]!, name: m[3]! });
    }
  }
  return out;
}

/** Why an Application's chart upgrades one minor at a time (its UPGRADES_ONE_MINOR annotation), from its object; undefined when it does not say. */
export const upgradesOneMinor = (object: Record<string, unknown> | undefined): string | undefined => annotationOf(object, UPGRADES_ONE_MINOR);

/**
 * Each file that pins a chart upgrading one minor at a time (UPGRADES_ONE_MINOR), with the reason its Application
 * gives: the Application's file, and the Chart.yaml of each wrapper chart it renders that fetches a dependency from a
 * chart repository (what Renovate's helmv3 manager bumps), since the Application speaks for the chart it wraps.
 */
export const oneMinorAtATime = perRepo((repo: Repo): ReadonlyMap<string, string> => {
  const out = new Map<string, string>();
  for (const app of applications(repo)) {
    const why = upgradesOneMinor(app.resource.object);
    if (!why) continue;
    out.set(app.resource.file, why);
    for (const source of app.sources) {
      const dir = chartDirOf(repo, source);
      if (dir === undefined) continue;
      for (const d of declaredDependencies(repo, dir)) if (/^(https?|oci):\/\//.test(d.repository)) out.set(d.file, why);
    }
  }
  return out;
});
