/**
 * The providers of the closure model: what the cluster will hold of each
 * kind, from the repository (plain and rendered), from Kubernetes itself,
 * from what Applications say their controllers create, and from
 * `providedOutsideGit`; and the extended resources device plugins advertise.
 */
import { applications, namespaceOrDestination, syncOptions } from '../argocd/argocd.ts';
import { createdAtRuntime } from '../argocd/app-declarations.ts';
import type { SourceRender } from '../argocd/rendered.ts';
import { dig, list } from '../core/dig.ts';
import { selectorMatches } from '../core/label-selector.ts';
import type { Resource } from '../core/manifest.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';
import { podSpecs, str, type Reference } from './references.ts';
import type { Path } from '../core/positions.ts';
import { quantityValue } from '../go/quantity.ts';
import { containersOf, podsAtOnce, podSpecOf, runsAlongside } from '../core/workloads.ts';

/** What Kubernetes creates by itself, whatever the distribution. */
export const KUBERNETES_PROVIDES: Record<string, readonly string[]> = {
  Namespace: ['default', 'kube-system', 'kube-public', 'kube-node-lease'],
  PriorityClass: ['system-cluster-critical', 'system-node-critical'],
};

/** The annotations that mark a StorageClass the cluster's default (the beta one is still read). */
export const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

/** Whether a StorageClass is marked the cluster's default: the class a claim that names none is given. */
export const isDefaultStorageClass = (object: unknown): boolean =>
  DEFAULT_CLASS_ANNOTATIONS.some((a) => dig(object, ['metadata', 'annotations', a]) === 'true');

/** The default StorageClass the repository writes, by name: the class admission gives a claim that names none. */
export const defaultStorageClassName = (resources: readonly { kind: string; name: string; object: unknown }[]): string | undefined =>
  resources.find((r) => r.kind === 'StorageClass' && isDefaultStorageClass(r.object))?.name;

/** Names of `kind` (in `namespace`, for namespaced kinds) the cluster will have. */
export function provided(repo: Repo, kind: string, namespace?: string): Set<string> {
  const names = new Set<string>(KUBERNETES_PROVIDES[kind] ?? []);
  for (const r of repo.resources) if (r.kind === kind && (namespace === undefined || r.namespace === namespace)) names.add(r.name);
  for (const e of repo.facts?.providedOutsideGit ?? []) if (e.kind === kind && (namespace === undefined || e.namespace === namespace)) names.add(e.name);
  if (kind === 'Namespace') {
    // An Application with CreateNamespace=true creates its destination namespace.
    for (const app of applications(repo)) {
      if (syncOptions(app).includes('CreateNamespace=true') && app.destinationNamespace) names.add(app.destinationNamespace);
    }
  }
  return names;
}

/**
 * The namespaces the cluster will have: those `provided` names (Kubernetes' own, the Namespace objects, what
 * providedOutsideGit lists, what an Application creates), each Application's destination, and the namespace every
 * resource of the view lands in (its own, or its Application's destination). The one reading of a namespace a label or
 * a rule names.
 */
export function clusterNamespaces(view: { repo: Repo; resources: readonly Resource[] }): Set<string> {
  return new Set([
    ...provided(view.repo, 'Namespace'),
    ...applications(view.repo).flatMap((a) => (a.destinationNamespace ? [a.destinationNamespace] : [])),
    ...view.resources.flatMap((r) => namespaceOrDestination(view.repo, r) ?? []),
  ]);
}

export interface ProvidedPod {
  namespace: string;
  name: string;
  labels: Record<string, string>;
}

/**
 * The pods an operator makes from a custom resource, the labels it gives them and the container port its web listener
 * has (named by spec.portName, `web` where unset): prometheus-operator's StatefulSets for a Prometheus (9090) and an
 * Alertmanager (9093; statefulset.go), besides whatever spec.podMetadata adds to the labels.
 */
const OPERATOR_PODS: Readonly<Record<string, { labels: (name: string) => Record<string, string>; webPort: string }>> = {
  'monitoring.coreos.com/Prometheus': {
    labels: (name) => ({
      'app.kubernetes.io/name': 'prometheus',
      'app.kubernetes.io/instance': name,
      'app.kubernetes.io/managed-by': 'prometheus-operator',
      'operator.prometheus.io/name': name,
      prometheus: name,
    }),
    webPort: '9090',
  },
  'monitoring.coreos.com/Alertmanager': {
    labels: (name) => ({
      'app.kubernetes.io/name': 'alertmanager',
      'app.kubernetes.io/instance': name,
      'app.kubernetes.io/managed-by': 'prometheus-operator',
      alertmanager: name,
    }),
    webPort: '9093',
  },
};

