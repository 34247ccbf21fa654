/**
 * What a ServiceMonitor endpoint scrapes, as the Prometheus operator reads it (v0.93, generateServiceMonitorConfig):
 * the Services its selector matches in its own namespace, the ones its namespaceSelector names, or every one; of each,
 * the ports its relabelling keeps (the one `port` names, those whose target is `targetPort`, or every one); the path
 * (`/metrics` where none is given); and behind each port, the containers of the Service's pods that listen there.
 */
import { dig, list, obj, objects, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { scalarText } from '../core/text.ts';
import { containersOf, podSpecOf, type ContainerRef } from '../core/workloads.ts';
import { selectorMatches } from '../core/label-selector.ts';
import { templatesWithPorts } from '../cluster/pod-templates.ts';
import { serviceIndex } from '../cluster/service-addresses.ts';
import type { Repo } from '../repository/repo.ts';

/** The Services a monitor selects: in its own namespace, the ones its namespaceSelector names, or every one. */
export function monitorServices(repo: Repo, resources: readonly Resource[], monitor: Resource, namespace: string): Resource[] {
  const index = serviceIndex(repo, resources);
  const nsSelector = obj(dig(monitor.object, ['spec', 'namespaceSelector']));
  const names = list(nsSelector.matchNames).map(String);
  const selector = obj(dig(monitor.object, ['spec', 'selector']));
  return nsSelector.any === true ? index.matching(selector) : index.select(names.length ? names : [namespace], selector);
}

/**
 * The ports of a Service an endpoint scrapes, by name (or number where unnamed), as the operator's relabelling keeps
 * them: the one its `port` names, the ones whose target is its `targetPort`, or, with neither, every one.
 */
export function scrapedPorts(service: Resource, e: Obj): string[] {
  const ports = objects(dig(service.object, ['spec', 'ports']));
  const named = (p: Obj) => scalarText(p.name ?? p.port);
  if (e.port !== undefined) return ports.filter((p) => p.name === e.port).map(named);
  if (e.targetPort !== undefined) return ports.filter((p) => scalarText(p.targetPort ?? p.port) === scalarText(e.targetPort)).map(named);
  return ports.map(named);
}

/** The path an endpoint asks for: its own, or the operator's default. */
export const endpointPath = (e: Obj): string => (typeof e.path === 'string' && e.path !== '' ? e.path : '/metrics');

/**
 * The containers behind one port of a Service (by its name, or number where unnamed): of the repository's pod templates
 * in the Service's namespace whose labels its selector matches, each container that declares the port's target (by
 * number, or by name), the target being the port itself where none is given.
 */
export function containersBehind(repo: Repo, service: Resource, port: string, namespace: string): { resource: Resource; c: ContainerRef }[] {
  const selector = dig(service.object, ['spec', 'selector']);
  if (selector === null || typeof selector !== 'object' || Object.keys(selector).length === 0) return [];
  const entry = objects(dig(service.object, ['spec', 'ports'])).find((p) => scalarText(p.name ?? p.port) === port);
  if (!entry) return [];
  const target = scalarText(entry.targetPort ?? entry.port);
  return templatesWithPorts(repo)
    .filter((t) => t.namespace === namespace && selectorMatches({ matchLabels: selector }, t.labels))
    .flatMap((t) => {
      const pod = podSpecOf(t.resource);
      const listening = pod
        ? containersOf(pod).filter((c) => objects(c.container.ports).some((p) => scalarText(p.containerPort) === target || p.name === target))
        : [];
      return listening.map((c) => ({ resource: t.resource, c }));
    });
}
