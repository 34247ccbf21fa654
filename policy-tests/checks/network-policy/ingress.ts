/**
 * network-policy-ingress-path: where a NetworkPolicy or a Cilium policy
 * isolates the pods an Ingress routes to, the Ingress class's proxy is let in
 * on the port the route reaches (model/cilium/ingress.ts, as Cilium enforces
 * both kinds together). The proxy is the Application that applies the IngressClass: its
 * namespace always, its pods when its chart is rendered.
 */
import { namespaceOrDestination, owningApplication } from '../../model/argocd/argocd.ts';
import { dig, obj, type Obj } from '../../model/core/dig.ts';
import { ingressRoutes, servicePort, type IngressRoute } from '../../model/cluster/ingress-routes.ts';
import { serviceIndex } from '../../model/cluster/service-addresses.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { opaqueNamespaces } from '../../model/cluster/providers.ts';
import { templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import { ADDRESS_CHARTS, peerFacts } from '../../model/cilium/node-addresses.ts';
import { acrossPods, podTarget } from '../../model/cilium/egress.ts';
import { addressNote, policyNames, timesOut } from './refusals.ts';
import { ENFORCED_POLICY_KINDS, nodeNetworkClient, placedPolicies } from '../../model/cluster/network-reach.ts';
import { ingressVerdict } from '../../model/cilium/ingress.ts';
import { refusedOutright } from '../../model/cilium/policy-rules.ts';

export const ingressPathCheck: PolicyCheck = {
  id: 'network-policy-ingress-path',
  description:
    "Where a NetworkPolicy or a Cilium policy isolates the pods an Ingress routes to, one of their ingress rules lets the Ingress class's proxy in (its namespace, and its pods where the gate sees them; a proxy on the node's network, on a cluster of several nodes, only by a rule with no peer or an address block, as its connections carry the node's identity) on the port the route reaches; otherwise the public route times out at the pod (invariants P1).",
  invariants: ['P1'],
  remediation:
    "allow ingress from the proxy's namespace (kubernetes.io/metadata.name: <namespace>) and pods on the Service's targetPort, in a policy that selects the backend's pods",
  reads: {
    kinds: ['*'],
    everyKind: "an Ingress's path runs through its class, its Service, the pods of any workload kind and the policies and namespaces around them",
    charts: ADDRESS_CHARTS,
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const templates = templatesWithPorts(ctx.repo);
    const peers = peerFacts(ctx.repo);
    const policies = placedPolicies(ctx.repo, ctx.resources, ENFORCED_POLICY_KINDS);
    for (const ingress of ctx.resources.filter((r) => r.kind === 'Ingress')) {
      const proxy = proxyOf(ctx, ingress, templates);
      if (!proxy) continue; // no class, or one nothing here serves: closure-ingress-class says so
      const ns = namespaceOrDestination(ctx.repo, ingress) ?? '';
      // A proxy on the node's network reaches a pod on another node as that node.
      const client = {
        namespace: proxy.namespace,
        pods: proxy.pods?.map((t) => t.labels),
        ...nodeNetworkClient(ctx.repo, !!proxy.pods?.length && proxy.pods.every((t) => t.hostNetwork)),
      };
      for (const route of ingressRoutes(ingress)) {
        const target = route.service && targetPortOf(ctx, ns, route.service);
        if (!route.service || !target) continue; // no such Service or port: closure-service says so
        const pods = templates.filter(
          (t) => t.namespace === ns && Object.keys(target.selector).length > 0 && selectorMatches({ matchLabels: target.selector }, t.labels),
        );
        const at = { resource: ingress, path: [...route.at, 'backend', 'service'] };
        // Traefik balances each route among the Service's endpoints: every pod behind it must let the proxy in.
        const across = acrossPods(pods.map((pod) => ingressVerdict(policies, { pod, port: target.port }, client, peers)));
        if (!across || 'allowed' in across.verdict) continue;
        const { verdict } = across;
        if ('refusedBy' in verdict && verdict.refusedBy.some(refusedOutright)) continue; // network-policy-cilium-accepted says so
        if ('unknown' in verdict)
          ctx.notJudged(
            at,
            `Ingress ${ingress.name} routes to Service ${route.service.name}: whether the ${proxy.app} proxy is let in to its pods is not known, as ${verdict.unknown} selects them`,
          );
        else if ('refusedBy' in verdict)
          ctx.fail(
            at,
            `Ingress ${ingress.name} routes to Service ${route.service.name} (port ${target.port}), whose pods ${policyNames(verdict.refusedBy)} isolate${verdict.refusedBy.length > 1 ? '' : 's'} with no rule that lets the ${proxy.app} proxy in from namespace ${proxy.namespace}${client.onNodeNetwork ? ` (its pods run on the node's network: at a pod on another of the ${ctx.repo.facts!.nodeCount} nodes they arrive as that node, Cilium's remote-node, which no namespace or pod peer admits)` : addressNote(verdict.refusedBy, { direction: 'from', target: podTarget(pods[across.at]!, target.port) }, 'pod')}${timesOut(pods, across, 'the route times out at the pod')}`,
          );
      }
    }
  },
};

/** The proxy serving an Ingress's class: the namespace its Application deploys to, and its pods when the gate sees them. */
function proxyOf(ctx: CheckContext, ingress: Resource, templates: readonly Template[]): { app: string; namespace: string; pods?: Template[] } | undefined {
  const name = dig(ingress.object, ['spec', 'ingressClassName']) ?? dig(ingress.object, ['metadata', 'annotations', 'kubernetes.io/ingress.class']);
  const ingressClass = ctx.repo.resources.find((r) => r.kind === 'IngressClass' && r.name === name);
  const app = ingressClass && owningApplication(ctx.repo, ingressClass);
  if (!app?.destinationNamespace) return undefined;
  const pods = templates.filter((t) => t.app === app.name);
  return {
    app: app.name,
    namespace: app.destinationNamespace,
    ...(pods.length && !opaqueNamespaces(ctx.renders).has(app.destinationNamespace) ? { pods } : {}),
  };
}

/** The Service an Ingress backend names, in the Ingress's namespace: its selector and the pod port the route reaches. */
function targetPortOf(ctx: CheckContext, ns: string, backend: NonNullable<IngressRoute['service']>): { selector: Obj; port: string } | undefined {
  const svc = serviceIndex(ctx.repo).named(ns, backend.name);
  const port = svc && servicePort(svc, backend.port);
  if (!svc || !port) return undefined;
  return { selector: obj(dig(svc.object, ['spec', 'selector'])), port: String(port.targetPort ?? port.port) };
}