const operatorOf = (r: Resource) => OPERATOR_PODS[`${r.apiVersion.split('/')[0]}/${r.kind}`];

/**
 * The pods the cluster runs that no pod template of the repository describes: those the distribution runs
 * (providedOutsideGit entries of kind Pod, with their labels), and those an operator makes from a custom resource.
 */
export const providedPods = perRepo((repo: Repo): ProvidedPod[] => {
  const out: ProvidedPod[] = (repo.facts?.providedOutsideGit ?? [])
    .filter((e) => e.kind === 'Pod')
    .map((e) => ({ namespace: e.namespace ?? '', name: e.name, labels: e.labels ?? {} }));
  for (const r of repo.resources) {
    const labels = operatorPodLabels(r);
    if (labels) out.push({ namespace: namespaceOrDestination(repo, r) ?? '', name: r.name, labels });
  }
  return out;
});

/** The labels of the pods an operator makes from a custom resource, or undefined where no operator the model knows makes any. */
export function operatorPodLabels(r: Resource): Record<string, string> | undefined {
  const operator = operatorOf(r);
  if (!operator) return undefined;
  return { ...((dig(r.object, ['spec', 'podMetadata', 'labels']) ?? {}) as Record<string, string>), ...operator.labels(r.name) };
}

/** A pod an operator makes: its owner, namespace and labels, and its web port by name (as a pod template's ports are). */
export interface OperatorPod {
  resource: Resource;
  namespace: string;
  labels: Record<string, string>;
  named: Map<string, string>;
}

/** Of these custom resources, those in `namespace` whose operator-made pods a Service's selector selects, as those pods. */
export function operatorPodsSelected(repo: Repo, owners: readonly Resource[], at: { namespace: string; selector: Record<string, unknown> }): OperatorPod[] {
  if (Object.keys(at.selector).length === 0) return [];
  return owners.flatMap((owner) => {
    const labels = operatorPodLabels(owner);
    if (!labels || (namespaceOrDestination(repo, owner) ?? '') !== at.namespace || !selectorMatches({ matchLabels: at.selector }, labels)) return [];
    const port = str(dig(owner.object, ['spec', 'portName'])) || 'web';
    return [{ resource: owner, namespace: at.namespace, labels, named: new Map([[port, operatorOf(owner)!.webPort]]) }];
  });
}

/** Namespaces the offline gate cannot see whole: an app deploying there has a source it could not render. */
export function opaqueNamespaces(renders: readonly SourceRender[]): Set<string> {
  return new Set(renders.filter((r) => r.status !== 'rendered').map((r) => r.app.destinationNamespace ?? ''));
}

/** Names of `kind` each namespace will hold: declared objects, and what ExternalSecrets, Certificates, controllers and Kubernetes itself create. */
export function namespacedProviders(repo: Repo, kind: string): Set<string> {
  const out = new Set<string>();
  const add = (namespace: string | undefined, name: string) => out.add(`${namespace ?? ''}/${name}`);
  for (const e of createdAtRuntime(repo)) if (e.kind === kind) add(e.namespace, e.name);
  // The kinds that yield a `kind`: itself, and what writes or claims one.
  const yielding = new Set([
    kind,
    ...(kind === 'Secret' ? ['ExternalSecret', 'Certificate'] : []),
    ...(kind === 'PersistentVolumeClaim' ? ['StatefulSet'] : []),
  ]);
  for (const r of repo.resources) {
    if (!yielding.has(r.kind)) continue;
    const namespace = namespaceOrDestination(repo, r);
    if (r.kind === kind) add(namespace, r.name);
    if (r.kind === 'ExternalSecret') add(namespace, str(dig(r.object, ['spec', 'target', 'name'])) ?? r.name);
    if (r.kind === 'Certificate') add(namespace, str(dig(r.object, ['spec', 'secretName'])) ?? '');
    if (r.kind === 'StatefulSet') {
      // A StatefulSet's claims are <template>-<set>-<ordinal>; its pods name the template.
      for (const t of list(dig(r.object, ['spec', 'volumeClaimTemplates'])) as Record<string, any>[])
        if (typeof t?.metadata?.name === 'string') add(namespace, t.metadata.name);
    }
  }
  for (const e of repo.facts?.providedOutsideGit ?? []) if (e.kind === kind) add(e.namespace, e.name);
  return out;
}

