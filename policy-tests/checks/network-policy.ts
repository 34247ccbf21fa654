/**
 * Network policies that say what they mean: a policy selects some pod of its
 * namespace, and every peer it allows names a namespace the cluster will have
 * (and, where the gate sees that namespace whole, pods in it). A peer that
 * names a namespace nobody creates allows nothing: under an enforcing CNI the
 * traffic the comment promises is dropped. Judged on plain and rendered
 * objects; a namespace an unrendered chart deploys to is not judged.
 */
import { namespaceOrDestination, owningApplication } from '../model/argocd.ts';
import { upstreamOrigin } from '../model/authorship.ts';
import { dig, isMap } from '../model/dig.ts';
import { namespaceLabels as labelsOf } from '../model/namespaces.ts';
import { perRepo } from '../model/per-repo.ts';
import { selectorMatches } from '../model/label-selector.ts';
import type { Resource } from '../model/manifest.ts';
import type { Path } from '../model/positions.ts';
import type { Repo } from '../model/repo.ts';
import { podSpecPath, WORKLOAD_KINDS } from '../model/workloads.ts';
import type { CheckContext, PolicyCheck } from './kit.ts';
import { KUBERNETES_PROVIDES, opaqueNamespaces, provided } from './closure/providers.ts';
import { scalarText } from '../model/text.ts';

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj => (isMap(v) ? v : {});
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The labels each namespace the cluster will have carries: its own (model/namespaces.ts), and the name label the API server sets on every namespace. */
export function namespaceLabels(repo: Repo): Map<string, Obj> {
  const declared = labelsOf(repo);
  return new Map([...provided(repo, 'Namespace')].map((name) => [name, { ...(declared.get(name) ?? {}), 'kubernetes.io/metadata.name': name }]));
}

/** Pod templates by namespace, with their labels. */
function podTemplates(repo: Repo): Map<string, Obj[]> {
  const out = new Map<string, Obj[]>();
  for (const t of templatesWithPorts(repo)) out.set(t.namespace, [...(out.get(t.namespace) ?? []), t.labels]);
  return out;
}

export interface Template {
  namespace: string;
  labels: Obj;
  /** Every container port, by number and by name. */
  ports: Set<string>;
  /** Container port names to their numbers. */
  named: Map<string, string>;
  /** The Application that applies it. */
  app?: string;
  /** Whether a container has a network probe (httpGet, tcpSocket or grpc), which the kubelet sends from the node. */
  probed: boolean;
  /** Why its ports may be incomplete: upstream wrote it (a chart, a remote base), and a process may serve a port it never declares. */
  upstream?: string;
  resource: Resource;
}

/** Whether two ports of a pod are the same: equal, or a container port name and its number, or two names of one number. */
export function samePort(pod: Template, a: string, b: string): boolean {
  return a === b || pod.named.get(a) === b || pod.named.get(b) === a || (pod.named.has(a) && pod.named.get(a) === pod.named.get(b));
}

/** Every pod template of the repository, once per view (the network-policy checks share one). */
export const templatesWithPorts = perRepo((repo: Repo): Template[] => templatesIn(repo, repo.resources));

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
    out.push({
      namespace: namespaceOrDestination(repo, r) ?? '',
      labels: obj(dig(r.object, [...spec.slice(0, -1), 'metadata', 'labels'])),
      ports,
      named,
      app: owningApplication(repo, r)?.name,
      probed,
      upstream: upstreamOrigin(repo, r),
      resource: r,
    });
  }
  return out;
}

/** Namespaces Kubernetes creates, which it and the distribution fill with pods of their own. */
export const KUBERNETES_NAMESPACES: ReadonlySet<string> = new Set(KUBERNETES_PROVIDES.Namespace);

export const policies = (ctx: CheckContext) => ctx.resources.filter((r) => r.kind === 'NetworkPolicy');

/** Every peer of a policy's rules, with where it is written. */
function peers(policy: Resource): { peer: Obj; at: Path }[] {
  const spec = obj(policy.object.spec);
  return (['ingress', 'egress'] as const).flatMap((direction) =>
    list(spec[direction]).flatMap((rule, i) =>
      list(obj(rule)[direction === 'ingress' ? 'from' : 'to']).map((peer, j) => ({
        peer: obj(peer),
        at: ['spec', direction, i, direction === 'ingress' ? 'from' : 'to', j] as Path,
      })),
    ),
  );
}

