/**
 * Network policies that say what they mean: a policy selects some pod of its
 * namespace, and every peer it allows names a namespace the cluster will have
 * (and, where the gate sees that namespace whole, pods in it). A peer that
 * names a namespace nobody creates allows nothing: under an enforcing CNI the
 * traffic the comment promises is dropped. Judged on plain and rendered
 * objects; a namespace an unrendered chart deploys to is not judged.
 */
import { opaqueNamespaces } from '../../model/cluster/providers.ts';
import { KUBERNETES_NAMESPACES, namespaceLabels, podLabels, templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { dig, list, obj, type Obj } from '../../model/core/dig.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import { ciliumSelects } from '../../model/cilium/egress.ts';
import { ciliumRules } from '../../model/cilium/policy-rules.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { scalarText } from '../../model/core/text.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';

const policies = (ctx: CheckContext) => ctx.resources.filter((r) => r.kind === 'NetworkPolicy');

/**
 * Each rule of a CiliumNetworkPolicy (`spec`, and each of `specs`) whose endpointSelector, read as the agent reads a
 * pod's labels (`k8s:` and `any:` sources, the namespace key), selects no pod of its namespace: what it allows reaches
 * no pod, so a job it was written for keeps only what the namespace's other policies allow (under default-deny, none
 * of its own egress). A host policy (nodeSelector) is the nodes', not judged here.
 */
function ciliumPoliciesSelect(ctx: CheckContext, templates: ReadonlyMap<string, Obj[]>, opaque: ReadonlySet<string>): void {
  const labels = namespaceLabels(ctx.repo);
  for (const policy of ctx.resources.filter((r) => r.kind === 'CiliumNetworkPolicy')) {
    const ns = namespaceOrDestination(ctx.repo, policy) ?? '';
    if (opaque.has(ns)) continue;
    const pods = (templates.get(ns) ?? []).map((l) => ({ namespace: ns, labels: l, named: new Map<string, string>(), hostNetwork: false }));
    // The agent reads `spec` where it is set (a null one is no rule), as it refuses a policy.
    for (const { rule, at } of ciliumRules(policy.object)) {
      const selector = dig(rule, ['endpointSelector']);
      if (selector === undefined || pods.some((pod) => ciliumSelects(selector, pod, labels, ns))) continue;
      ctx.fail(
        { resource: policy, path: [...at, 'endpointSelector'] },
        `CiliumNetworkPolicy ${policy.name} selects no pod in namespace ${ns} (its endpointSelector, as Cilium reads a pod's labels): what it allows reaches no pod, and the pods it was written for keep only what the namespace's other policies allow`,
      );
    }
  }
}

/** Every peer of a NetworkPolicy's rules, with where it is written. */
export function peers(policy: Resource): { peer: Obj; at: Path }[] {
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
      "Every NetworkPolicy selects at least one pod template of its namespace (plain or rendered) whose pods are not on the node's network (Cilium gives those no endpoint, and no policy holds them), and so does every rule of a CiliumNetworkPolicy by its endpointSelector, read as Cilium reads a pod's labels (k8s: and any: sources, the namespace key); a policy that selects nothing guards nothing, and what it allows reaches no pod. Namespaces an unrendered chart deploys to are not judged (invariants P1).",
    invariants: ['P1'],
    remediation: "make spec.podSelector (a CiliumNetworkPolicy's endpointSelector) match the labels of the workload's pod template, or delete the policy",
    reads: { kinds: ['*'], everyKind: 'a pod selector matches pods that any workload kind makes, rendered or not', renders: true },
    exemptible: false,
    run(ctx) {
      const templates = podLabels(ctx.repo);
      const opaque = opaqueNamespaces(ctx.renders);
      for (const policy of policies(ctx)) {
        const ns = namespaceOrDestination(ctx.repo, policy) ?? '';
        if (opaque.has(ns)) continue;
        const selector = obj(dig(policy.object, ['spec', 'podSelector']));
        if ((templates.get(ns) ?? []).some((labels) => selectorMatches(selector, labels))) continue;
        ctx.fail({ resource: policy, path: ['spec', 'podSelector'] }, `NetworkPolicy ${policy.name} selects no pod in namespace ${ns}: it guards nothing`);
      }
      ciliumPoliciesSelect(ctx, templates, opaque);
    },
  },
  {
    id: 'network-policy-peers',
    description:
      "Every namespaceSelector a NetworkPolicy allows traffic from or to selects a namespace the cluster will have (declared, created by an Application, Kubernetes' own, or in providedOutsideGit, with the kubernetes.io/metadata.name label every namespace carries), and a podSelector beside it selects pods there, off the node's network (of the repository's workloads, or those an operator makes from a Prometheus or an Alertmanager, or the distribution runs) where the gate sees that namespace whole; otherwise the allowance allows nothing (invariants P1).",
    invariants: ['P1'],
    remediation:
      'name a namespace that exists (kubernetes.io/metadata.name: <namespace>) and labels its pods carry; the namespaces are in clusters/home/namespaces.yaml',
    reads: { kinds: ['*'], everyKind: 'a peer names pods and namespaces that any kind may make', renders: true },
    exemptible: false,
    run(ctx) {
      const labels = namespaceLabels(ctx.repo);
      const templates = podLabels(ctx.repo);
      const opaque = opaqueNamespaces(ctx.renders);
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
    reads: { kinds: ['*'], everyKind: 'a port is named by Services and by the containers of every workload kind', renders: true },
    exemptible: false,
    run(ctx) {
      const templates = templatesWithPorts(ctx.repo);
      const opaque = opaqueNamespaces(ctx.renders);
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
