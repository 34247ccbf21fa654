/**
 * network-policy-ingress-path: where a NetworkPolicy isolates the pods an
 * Ingress routes to, the Ingress class's proxy is let in on the port the route
 * reaches. The proxy is the Application that applies the IngressClass: its
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
import { namespaceLabels, templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import { placedPolicies, shutOutBy } from '../../model/cluster/network-reach.ts';

export const ingressPathCheck: PolicyCheck = {
  id: 'network-policy-ingress-path',
  description:
    "Where a NetworkPolicy isolates the pods an Ingress routes to, one of its ingress rules lets the Ingress class's proxy in (its namespace, and its pods where the gate sees them; a proxy on the node's network, on a cluster of several nodes, only by a rule with no peer or an address block, as its connections carry the node's identity) on the port the route reaches; otherwise the public route times out at the pod (invariants P1).",
  invariants: ['P1'],
  remediation:
    "allow ingress from the proxy's namespace (kubernetes.io/metadata.name: <namespace>) and pods on the Service's targetPort, in a policy that selects the backend's pods",
  reads: {
    kinds: ['*'],
    everyKind: "an Ingress's path runs through its class, its Service, the pods of any workload kind and the policies and namespaces around them",
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const templates = templatesWithPorts(ctx.repo);
    const namespaces = namespaceLabels(ctx.repo);
    const policies = placedPolicies(ctx.repo, ctx.resources, ['NetworkPolicy']);
    for (const ingress of ctx.resources.filter((r) => r.kind === 'Ingress')) {
      const proxy = proxyOf(ctx, ingress, templates);
      if (!proxy) continue; // no class, or one nothing here serves: closure-ingress-class says so
      const ns = namespaceOrDestination(ctx.repo, ingress) ?? '';
      for (const route of ingressRoutes(ingress)) {
        const target = route.service && targetPortOf(ctx, ns, route.service);
        if (!route.service || !target) continue; // no such Service or port: closure-service says so
        const pods = templates.filter(
          (t) => t.namespace === ns && Object.keys(target.selector).length > 0 && selectorMatches({ matchLabels: target.selector }, t.labels),
        );
        // A proxy on the node's network reaches a pod on another node as that node: only a multi-node cluster tells.
        const onNodeNetwork = (ctx.repo.facts?.nodeCount ?? 0) > 1 && !!proxy.pods?.length && proxy.pods.every((t) => t.hostNetwork);
        const client = { namespace: proxy.namespace, pods: proxy.pods?.map((t) => t.labels), ...(onNodeNetwork ? { onNodeNetwork } : {}) };
        const blocked = pods.find((pod) => shutOutBy(policies, { pod, port: target.port }, client, namespaces).length > 0);
        if (blocked)
          ctx.fail(
            { resource: ingress, path: [...route.at, 'backend', 'service'] },
            `Ingress ${ingress.name} routes to Service ${route.service.name} (port ${target.port}), whose pods a NetworkPolicy isolates with no rule that lets the ${proxy.app} proxy in from namespace ${proxy.namespace}${onNodeNetwork ? ` (its pods run on the node's network: at a pod on another of the ${ctx.repo.facts!.nodeCount} nodes they arrive as that node, Cilium's remote-node, which no namespace or pod peer admits)` : ''}: the route times out at the pod`,
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