export const networkPolicyChecks: PolicyCheck[] = [
  {
    id: 'network-policy-selects',
    description:
      'Every NetworkPolicy selects at least one pod template of its namespace (plain or rendered); a policy that selects nothing guards nothing. Namespaces an unrendered chart deploys to are not judged (invariants P1).',
    invariants: ['P1'],
    remediation: "make spec.podSelector match the labels of the workload's pod template, or delete the policy",
    reads: { kinds: ['*'], renders: true },
    exemptible: false,
    run(ctx) {
      const templates = podTemplates(ctx.repo);
      const opaque = opaqueNamespaces(ctx);
      for (const policy of policies(ctx)) {
        const ns = namespaceOrDestination(ctx.repo, policy) ?? '';
        if (opaque.has(ns)) continue;
        const selector = obj(dig(policy.object, ['spec', 'podSelector']));
        if ((templates.get(ns) ?? []).some((labels) => selectorMatches(selector, labels))) continue;
        ctx.fail({ resource: policy, path: ['spec', 'podSelector'] }, `NetworkPolicy ${policy.name} selects no pod in namespace ${ns}: it guards nothing`);
      }
    },
  },
  {
    id: 'network-policy-peers',
    description:
      "Every namespaceSelector a NetworkPolicy allows traffic from or to selects a namespace the cluster will have (declared, created by an Application, Kubernetes' own, or in providedOutsideGit, with the kubernetes.io/metadata.name label every namespace carries), and a podSelector beside it selects pods there where the gate sees that namespace whole; otherwise the allowance allows nothing (invariants P1).",
    invariants: ['P1'],
    remediation:
      'name a namespace that exists (kubernetes.io/metadata.name: <namespace>) and labels its pods carry; the namespaces are in clusters/home/namespaces.yaml',
    reads: { kinds: ['*'], renders: true },
    exemptible: false,
    run(ctx) {
      const labels = namespaceLabels(ctx.repo);
      const templates = podTemplates(ctx.repo);
      const opaque = opaqueNamespaces(ctx);
      // Namespaces the repository deploys into: only there are the pods known. Kubernetes' own namespaces
      // (kube-system above all: the distribution runs CoreDNS there) are never seen whole.
      const seen = new Set([...templates.keys()].filter((ns) => !opaque.has(ns) && !KUBERNETES_NAMESPACES.has(ns)));
      for (const policy of policies(ctx)) {
        for (const { peer, at } of peers(policy)) {
          if (!('namespaceSelector' in peer)) continue;
          const selected = [...labels].filter(([, l]) => selectorMatches(obj(peer.namespaceSelector), l)).map(([name]) => name);
          if (selected.length === 0) {
            ctx.fail(
              { resource: policy, path: [...at, 'namespaceSelector'] },
              `NetworkPolicy ${policy.name} allows traffic with namespaces matching ${JSON.stringify(peer.namespaceSelector)}, and no namespace the cluster will have matches: the allowance allows nothing`,
            );
            continue;
          }
          if (!('podSelector' in peer)) continue;
          const judged = selected.filter((ns) => seen.has(ns));
          if (judged.length < selected.length) continue;
          if (judged.some((ns) => (templates.get(ns) ?? []).some((l) => selectorMatches(obj(peer.podSelector), l)))) continue;
          ctx.fail(
            { resource: policy, path: [...at, 'podSelector'] },
            `NetworkPolicy ${policy.name} allows traffic with pods matching ${JSON.stringify(peer.podSelector)} in ${selected.join(', ')}, and no pod there matches: the allowance allows nothing`,
          );
        }
      }
    },
  },
  {
    id: 'network-policy-ports',
    description:
      "Every port a NetworkPolicy rule allows is one the pods it concerns listen on (a container port, by number or name): an ingress rule's ports on the policy's own pods, an egress rule's on the pods its peers select, where the gate sees them. NetworkPolicy ports are pod ports, after a Service's translation: a Service's own port there allows nothing. The repository's own containers must declare every port they serve; a port only upstream pods (a chart, a remote base) may serve undeclared is not judged, and counted (invariants P1).",
    invariants: ['P1'],
    remediation: "allow the container port (the Service's targetPort), by number or by its name",
    reads: { kinds: ['*'], renders: true },
    exemptible: false,
    run(ctx) {
      const templates = templatesWithPorts(ctx.repo);
      const opaque = opaqueNamespaces(ctx);
      const judged = (ns: string) => !opaque.has(ns) && !KUBERNETES_NAMESPACES.has(ns);
      const namespaces = namespaceLabels(ctx.repo);
      for (const policy of policies(ctx)) {
        const own = namespaceOrDestination(ctx.repo, policy) ?? '';
        const spec = obj(policy.object.spec);
        const ownPods = templates.filter((t) => t.namespace === own && selectorMatches(obj(spec.podSelector), t.labels));
        (['ingress', 'egress'] as const).forEach((direction) =>
          list(spec[direction]).forEach((raw, i) => {
            const rule = obj(raw);
            let pods: Template[];
            if (direction === 'ingress') {
              if (!judged(own)) return;
              pods = ownPods;
            } else {
              const to = list(rule.to).map(obj);
              // Egress to anything (no peers) or to addresses (ipBlock): the far end is not in the repository.
              if (to.length === 0 || to.some((p) => 'ipBlock' in p)) return;
              const targets = to.map((p) => ({
                in: 'namespaceSelector' in p ? [...namespaces].filter(([, l]) => selectorMatches(obj(p.namespaceSelector), l)).map(([n]) => n) : [own],
                pods: obj(p.podSelector),
              }));
              if (targets.some((t) => t.in.some((ns) => !judged(ns)))) return;
              pods = templates.filter((t) => targets.some((g) => g.in.includes(t.namespace) && selectorMatches(g.pods, t.labels)));
            }
            if (pods.length === 0) return; // selecting nothing is the other checks' finding
            list(rule.ports).forEach((p, j) => {
              const port = obj(p).port;
              if (port === undefined || pods.some((t) => t.ports.has(scalarText(port)))) return;
              // Upstream pods may serve a port by default without declaring it (Argo CD's notifications
              // controller, --metrics-port 9001): the repository cannot know, so it is said, not failed.
              const upstream = pods.find((t) => t.upstream)?.upstream;
              if (upstream) {
                ctx.notJudged(
                  { resource: policy, path: ['spec', direction, i, 'ports', j, 'port'] },
                  `NetworkPolicy ${policy.name} allows port ${scalarText(port)}, which no container of the pods it concerns declares; they come from ${upstream}, whose processes may listen on ports they do not declare`,
                );
                return;
              }
              ctx.fail(
                { resource: policy, path: ['spec', direction, i, 'ports', j, 'port'] },
                `NetworkPolicy ${policy.name} allows port ${scalarText(port)}, on which none of the pods it concerns listens: NetworkPolicy ports are pod ports, not a Service's`,
              );
            });
          }),
        );
      }
    },
  },
];