/** The resource that provides a reference, when a file or a render of the repository does. */
export function providerOf(repo: Repo, ref: Reference): Resource | undefined {
  return resourcesByKindAndName(repo)
    .get(`${ref.kind}\0${ref.name}`)
    ?.find((r) => ref.namespace === undefined || r.namespace === ref.namespace);
}

/** The repository's resources by kind and name, in their order: every reference is a lookup, not a scan. */
const resourcesByKindAndName = perRepo((repo: Repo): Map<string, Resource[]> => {
  const out = new Map<string, Resource[]>();
  for (const r of repo.resources) {
    const key = `${r.kind}\0${r.name}`;
    const list = out.get(key);
    if (list) list.push(r);
    else out.set(key, [r]);
  }
  return out;
});

/*
 * Extended resources (a GPU's `gpu.intel.com/i915`, `nvidia.com/gpu`): names outside the kubernetes.io domain that a
 * container requests, which the scheduler finds only on nodes whose device plugin advertises them. A pod asking for
 * one no plugin advertises stays Pending ("Insufficient gpu.intel.com/i915") for good. The plugin is a DaemonSet the
 * gate cannot run, so it says what it advertises in an annotation; one from outside the repository is a
 * `providedOutsideGit` entry of kind ExtendedResource.
 */
/** The annotation by which a device plugin's DaemonSet names the resources it advertises (comma-separated). */
export const ADVERTISES = 'gate.homelab-gitops/advertises-resources';

/** Whether a resource name is an extended one: fully qualified, outside the kubernetes.io domain. */
export const isExtended = (name: string) => name.includes('/') && !/(^|\.)kubernetes\.io\//.test(name);

/** Every extended resource a pod template's containers request or limit, with where it is named. */
export function requestedExtended(resources: readonly Resource[]): { resource: Resource; name: string; path: Path; pod: { spec: unknown; at: Path } }[] {
  const out: { resource: Resource; name: string; path: Path; pod: { spec: unknown; at: Path } }[] = [];
  for (const r of resources)
    for (const { spec, at } of podSpecs(r))
      for (const kindOf of ['containers', 'initContainers'] as const)
        (list(spec[kindOf]) as Record<string, unknown>[]).forEach((c, i) => {
          // Asked for once per container: a request and its limit are one claim.
          const names = new Set<string>();
          for (const field of ['requests', 'limits'] as const)
            for (const name of Object.keys((dig(c, ['resources', field]) ?? {}) as object))
              if (isExtended(name) && !names.has(name)) {
                names.add(name);
                out.push({ resource: r, name, path: [...at, kindOf, i, 'resources', field, name], pod: { spec, at } });
              }
        });
  return out;
}

/** The annotation by which a device plugin's DaemonSet names the group its node rule gives the device files (a GID). */
export const DEVICE_GROUP = 'gate.homelab-gitops/device-group';

/**
 * The extended resources the cluster's nodes will advertise, each with the group whose members may open its device
 * files (undefined when none is declared): device plugins in the repository, and those outside it.
 */
export function advertisedExtended(repo: Repo, resources: readonly Resource[]): Map<string, number | undefined> {
  const names = new Map<string, number | undefined>();
  for (const { plugin, name } of advertisedBy(resources)) {
    const group = Number(dig(plugin.object, ['metadata', 'annotations', DEVICE_GROUP]) ?? NaN);
    names.set(name, Number.isInteger(group) ? group : undefined);
  }
  for (const name of advertisedOutsideGit(repo)) names.set(name, undefined);
  return names;
}

/** Each extended resource a device plugin's DaemonSet says it advertises (ADVERTISES), with that DaemonSet. */
function* advertisedBy(resources: readonly Resource[]): Generator<{ plugin: Resource; name: string }> {
  for (const plugin of resources)
    if (plugin.kind === 'DaemonSet') {
      const declared = dig(plugin.object, ['metadata', 'annotations', ADVERTISES]);
      if (typeof declared === 'string') for (const name of declared.split(',').map((n) => n.trim())) if (name) yield { plugin, name };
    }
}

/** The extended resources providedOutsideGit says a plugin outside the repository advertises. */
const advertisedOutsideGit = (repo: Repo): string[] => (repo.facts?.providedOutsideGit ?? []).filter((e) => e.kind === 'ExtendedResource').map((e) => e.name);

/**
 * The annotation by which a device plugin's DaemonSet names the command-line flag that sets how many containers may
 * share one device (Intel's plugins: shared-dev-num). Unset, or the flag not given, each device goes to one container,
 * as every device plugin allocates by default.
 */
