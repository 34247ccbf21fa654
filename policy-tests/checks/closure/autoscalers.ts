/**
 * closure-autoscaler: what a HorizontalPodAutoscaler needs to scale anything (Kubernetes v1.36,
 * pkg/controller/podautoscaler): its scaleTargetRef names a workload in its namespace that has a scale subresource,
 * and the metrics it reads are served. The controller reads Resource and ContainerResource metrics from the resource
 * metrics API (metrics.k8s.io, metrics-server's), Pods and Object metrics from the custom metrics API
 * (custom.metrics.k8s.io, an adapter's) and External ones from external.metrics.k8s.io; an autoscaler/v2 with no
 * metrics is given CPU at 80 % (SetDefaults_HorizontalPodAutoscaler), and autoscaling/v1 reads CPU alone. The API
 * server stores an autoscaler whatever it names; without its target it reports FailedGetScale, without its metrics
 * FailedGetResourceMetric (or the external or custom one), and it never scales.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { namespacedProviders, opaqueNamespaces, provided } from '../../model/cluster/providers.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { dig } from '../../model/core/dig.ts';
import { scaleTargetOf } from '../../model/core/workloads.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { FACTS_FIX, unrenderedSources } from './closing.ts';

/** The built-in kinds with a scale subresource an autoscaler can drive. */
const SCALABLE = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);
/** Built-in workloads without one: the autoscaler can never read or set their replicas. */
const UNSCALABLE = new Set(['DaemonSet', 'Job', 'CronJob', 'Pod']);

/** The metrics API each metric type is read from, and the APIService names that serve it. */
const RESOURCE_METRICS = { api: 'the resource metrics API', services: ['v1beta1.metrics.k8s.io'], server: 'metrics-server' };
const CUSTOM_METRICS = {
  api: 'the custom metrics API',
  services: ['v1beta2.custom.metrics.k8s.io', 'v1beta1.custom.metrics.k8s.io'],
  server: 'a metrics adapter',
};
const METRICS_APIS: Readonly<Record<string, { api: string; services: readonly string[]; server: string }>> = {
  Resource: RESOURCE_METRICS,
  ContainerResource: RESOURCE_METRICS,
  Pods: CUSTOM_METRICS,
  Object: CUSTOM_METRICS,
  External: { api: 'the external metrics API', services: ['v1beta1.external.metrics.k8s.io'], server: 'an external metrics adapter' },
};

/** The metric types an autoscaler reads: its spec.metrics' types, else CPU (a Resource metric) by default. */
function metricTypes(object: unknown, apiVersion: string): { type: string; path: (string | number)[] }[] {
  const metrics = dig(object, ['spec', 'metrics']);
  if (apiVersion === 'autoscaling/v1' || !Array.isArray(metrics) || metrics.length === 0) return [{ type: 'Resource', path: ['spec'] }];
  return metrics.flatMap((m, i) => {
    const type = dig(m, ['type']);
    return typeof type === 'string' ? [{ type, path: ['spec', 'metrics', i, 'type'] }] : [];
  });
}

export const autoscalerClosureCheck: PolicyCheck = {
  id: 'closure-autoscaler',
  description: `Every HorizontalPodAutoscaler scales something and can read what it scales by: its scaleTargetRef names a Deployment, StatefulSet or ReplicaSet (or a custom resource) in its namespace, and the metrics API its metrics are read from (metrics.k8s.io for Resource metrics and the CPU default, custom.metrics.k8s.io for Pods and Object, external.metrics.k8s.io for External) has its APIService in the repository or providedOutsideGit; the API server stores an autoscaler whatever it names, and it never scales (invariants P1).`,
  invariants: ['P1'],
  remediation: `name the workload the autoscaler is for, and deploy the metrics API it reads (metrics-server for CPU and memory), ${FACTS_FIX}`,
  reads: { kinds: ['HorizontalPodAutoscaler', 'APIService', 'Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'Application'], renders: true },
  exemptible: false,
  run(ctx) {
    const autoscalers = ctx.resources.filter((x) => x.kind === 'HorizontalPodAutoscaler');
    if (!autoscalers.length) return;
    const services = provided(ctx.repo, 'APIService');
    const opaque = opaqueNamespaces(ctx.renders);
    const unrendered = unrenderedSources(ctx);
    for (const r of autoscalers) {
      const namespace = namespaceOrDestination(ctx.repo, r) ?? '';
      const target = scaleTargetOf(r.object);
      const at = { resource: r, path: ['spec', 'scaleTargetRef', 'name'] };
      if (target) {
        const { kind, name } = target;
        if (UNSCALABLE.has(kind))
          ctx.fail(
            at,
            `HorizontalPodAutoscaler ${r.name} scales ${kind} ${name}, which has no scale subresource: the autoscaler reports FailedGetScale and never scales`,
          );
        else if (SCALABLE.has(kind) && !opaque.has(namespace)) {
          const held = namespacedProviders(ctx.repo, kind);
          if (!held.has(`${namespace}/${name}`)) {
            const near = didYouMean(name, new Set([...held].filter((k) => k.startsWith(`${namespace}/`)).map((k) => k.slice(namespace.length + 1))));
            ctx.fail(
              at,
              `HorizontalPodAutoscaler ${r.name} scales ${kind} ${namespace}/${name}, which nothing in the repository provides: the autoscaler reports FailedGetScale and never scales${near}`,
            );
          }
        }
      }
      for (const { type, path } of metricTypes(r.object, r.apiVersion)) {
        const needs = METRICS_APIS[type];
        if (!needs || needs.services.some((s) => services.has(s))) continue;
        const where = { resource: r, path };
        const what = `${type === 'Resource' && path.length === 1 ? 'CPU (its default metric)' : `${type} metrics`}, which it reads from ${needs.api} (APIService ${needs.services.join(' or ')}, served by ${needs.server})`;
        if (unrendered.count > 0)
          ctx.notJudged(
            where,
            `HorizontalPodAutoscaler ${r.name} reads ${what}, not in what the gate sees, and ${unrendered.text}, any of which may provide it`,
          );
        else
          ctx.fail(
            where,
            `HorizontalPodAutoscaler ${r.name} reads ${what}, and nothing in the repository provides it: the autoscaler cannot read its metrics and never scales`,
          );
      }
    }
  },
};
