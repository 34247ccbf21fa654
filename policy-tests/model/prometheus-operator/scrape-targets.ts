/**
 * What a ServiceMonitor endpoint scrapes, as the Prometheus operator reads it (v0.93, generateServiceMonitorConfig):
 * the Services its selector matches in its own namespace, the ones its namespaceSelector names, or every one; of each,
 * the ports its relabelling keeps (the one `port` names, those whose target is `targetPort`, or every one); the path
 * (`/metrics` where none is given); and behind each port, the containers of the Service's pods that listen there.
 */
import { dig, obj, objects, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { scalarText } from '../core/text.ts';
import { containersOf, podSpecOf, type ContainerRef } from '../core/workloads.ts';
import { podsBySelector, type Template } from '../cluster/pod-templates.ts';
import { monitorNamespaces } from './discovery.ts';
import { serviceIndex } from '../cluster/service-addresses.ts';
import type { Repo } from '../repository/repo.ts';

/** The Services a monitor selects, in the namespaces the operator reads for it (`monitorNamespaces`; `''` is every one). */
export function monitorServices(repo: Repo, resources: readonly Resource[], monitor: Resource, namespace: string): Resource[] {
  const index = serviceIndex(repo, resources);
  const selector = obj(dig(monitor.object, ['spec', 'selector']));
  const names = monitorNamespaces(dig(monitor.object, ['spec', 'namespaceSelector']), namespace, false);
  return names.includes('') ? index.matching(selector) : index.select(names, selector);
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

/** The pod templates a Service's selector selects in its namespace (none for a Service without one), from an index of them. */
export function podsBehind(service: Resource, namespace: string, pods: (selector: Obj) => Template[]): Template[] {
  const selector = obj(dig(service.object, ['spec', 'selector']));
  if (Object.keys(selector).length === 0) return [];
  return pods({ matchLabels: selector }).filter((t) => t.namespace === namespace);
}

/** The pod port a Service port named `name` sends to: its targetPort, else its port. */
export function namedPortTarget(service: Resource, name: string): string | undefined {
  const port = objects(dig(service.object, ['spec', 'ports'])).find((p) => p.name === name);
  return port && scalarText(port.targetPort ?? port.port);
}

/**
 * The containers behind one port of a Service (by its name, or number where unnamed, as `scrapedPorts` gives it): of the
 * pod templates its selector selects in its namespace, each container that declares the port's target (by number, or by
 * name), the target being the port itself where none is given.
 */
export function containersBehind(repo: Repo, service: Resource, port: string, namespace: string): { resource: Resource; c: ContainerRef }[] {
  const entry = objects(dig(service.object, ['spec', 'ports'])).find((p) => scalarText(p.name ?? p.port) === port);
  if (!entry) return [];
  const target = scalarText(entry.targetPort ?? entry.port);
  return podsBehind(service, namespace, podsBySelector(repo)).flatMap((t) => {
    const pod = podSpecOf(t.resource);
    const listening = pod
      ? containersOf(pod).filter((c) => objects(c.container.ports).some((p) => scalarText(p.containerPort) === target || p.name === target))
      : [];
    return listening.map((c) => ({ resource: t.resource, c }));
  });
}
