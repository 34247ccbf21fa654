/**
 * What a default-deny namespace still lets through, said out loud. In a
 * namespace where a NetworkPolicy selects every pod and allows nothing, each
 * Service's pods need a policy that lets something in on each Service port,
 * and each probed pod needs the kubelet let in (unless the CNI always admits
 * the node, as Cilium does). Every allowance of a Cilium policy names a
 * namespace and pods that exist, or an external peer the policy documents.
 */
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { cniOf, isNetworkPolicy, KNOWN_CNIS } from '../../model/repository/cni.ts';
import { dig, list, obj, type Obj } from '../../model/core/dig.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { opaqueNamespaces } from '../../model/cluster/providers.ts';
import { KUBERNETES_NAMESPACES, namespaceLabels, podsBySelector, samePort, templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import { parse } from 'yaml';
import { CILIUM_NAMESPACE_LABELS, externalPeers } from '../../model/cluster/network-reach.ts';
import { scalarText } from '../../model/core/text.ts';

export const EXTERNAL_PEERS = 'gate.homelab-gitops/external-peers';

const isEmptySelector = (s: unknown): boolean => Object.keys(obj(obj(s).matchLabels)).length === 0 && list(obj(s).matchExpressions).length === 0;

/** Namespaces where a NetworkPolicy selects every pod, isolates ingress and lets nothing in. */
function defaultDenyNamespaces(ctx: CheckContext): Map<string, Resource> {
  const out = new Map<string, Resource>();
  for (const p of ctx.resources.filter((r) => r.kind === 'NetworkPolicy')) {
    const spec = obj(p.object.spec);
    const types = list(spec.policyTypes);
    if (isEmptySelector(spec.podSelector) && (types.length === 0 || types.includes('Ingress')) && list(spec.ingress).length === 0)
      out.set(namespaceOrDestination(ctx.repo, p) ?? '', p);
  }
  return out;
}

/** A Cilium endpoint selector's pod labels (the k8s: prefix dropped, namespace labels aside) and the namespace it names. */
function ciliumPeer(selector: Obj, own: string): { namespace: string; labels: Obj; expressions: unknown[] } {
  const labels: Obj = {};
  let namespace = own;
  for (const [k, v] of Object.entries(obj(selector.matchLabels))) {
    if (CILIUM_NAMESPACE_LABELS.includes(k)) namespace = String(v);
    else labels[k.replace(/^k8s:/, '')] = v;
  }
  return { namespace, labels, expressions: list(selector.matchExpressions) };
}

const ciliumSelects = (policy: Resource, pod: Template): boolean => {
  const peer = ciliumPeer(obj(dig(policy.object, ['spec', 'endpointSelector'])), pod.namespace);
  return selectorMatches({ matchLabels: peer.labels, matchExpressions: peer.expressions }, pod.labels);
};

/** Whether some policy selecting `pod` lets anything in on `port` (a number or a container port name). */
function admits(policies: readonly Resource[], pod: Template, port: string): boolean {
  const same = (p: unknown) => p === undefined || samePort(pod, scalarText(p), port);
  return policies.some((policy) => {
    if (policy.kind === 'NetworkPolicy') {
      if (!selectorMatches(obj(dig(policy.object, ['spec', 'podSelector'])), pod.labels)) return false;
      return list(dig(policy.object, ['spec', 'ingress'])).some((r) => list(obj(r).ports).length === 0 || list(obj(r).ports).some((p) => same(obj(p).port)));
    }
    if (!ciliumSelects(policy, pod)) return false;
    return list(dig(policy.object, ['spec', 'ingress'])).some((r) => {
      const ports = list(obj(r).toPorts).flatMap((tp) => list(obj(tp).ports));
      return ports.length === 0 || ports.some((p) => same(obj(p).port));
    });
  });
}

/** Whether a policy lets the node in (an address block, or Cilium's host entities). */
const admitsNode = (policies: readonly Resource[], pod: Template): boolean =>
  policies.some((policy) =>
    list(dig(policy.object, ['spec', 'ingress'])).some((r) =>
      policy.kind === 'NetworkPolicy'
        ? selectorMatches(obj(dig(policy.object, ['spec', 'podSelector'])), pod.labels) && list(obj(r).from).some((f) => 'ipBlock' in obj(f))
        : ciliumSelects(policy, pod) && list(obj(r).fromEntities).some((e) => ['host', 'remote-node', 'cluster', 'all'].includes(String(e))),
    ),
  );

/** The external-peers annotation: a YAML mapping of peer to reason. */
function documentedPeers(policy: Resource): Map<string, string> | string {
  const raw = dig(policy.object, ['metadata', 'annotations', EXTERNAL_PEERS]);
  if (raw === undefined) return new Map();
  try {
    const value = typeof raw === 'string' ? parse(raw) : undefined;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return `${EXTERNAL_PEERS} must be a YAML mapping of peer: reason`;
    return new Map(Object.entries(value as Obj).map(([k, v]) => [k, typeof v === 'string' ? v.trim() : '']));
  } catch (err) {
    return `${EXTERNAL_PEERS} does not parse: ${(err as Error).message.split('\n')[0]}`;
  }
}

export const defaultDenyChecks: PolicyCheck[] = [
  {
    id: 'network-policy-default-deny',
    description:
      "In a namespace a default-deny NetworkPolicy isolates, every Service port's pods are let in on that port by some policy, and every probed pod is let in from its node unless the cluster's CNI always admits the node (Cilium does); otherwise the Service answers no one, or the kubelet kills the pod (invariants P1).",
    invariants: ['P1'],
    remediation:
      "add a NetworkPolicy (or CiliumNetworkPolicy) that selects the Service's pods and lets their callers in on the targetPort; for probes under a CNI that does not admit the node, allow the node's addresses",
    reads: { kinds: ['*'], everyKind: 'every namespace that runs pods needs one, and pods come from every workload kind and every render', renders: true },
    exemptible: false,
    run(ctx) {
      const denied = defaultDenyNamespaces(ctx);
      if (denied.size === 0) return;
      const opaque = opaqueNamespaces(ctx.renders);
      const templates = templatesWithPorts(ctx.repo);
      const policies = ctx.resources.filter(isNetworkPolicy);
      const byNamespace = Map.groupBy(policies, (p) => namespaceOrDestination(ctx.repo, p) ?? '');
      const inNs = (ns: string) => byNamespace.get(ns) ?? [];
      const matching = podsBySelector(ctx.repo);
      for (const svc of ctx.resources.filter((r) => r.kind === 'Service')) {
        const ns = namespaceOrDestination(ctx.repo, svc) ?? '';
        const selector = obj(dig(svc.object, ['spec', 'selector']));
        if (!denied.has(ns) || opaque.has(ns) || Object.keys(selector).length === 0) continue;
        const pods = matching({ matchLabels: selector }).filter((t) => t.namespace === ns);
        list(dig(svc.object, ['spec', 'ports'])).forEach((raw, i) => {
          const port = obj(raw);
          const target = String(port.targetPort ?? port.port);
          // A target port no container has is closure-service's finding, not a policy's.
          const shut = pods.find((pod) => pod.ports.has(target) && !admits(inNs(ns), pod, target));
          if (shut)
            ctx.fail(
              { resource: svc, path: ['spec', 'ports', i] },
              `Service ${svc.name} port ${String(port.name ?? port.port)} reaches pods that the default-deny ${denied.get(ns)!.name} isolates in namespace ${ns}, and no policy lets anything in on ${target}: the Service answers no one`,
            );
        });
      }
      const cni = cniOf(ctx.repo);
      if (KNOWN_CNIS[cni.name]?.nodeReachesPods) return;
      for (const pod of templates.filter((t) => t.probed && denied.has(t.namespace) && !opaque.has(t.namespace) && !admitsNode(inNs(t.namespace), t)))
        ctx.fail(
          { resource: pod.resource, path: ['kind'] },
          `${pod.resource.kind} ${pod.resource.name} has network probes in default-deny namespace ${pod.namespace}, and under the cluster's CNI (${cni.name}) no policy lets its node in: the kubelet's probes time out`,
        );
    },
  },
  {
    id: 'network-policy-allowances',
    description:
      "Every allowance of a network policy names something real: a Cilium policy's endpoint peer a namespace the cluster will have and, where the gate sees that namespace whole, pods there; every peer beyond named pods (an address block, a DNS name, a Cilium entity such as world, cluster, host or kube-apiserver, an empty rule, peer or selector, a NotIn or DoesNotExist namespace) one the policy documents in gate.homelab-gitops/external-peers with a reason, and every documented peer one the policy uses (invariants P1).",
    invariants: ['P1'],
    remediation:
      'name an existing namespace (k8s:io.kubernetes.pod.namespace) and labels its pods carry; document each external peer as "<peer>: <why>" in the gate.homelab-gitops/external-peers annotation, and drop entries no rule uses',
    reads: { kinds: ['*'], everyKind: 'an allowance is held to the pods of every workload kind and the namespaces they run in', renders: true },
    exemptible: false,
    run(ctx) {
      const namespaces = namespaceLabels(ctx.repo);
      const opaque = opaqueNamespaces(ctx.renders);
      const templates = templatesWithPorts(ctx.repo);
      for (const policy of ctx.resources.filter(isNetworkPolicy)) {
        const own = namespaceOrDestination(ctx.repo, policy) ?? '';
        if (policy.kind !== 'NetworkPolicy')
          (['ingress', 'egress'] as const).forEach((dir) =>
            list(dig(policy.object, ['spec', dir])).forEach((raw, i) => {
              const key = dir === 'ingress' ? 'fromEndpoints' : 'toEndpoints';
              list(obj(raw)[key]).forEach((sel, j) => {
                const peer = ciliumPeer(obj(sel), own);
                const at: Path = ['spec', dir, i, key, j];
                if (!namespaces.has(peer.namespace))
                  ctx.fail(
                    { resource: policy, path: at },
                    `${policy.kind} ${policy.name} allows traffic with namespace ${peer.namespace}, which the cluster will not have: the allowance allows nothing`,
                  );
                else if (!opaque.has(peer.namespace) && !KUBERNETES_NAMESPACES.has(peer.namespace)) {
                  const matcher = { matchLabels: peer.labels, matchExpressions: peer.expressions };
                  if (!templates.some((t) => t.namespace === peer.namespace && selectorMatches(matcher, t.labels)))
                    ctx.fail(
                      { resource: policy, path: at },
                      `${policy.kind} ${policy.name} allows traffic with pods matching ${JSON.stringify(peer.labels)} in ${peer.namespace}, and no pod there matches: the allowance allows nothing`,
                    );
                }
              });
            }),
          );
        const documented = documentedPeers(policy);
        const annotations: Path = ['metadata', 'annotations'];
        if (typeof documented === 'string') {
          ctx.fail({ resource: policy, path: [...annotations, EXTERNAL_PEERS] }, `${policy.kind} ${policy.name}: ${documented}`);
          continue;
        }
        const used = externalPeers(policy, own);
        for (const { peer, at } of used)
          if (!documented.get(peer))
            ctx.fail(
              { resource: policy, path: at },
              `${policy.kind} ${policy.name} allows ${peer}, which its ${EXTERNAL_PEERS} annotation does not document with a reason: say what it is and why the pods need it, or allow named pods instead`,
            );
        for (const peer of documented.keys())
          if (!used.some((u) => u.peer === peer))
            ctx.fail(
              { resource: policy, path: [...annotations, EXTERNAL_PEERS] },
              `${policy.kind} ${policy.name} documents ${peer} in ${EXTERNAL_PEERS}, and no rule allows it: drop the entry`,
            );
      }
    },
  },
];
