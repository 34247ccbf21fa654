/**
 * closure-service: every Service an Ingress routes to exists with the port it
 * names, every ServiceMonitor selects a Service with the port it scrapes,
 * every in-cluster address a resource names resolves to a Service with its
 * port, as does every Service the API server calls (webhooks, conversions,
 * aggregated APIs), and every Service with a selector has pods behind it.
 */
import { createdAtRuntime } from '../../model/argocd/app-declarations.ts';
import { dig, isMap, list, obj, objects, str } from '../../model/core/dig.ts';
import { groupOf, type Resource } from '../../model/core/manifest.ts';
import { ARGOCD_CM_PATCH, argocdSettings, resourcesFilter, verdictsOf } from '../../model/controller/resource-filter.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { opaqueNamespaces, providedPods } from '../../model/cluster/providers.ts';
import { templatesWithPorts } from '../../model/cluster/pod-templates.ts';
import { selectorIndex } from '../../model/core/label-selector.ts';
import { filterCluster, namespaceOrDestination, owningApplication } from '../../model/argocd/argocd.ts';
import { indexServices, serviceAddresses, serviceIndex, webhookCalls, type ServiceAddress, type ServiceIndex } from '../../model/cluster/service-addresses.ts';
import { argoGlobMatch } from '../../model/core/glob.ts';
import { SETTINGS_FILES } from '../../model/apps/media-settings.ts';
import { ingressRoutes, servicePort } from '../../model/cluster/ingress-routes.ts';
import { settingsHostFindings } from './settings-hosts.ts';
import { rookOperatorServices } from '../../model/rook/services.ts';
import { containersOf, podSpecOf } from '../../model/core/workloads.ts';
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';

type RuntimeObject = ReturnType<typeof createdAtRuntime>[number];

/** Kubernetes' own: the API server's Service. */
const API_SERVER_SERVICE = {
  kind: 'Service',
  name: 'kubernetes',
  namespace: 'default',
  object: {
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { ports: [{ name: 'https', port: 443 }] },
  },
} as unknown as Resource;

const portsOf = (svc: Resource) => objects(dig(svc.object, ['spec', 'ports'])) as { name?: string; port?: number }[];

function checkRoutes(ctx: CheckContext, { index, runtime, opaque, reached }: Scope): void {
  for (const ing of ctx.resources.filter((r) => r.kind === 'Ingress')) {
    const ns = namespaceOrDestination(ctx.repo, ing) ?? '';
    if (opaque.has(ns)) continue;
    for (const { service: backend, at } of ingressRoutes(ing)) {
      if (!backend) continue;
      const svc = index.named(ns, backend.name);
      if (!svc && runtime.some((e) => e.namespace === ns && e.name === backend.name)) continue;
      if (!svc)
        ctx.fail(
          { resource: ing, path: [...at, 'backend', 'service', 'name'] },
          `Ingress ${ing.name} routes to Service ${ns}/${backend.name}, which nothing in the repository provides: the route answers 503`,
        );
      else if (!servicePort(svc, backend.port))
        ctx.fail(
          { resource: ing, path: [...at, 'backend', 'service', 'port'] },
          `Ingress ${ing.name} routes to port ${backend.port.name ?? backend.port.number} of Service ${backend.name}, which has no such port`,
        );
      else reach(reached, svc, `Ingress ${ing.name} routes to it: the route answers 503`);
    }
  }
}

/** Each Service the API server calls (a webhook, a conversion, an APIService) exists with the port it dials. */
function checkWebhooks(ctx: CheckContext, { index, runtime, opaque, reached }: Scope): void {
  for (const call of webhookCalls(ctx.resources)) {
    const { namespace, name, port } = call.service;
    if (opaque.has(namespace) || runtime.some((e) => e.namespace === namespace && e.name === name)) continue;
    const svc = index.named(namespace, name);
    if (!svc)
      ctx.fail(
        { resource: call.resource, path: [...call.at, 'name'] },
        `${call.what} sends the API server to Service ${namespace}/${name}, which nothing in the repository provides: each call fails, and ${call.lost}`,
      );
    else if (!servicePort(svc, { number: port }))
      ctx.fail(
        { resource: call.resource, path: dig(call.resource.object, [...call.at, 'port']) === undefined ? call.at : [...call.at, 'port'] },
        `${call.what} sends the API server to port ${port} of Service ${namespace}/${name}, which has no such port: each call fails, and ${call.lost}`,
      );
    else reach(reached, svc, `${call.what} sends the API server to it: ${call.lost}`);
  }
}

