/**
 * closure-port-name: a port named by its name is one the pod declares. The API
 * server checks only that a name is well formed, never that it exists:
 *
 * - The kubelet resolves a probe's or a lifecycle hook's named port against
 *   the ports of that container alone (probe.ResolveContainerPort). A name it
 *   does not find fails the probe every time: a liveness probe restarts the
 *   container for good, a readiness probe keeps the pod out of its Services, a
 *   startup probe does both.
 * - The endpoints controller resolves a Service's named targetPort against
 *   each selected pod's containers, by name and protocol (podutil.FindPort),
 *   and gives a pod that has no such port no endpoint on it: nothing answers
 *   on that Service port (on any, when it is the Service's only one).
 *
 * Services whose selector matches no pod template here (an operator's pods,
 * the distribution's) are closure-service's to judge.
 */
import { dig, list, obj } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import type { Path } from '../../model/core/positions.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { podsBySelector } from '../../model/cluster/pod-templates.ts';
import { containersOf, podSpecOf, WORKLOAD_KINDS } from '../../model/core/workloads.ts';

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;
const HOOKS = ['postStart', 'preStop'] as const;

/** Every named port a container's probes and hooks send to, with where it is written. */
function namedTargets(container: Record<string, unknown>, at: Path): { name: string; what: string; path: Path }[] {
  const handlers: { handler: unknown; what: string; at: Path }[] = [
    ...PROBES.map((p) => ({ handler: container[p], what: p, at: [...at, p] })),
    ...HOOKS.map((h) => ({ handler: dig(container, ['lifecycle', h]), what: `${h} hook`, at: [...at, 'lifecycle', h] })),
  ];
  return handlers.flatMap(({ handler, what, at: where }) =>
    (['httpGet', 'tcpSocket'] as const).flatMap((kind) => {
      const port = dig(handler, [kind, 'port']);
      return typeof port === 'string' ? [{ name: port, what, path: [...where, kind, 'port'] }] : [];
    }),
  );
}

export const portNameClosureCheck: PolicyCheck = {
  id: 'closure-port-name',
  description:
    "Every port named by its name is one the pod declares: a probe's or a lifecycle hook's named port is a port of its own container (the kubelet fails the probe otherwise: a liveness probe restarts the container for good, a readiness probe keeps the pod out of its Services), and a Service's named targetPort is a port, with the Service port's protocol, of the pods it selects (the endpoints controller gives a pod without it no endpoint on that port, and nothing answers there), and so is a targetPort given by number when the repository wrote those pods (invariants P1).",
  invariants: ['P1'],
  remediation:
    "name a port the container declares (spec.containers[].ports[].name), or give the container that port's name; a Service's targetPort names its pods' port, with the same protocol",
  reads: { kinds: ['Service', ...WORKLOAD_KINDS], renders: true },
  exemptible: false,
  run(ctx) {
    for (const resource of ctx.resources) {
      const pod = podSpecOf(resource);
      if (!pod) continue;
      for (const c of containersOf(pod)) {
        const declared = new Set(list(c.container.ports).map((p) => obj(p).name));
        for (const target of namedTargets(c.container, c.at))
          if (!declared.has(target.name))
            ctx.fail(
              { resource, path: target.path },
              `${resource.kind} ${resource.name}: container ${c.name}'s ${target.what} sends to port ${target.name}, which the container does not declare (${[...declared].filter(Boolean).join(', ') || 'no named ports'}): the kubelet fails it every time`,
            );
      }
    }
    const select = podsBySelector(ctx.repo);
    for (const svc of ctx.resources.filter((r) => r.kind === 'Service')) {
      const selector = dig(svc.object, ['spec', 'selector']) as Record<string, string> | undefined;
      if (!selector || Object.keys(selector).length === 0) continue;
      const pods = select({ matchLabels: selector }).filter((t) => t.namespace === svc.namespace);
      if (pods.length === 0) continue;
      list(dig(svc.object, ['spec', 'ports'])).forEach((raw, i) => {
        const port = obj(raw);
        const protocol = scalarText(port.protocol ?? 'TCP');
        if (typeof port.targetPort !== 'string') {
          // By number: a chart's process may serve a port its pod never declares, so only pods the repository wrote,
          // which declare every port they serve (the network-policy checks read them so), are held to it.
          const number = scalarText(port.targetPort ?? port.port);
          const own = pods.filter((t) => t.upstream === undefined);
          if (own.length === 0 || own.some((t) => t.served.some((p) => p.number === number && p.protocol === protocol))) return;
          ctx.fail(
            { resource: svc, path: ['spec', 'ports', i, port.targetPort === undefined ? 'port' : 'targetPort'] },
            `Service ${svc.name}'s port ${scalarText(port.name ?? port.port)} sends to port ${number} (${protocol}), which no pod it selects declares (${own
              .map((t) => `${t.resource.kind} ${t.resource.name}`)
              .join(
                ', ',
              )}): a mistyped number leads nowhere, and a port served undeclared is invisible to the network-policy checks; declare the port on the container that serves it`,
          );
          return;
        }
        if (pods.some((t) => t.served.some((p) => p.name === port.targetPort && p.protocol === protocol))) return;
        ctx.fail(
          { resource: svc, path: ['spec', 'ports', i, 'targetPort'] },
          `Service ${svc.name}'s port ${scalarText(port.name ?? port.port)} sends to targetPort ${port.targetPort} (${protocol}), which no pod it selects declares (${pods
            .map((t) => `${t.resource.kind} ${t.resource.name}`)
            .join(', ')}): the endpoints controller gives this port no endpoint, and nothing answers on it`,
        );
      });
    }
  },
};