export const SHARES_FLAG = 'gate.homelab-gitops/device-shares-flag';

/** What the nodes offer of one extended resource, cluster-wide: how many containers may hold one of it at once, and why. */
export interface DeviceCapacity {
  /** Undefined when the gate cannot read it (a flag's value it cannot know before the pod runs). */
  units: number | undefined;
  why: string;
}

/**
 * The capacity of every advertised extended resource: the devices the cluster facts say the nodes hold, times the
 * containers its plugin lets share each one (read from the plugin's own arguments, as Go's flag package reads them:
 * -name=value, --name=value or -name value, the last one winning).
 */
export function deviceCapacity(repo: Repo, resources: readonly Resource[]): Map<string, DeviceCapacity> {
  const devices = repo.facts?.devices ?? new Map<string, number>();
  const out = new Map<string, DeviceCapacity>();
  const held = (name: string) => devices.get(name) ?? 0;
  const heldText = (name: string) => `${held(name)} device${held(name) === 1 ? '' : 's'} (cluster facts: devices)`;
  for (const { plugin, name } of advertisedBy(resources)) {
    const shares = pluginShares(plugin);
    out.set(name, {
      units: typeof shares.count === 'number' ? held(name) * shares.count : undefined,
      why: `${heldText(name)} × ${shares.why} (DaemonSet ${plugin.namespace ?? ''}/${plugin.name})`,
    });
  }
  for (const name of advertisedOutsideGit(repo)) if (!out.has(name)) out.set(name, { units: held(name), why: `${heldText(name)}, one container each` });
  return out;
}

function pluginShares(plugin: Resource): { count: number | undefined; why: string } {
  const flag = dig(plugin.object, ['metadata', 'annotations', SHARES_FLAG]);
  if (typeof flag !== 'string' || flag.trim() === '') return { count: 1, why: 'one container each' };
  const name = flag.trim().replace(/^-+/, '');
  let value: string | undefined;
  for (const { spec } of podSpecs(plugin))
    for (const c of list(spec.containers) as Record<string, unknown>[]) {
      const argv = [...(Array.isArray(c.command) ? c.command.slice(1) : []), ...(Array.isArray(c.args) ? c.args : [])].map(String);
      argv.forEach((arg, i) => {
        const m = /^--?([^=]+)(?:=(.*))?$/.exec(arg);
        if (m?.[1] === name) value = m[2] ?? argv[i + 1];
      });
    }
  if (value === undefined) return { count: 1, why: `one container each (-${name} not given)` };
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1) return { count: undefined, why: `-${name}=${value}, not a count the gate can read` };
  return { count, why: `${count} container${count === 1 ? '' : 's'} each (-${name}=${count})` };
}

/** How much of one extended resource a workload's pods ask for: per pod, and the most pods it keeps at once. */
export interface DeviceDemand {
  resource: Resource;
  name: string;
  /** Where the first container asks for it. */
  path: Path;
  perPod: number;
  /** Undefined for a DaemonSet (a pod per node it lands on) or an unreadable count. */
  pods: number | undefined;
}

/**
 * Every workload's demand for each extended resource, per pod as the scheduler counts it: the containers that run
 * together (app containers and native sidecars) add up, and a one-shot init container needs its own amount only
 * while it runs, before them.
 */
export function deviceDemand(resources: readonly Resource[]): DeviceDemand[] {
  const out: DeviceDemand[] = [];
  for (const resource of resources) {
    const pod = podSpecOf(resource);
    if (pod) {
      const asked = new Map<string, { together: number; alone: number; path: Path }>();
      for (const c of containersOf(pod))
        for (const field of ['requests', 'limits'] as const)
          for (const [name, raw] of Object.entries((dig(c.container, ['resources', field]) ?? {}) as Record<string, unknown>)) {
            // A request and its limit are one claim; an extended resource's request defaults to its limit.
            if (!isExtended(name) || (field === 'limits' && dig(c.container, ['resources', 'requests', name]) !== undefined)) continue;
            const amount = quantityValue(raw) ?? 0;
            const entry = asked.get(name) ?? { together: 0, alone: 0, path: [...c.at, 'resources', field, name] };
            if (runsAlongside(c)) entry.together += amount;
            else entry.alone = Math.max(entry.alone, amount);
            asked.set(name, entry);
          }
      for (const [name, { together, alone, path }] of asked) out.push({ resource, name, path, perPod: Math.max(together, alone), pods: podsAtOnce(resource) });
    }
  }
  return out;
}