/** The Services something reaches, each with who reaches it and what breaks when it has no pods: the first reason found. */
type Reached = Map<Resource, string>;

/** What every part of the check reads: the Services by name and label, those made at run time, the namespaces not seen whole, and who reaches what. */
interface Scope {
  index: ServiceIndex;
  runtime: readonly RuntimeObject[];
  opaque: Set<string>;
  reached: Reached;
}
const reach = (reached: Reached, svc: Resource, why: string) => {
  if (!reached.has(svc)) reached.set(svc, why);
};

/**
 * The pods of the cluster by label, once per run: a Service's selector is looked up through its first label. A
 * workload scaled to 0 replicas runs no pod (an autoscaler does not scale one up from 0 either): what it matches is
 * said apart, as the reason a Service has no endpoints.
 */
function podFinder(ctx: CheckContext): (namespace: string, selector: Record<string, string>) => 'found' | 'none' | Resource {
  const pods = [
    ...templatesWithPorts(ctx.repo).map((t) => ({ namespace: t.namespace, labels: t.labels, resource: t.resource })),
    ...providedPods(ctx.repo).map((p) => ({ namespace: p.namespace, labels: p.labels as Record<string, unknown>, resource: undefined })),
  ];
  const bySelector = selectorIndex(pods, (p) => p.labels);
  const scaledToZero = (p: (typeof pods)[number]) => p.resource !== undefined && dig(p.resource.object, ['spec', 'replicas']) === 0;
  return (namespace, selector) => {
    const matched = bySelector({ matchLabels: selector }).filter((p) => p.namespace === namespace);
    if (matched.some((p) => !scaledToZero(p))) return 'found';
    return matched[0]?.resource ?? 'none';
  };
}

/**
 * A Service finds its pods by its selector: one that matches no pod the cluster runs (a workload of the repository
 * or a chart, one an operator makes, or one the distribution runs, providedOutsideGit) has no endpoints, and
 * whatever reaches it, a route, a client at its address or a monitor, gets no answer. A Service without a selector
 * (or with an empty one, which the endpoints controller treats alike) has its endpoints written by something else:
 * where something reaches it and no Endpoints or EndpointSlice of the repository is written for it, nothing answers
 * there either (the operator's kubelet Service, made at runtime, is not among these). Neither is judged in a
 * namespace the gate does not see whole.
 */
function checkSelectors(ctx: CheckContext, services: readonly Resource[], { reached, opaque }: Scope): void {
  let hasPods: ReturnType<typeof podFinder> | undefined;
  let filled: Set<string> | undefined;
  for (const svc of services) {
    const selector = dig(svc.object, ['spec', 'selector']) as Record<string, string> | undefined;
    if (!svc.namespace || opaque.has(svc.namespace)) continue;
    if (!isMap(selector) || Object.keys(selector).length === 0) {
      const reason = reached.get(svc);
      if (!reason || dig(svc.object, ['spec', 'type']) === 'ExternalName') continue;
      if ((filled ??= endpointsWritten(ctx)).has(`${svc.namespace}/${svc.name}`)) continue;
      ctx.fail(
        { resource: svc, path: ['spec'] },
        `Service ${svc.name} has no selector, and no Endpoints or EndpointSlice of the repository is written for it, so it has no endpoints, and ${reason}`,
      );
      continue;
    }
    const pods = (hasPods ??= podFinder(ctx))(svc.namespace, selector);
    if (pods === 'found') continue;
    const labels = Object.entries(selector)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    const why = pods === 'none' ? `selects no pod in ${svc.namespace} (${labels})` : `selects only the pods of ${pods.kind} ${pods.name}, scaled to 0 replicas`;
    ctx.fail(
      { resource: svc, path: ['spec', 'selector'] },
      `Service ${svc.name} ${why}, so it has no endpoints${reached.has(svc) ? `, and ${reached.get(svc)}` : ': nothing answers at it'}`,
    );
  }
}

/**
 * `namespace/service` of each Service an Endpoints object (by its name) or an EndpointSlice (by its service-name label)
 * of the repository fills, among those Argo CD applies: its install's resource.exclusions leave both kinds out.
 */
