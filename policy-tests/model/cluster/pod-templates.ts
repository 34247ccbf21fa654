/**
 * The pods the cluster will run, as a network policy sees them: each pod
 * template with its namespace, labels and ports, and the labels of every
 * namespace a policy's selectors can match. Shared by the network-policy
 * checks and the rendered diff's reach.
 */
import { namespaceOrDestination, owningApplication } from '../argocd/argocd.ts';
import { upstreamOrigin } from '../argocd/authorship.ts';
import { dig, list, obj, type Obj } from '../core/dig.ts';
import { selectorIndex } from '../core/label-selector.ts';
import type { Resource } from '../core/manifest.ts';
import { scalarText } from '../core/text.ts';
import { containersOf, podSpecPath, runsAlongside, scaleTargetKey, WORKLOAD_KINDS } from '../core/workloads.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';
import { namespaceLabels as labelsOf } from './namespaces.ts';
import { KUBERNETES_PROVIDES, provided, providedPods } from './providers.ts';

/** The labels each namespace the cluster will have carries: its own (model/cluster/namespaces.ts), and the name label the API server sets on every namespace. */
export function namespaceLabels(repo: Repo): Map<string, Obj> {
  const declared = labelsOf(repo);
  return new Map([...provided(repo, 'Namespace')].map((name) => [name, { ...(declared.get(name) ?? {}), 'kubernetes.io/metadata.name': name }]));
}

/**
 * The labels of the pods a policy can select, by namespace: the repository's pod templates (plain or rendered), and the
 * pods an operator makes from a custom resource or the distribution runs (providedPods), which a policy may name too.
 * A pod on the node's network is none of them: Cilium gives it no endpoint, so a selector of its labels holds nothing.
 */
export function podLabels(repo: Repo): Map<string, Obj[]> {
  const out = new Map<string, Obj[]>();
  const endpoints = templatesWithPorts(repo).filter((t) => !t.hostNetwork);
  for (const { namespace, labels } of [...endpoints, ...providedPods(repo)]) out.set(namespace, [...(out.get(namespace) ?? []), labels]);
  return out;
}

export interface Template {
  namespace: string;
  labels: Obj;
  /** Every container port, by number and by name. */
  ports: Set<string>;
  /** Container port names to their numbers. */
  named: Map<string, string>;
  /** The ports of the containers that run alongside (app containers and sidecars), with their protocol: what a Service's endpoints can reach. */
  served: { name: string; number: string; protocol: string }[];
  /** The Application that applies it. */
  app?: string;
  /** Whether a container has a network probe (httpGet, tcpSocket or grpc), which the kubelet sends from the node. */
  probed: boolean;
  /**
   * Whether its pods run on the node's network (hostNetwork): Cilium gives them no endpoint of their own, so no policy
   * that selects pods holds them, and a connection to them reaches the node (the `host` or `remote-node` entity).
   */
  hostNetwork?: boolean;
  /** Why its ports may be incomplete: upstream wrote it (a chart, a remote base), and a process may serve a port it never declares. */
  upstream?: string;
  resource: Resource;
}

/** Whether two ports of a pod are the same: equal, or a container port name and its number, or two names of one number. */
export function samePort(pod: Pick<Template, 'named'>, a: string, b: string): boolean {
  return a === b || pod.named.get(a) === b || pod.named.get(b) === a || (pod.named.has(a) && pod.named.get(a) === pod.named.get(b));
}

/** Every pod template of the repository, once per view (the network-policy checks share one). */
export const templatesWithPorts = perRepo((repo: Repo): Template[] => templatesIn(repo, repo.resources));

/** The repository's pod templates a label selector matches, in any namespace: one index of their labels per repository. */
export const podsBySelector = perRepo((repo: Repo): ((selector: Obj | undefined) => Template[]) => selectorIndex(templatesWithPorts(repo), (t) => t.labels));

function templatesIn(repo: Repo, resources: readonly Resource[]): Template[] {
  const out: Template[] = [];
  for (const r of resources) {
    if (!(WORKLOAD_KINDS as readonly string[]).includes(r.kind)) continue;
    const spec = podSpecPath(r.kind);
    if (!spec) continue;
    const pod = obj(dig(r.object, spec));
    const ports = new Set<string>();
    const named = new Map<string, string>();
    const probed = list(pod.containers).some((c) =>
      ['livenessProbe', 'readinessProbe', 'startupProbe'].some((p) => ['httpGet', 'tcpSocket', 'grpc'].some((k) => k in obj(obj(obj(c)[p])))),
    );
    for (const c of [...list(pod.containers), ...list(pod.initContainers)])
      for (const p of list(obj(c).ports)) {
        const { containerPort, name } = obj(p);
        if (containerPort !== undefined) ports.add(scalarText(containerPort));
        if (typeof name === 'string') ports.add(name);
        if (typeof name === 'string' && containerPort !== undefined) named.set(name, scalarText(containerPort));
      }
    const served = containersOf({ spec: pod, at: spec })
      .filter(runsAlongside)
      .flatMap((c) =>
        list(c.container.ports).map((p) => ({
          name: scalarText(obj(p).name ?? ''),
          number: scalarText(obj(p).containerPort ?? ''),
          protocol: scalarText(obj(p).protocol ?? 'TCP'),
        })),
      );
    out.push({
      namespace: namespaceOrDestination(repo, r) ?? '',
      labels: obj(dig(r.object, [...spec.slice(0, -1), 'metadata', 'labels'])),
      ports,
      named,
      served,
      app: owningApplication(repo, r)?.name,
      probed,
      ...(pod.hostNetwork === true ? { hostNetwork: true } : {}),
      upstream: upstreamOrigin(repo, r),
      resource: r,
    });
  }
  return out;
}

/** Namespaces Kubernetes creates, which it and the distribution fill with pods of their own. */
export const KUBERNETES_NAMESPACES: ReadonlySet<string> = new Set(KUBERNETES_PROVIDES.Namespace);

/** The workloads a HorizontalPodAutoscaler of `resources` scales, as `scaledKey` names them: their replicas are its to set. */
export function autoscaledWorkloads(repo: Repo, resources: readonly Resource[]): Set<string | undefined> {
  return new Set(resources.filter((r) => r.kind === 'HorizontalPodAutoscaler').map((r) => scaleTargetKey(namespaceOrDestination(repo, r) ?? '', r.object)));
}