function endpointsWritten(ctx: CheckContext): Set<string> {
  const out = new Set<string>();
  const applied = verdictsOf(resourcesFilter(argocdSettings(ctx.resources, ctx.repo)).filter);
  for (const r of ctx.resources) {
    if (r.kind !== 'Endpoints' && r.kind !== 'EndpointSlice') continue;
    if (applied(groupOf(r.apiVersion), r.kind, filterCluster(owningApplication(ctx.repo, r))) !== 'managed') continue; // argocd-will-sync says so
    const namespace = namespaceOrDestination(ctx.repo, r);
    if (r.kind === 'Endpoints') out.add(`${namespace}/${r.name}`);
    else out.add(`${namespace}/${str(dig(r.object, ['metadata', 'labels', 'kubernetes.io/service-name']))}`);
  }
  return out;
}

function checkMonitors(ctx: CheckContext, { index, runtime, opaque, reached }: Scope): void {
  for (const sm of ctx.resources.filter((r) => r.kind === 'ServiceMonitor')) {
    const namespaces: string[] = list(dig(sm.object, ['spec', 'namespaceSelector', 'matchNames'])) as string[];
    const targets = namespaces.length ? namespaces : [namespaceOrDestination(ctx.repo, sm) ?? ''];
    if (targets.some((n) => opaque.has(n)) || dig(sm.object, ['spec', 'namespaceSelector', 'any']) === true) continue;
    // The whole selector, its expressions too, as the operator's relabelling keeps a Service by it.
    const selected = index.select(targets, obj(dig(sm.object, ['spec', 'selector'])));
    // A Service a controller creates at run time carries labels the gate cannot see.
    if (selected.length === 0 && runtime.some((e) => targets.includes(e.namespace))) continue;
    if (selected.length === 0) {
      ctx.fail({ resource: sm, path: ['spec', 'selector'] }, `ServiceMonitor ${sm.name} selects no Service in ${targets.join(', ')}: nothing is scraped`);
      continue;
    }
    for (const svc of selected)
      reach(reached, svc, `ServiceMonitor ${sm.name} scrapes it: the monitor has no target, and a rule on its up series fires for good`);
    const endpoints = objects(dig(sm.object, ['spec', 'endpoints'])) as { port?: string; targetPort?: unknown }[];
    if (endpoints.length === 0)
      ctx.fail(
        { resource: sm, path: dig(sm.object, ['spec', 'endpoints']) === undefined ? ['spec'] : ['spec', 'endpoints'] },
        `ServiceMonitor ${sm.name} has no endpoint: the operator writes no scrape job for it, and nothing is scraped`,
      );
    endpoints.forEach((e, i) => {
      if (e.port && !selected.some((s) => portsOf(s).some((p) => p.name === e.port)))
        ctx.fail({ resource: sm, path: ['spec', 'endpoints', i, 'port'] }, `ServiceMonitor ${sm.name} scrapes port ${e.port}, which no Service it selects has`);
    });
  }
}

/** Kinds whose strings are schemas and documentation, not addresses anything dials. */
const NOT_DIALED = new Set(['CustomResourceDefinition']);

/**
 * Every `<service>.<namespace>.svc[:port]` (or `scheme://<service>.<namespace>`) a resource or an app's settings
 * name: cluster DNS answers only for a Service, and only on the ports it has.
 */
function checkAddresses(ctx: CheckContext, { index, runtime, opaque, reached }: Scope): void {
  const namespaces = new Set(ctx.resources.flatMap((r) => (r.kind === 'Namespace' ? [r.name] : r.namespace ? [r.namespace] : [])));
  const close = (where: string, a: ServiceAddress, fail: (message: string) => void) => {
    if (opaque.has(a.namespace) || runtime.some((e) => e.namespace === a.namespace && e.name === a.service)) return;
    const svc = index.named(a.namespace, a.service);
    if (!svc) fail(`${where} names ${a.text}, but no Service ${a.namespace}/${a.service} exists: cluster DNS does not resolve it`);
    else if (a.port !== undefined && dig(svc.object, ['spec', 'type']) !== 'ExternalName' && !portsOf(svc).some((p) => p.port === a.port))
      fail(`${where} names ${a.text}, but Service ${a.namespace}/${a.service} has no port ${a.port}`);
    else reach(reached, svc, `${where} dials it at ${a.text}: nothing answers there`);
  };
  for (const r of ctx.resources.filter((x) => !NOT_DIALED.has(x.kind)))
    for (const a of serviceAddresses(r.object, namespaces)) close(`${r.kind} ${r.name}`, a, (m) => ctx.fail({ resource: r, path: a.path }, m));
  // The settings the scripts push into the apps: the addresses the apps dial each other at.
  const settings = [...ctx.repo.dataFiles.values()].filter((data) => argoGlobMatch(SETTINGS_FILES, data.file));
  for (const data of settings) for (const a of serviceAddresses(data.data, namespaces)) close(data.file, a, (m) => ctx.fail({ data, path: a.path }, m));
  settingsHostFindings(ctx, index, settings);
}

/** A URL whose host is one label (`http://radarr:7878`): the pod's resolver looks it up as a Service of its namespace first. */
const ONE_LABEL_URL = /^[a-z][a-z0-9+.-]*:\/\/([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)(?::\d{1,5})?(?:[/?#]|$)/;

/**
 * A container's variable that dials a one-label host one slip from `localhost` or from a Service of the pod's
 * namespace (`http://loclahost:8989`, `http://radrr:7878`): the resolver's search finds no such Service, and the
 * request fails. Another one-label name may be a host of the node's search domains, and is left alone.
 */
function checkOneLabelHosts(ctx: CheckContext, { index, runtime, opaque }: Scope): void {
  for (const r of ctx.resources) {
    const pod = podSpecOf(r);
    const ns = namespaceOrDestination(ctx.repo, r) ?? '';
    if (!pod || opaque.has(ns)) continue;
    const names = [...index.services, ...runtime].filter((s) => (s.namespace ?? '') === ns).map((s) => s.name);
    for (const c of containersOf(pod))
      objects(c.container.env).forEach((variable, i) => {
        const host = typeof variable.value === 'string' ? ONE_LABEL_URL.exec(variable.value)?.[1] : undefined;
        if (!host || host === 'localhost' || names.includes(host)) return;
        const meant = nearestName(host, ['localhost', ...names]);
        if (meant)
          ctx.fail(
            { resource: r, path: [...c.at, 'env', i, 'value'] },
            `${r.kind} ${r.name}: container ${c.name}'s ${str(variable.name)} dials ${JSON.stringify(host)}, neither localhost nor a Service of namespace ${ns}${suggesting(meant)}: the pod's resolver finds no such name, and every request fails`,
          );
      });
  }
}

export const serviceClosureCheck: PolicyCheck = {
  id: 'closure-service',
  description:
    "Every Service an Ingress routes to exists in its namespace with the port it names, every ServiceMonitor has an endpoint and selects some Service with the port its endpoints name (among them the manager Services Rook makes for a rendered CephCluster, with their labels and ports), every in-cluster address a resource or an app's settings name (<service>.<namespace>.svc[:port], or such a host beside its port) is a Service with that port, a settings host of one label is a Service of the app's namespace and one of the lab's zone is a host an Ingress serves, no container variable dials a one-label host one slip from localhost or a Service of its namespace, so is every Service the API server calls (a webhook configuration's webhooks, a CRD's conversion webhook, an APIService, on port 443 where unset), and every Service with a selector selects pods the cluster runs (a workload of the repository or a chart not scaled to 0 replicas, pods an operator makes from a Prometheus or Alertmanager, or pods the distribution runs, providedOutsideGit), or it has no endpoints, as one without a selector that something reaches has none unless an Endpoints or EndpointSlice of the repository is written for it; judged where the gate sees the namespace whole (invariants P1).",
  invariants: ['P1'],
  remediation:
    "point the route, the monitor or the address at a Service (and port) that exists, or add the port to the Service; make a Service's selector match its pods' labels (or list the distribution's pods in providedOutsideGit), or give a Service without one its selector",
  reads: {
    kinds: ['*'],
    everyKind: 'a Service is named by Ingresses, routes, probes, monitors and workloads of many kinds',
    files: [SETTINGS_FILES, ARGOCD_CM_PATCH],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const { services } = serviceIndex(ctx.repo, ctx.resources);
    // The Services an operator makes that the model knows, with their labels and ports: held to like any other.
    const operatorMade = rookOperatorServices(ctx.repo, ctx.resources);
    const index = indexServices([...services, ...operatorMade, API_SERVER_SERVICE]);
    const runtime = createdAtRuntime(ctx.repo).filter(
      (e) => e.kind === 'Service' && !operatorMade.some((s) => s.namespace === e.namespace && s.name === e.name),
    );
    const opaque = opaqueNamespaces(ctx.renders);
    const scope: Scope = { index, runtime, opaque, reached: new Map() };
    checkRoutes(ctx, scope);
    checkMonitors(ctx, scope);
    checkAddresses(ctx, scope);
    checkOneLabelHosts(ctx, scope);
    checkWebhooks(ctx, scope);
    checkSelectors(ctx, services, scope);
  },
};
