/**
 * alerts-reach-alertmanager: an alert Prometheus fires goes nowhere unless Prometheus sends it to an Alertmanager.
 * The operator writes each entry of the Prometheus' `alerting.alertmanagers` as an endpoints discovery in the entry's
 * namespace kept to the Service the entry names and the port of that Service it names, or for a port number the pods'
 * container port of that number (model/prometheus-operator/discovery.ts: alertmanagerTarget, measured against the
 * operator's own configuration tests), and Prometheus posts to `<pathPrefix>/api/v2/alerts` there. A Prometheus with
 * no entry (kube-prometheus-stack's `alertmanager.enabled: false` or `disableAlerting: true`), an entry naming a Service
 * or port that does not exist, a Service that is no Alertmanager's, a port number other than the web port (9093; 9094
 * is the cluster's), an Alertmanager that listens on 127.0.0.1 alone (`listenLocal`), or a pathPrefix other than the
 * route prefix that Alertmanager answers under (404): the API server takes all of it, Prometheus evaluates every rule,
 * and no alert, Watchdog included, leaves it.
 */
import { dig, obj, objects, str, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { createdAtRuntime } from '../../model/argocd/app-declarations.ts';
import { opaqueNamespaces, operatorPodsSelected, type OperatorPod } from '../../model/cluster/providers.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { prometheusViews, type PrometheusView } from '../../model/prometheus-operator/selection.ts';
import { alertmanagerTarget } from '../../model/prometheus-operator/discovery.ts';
import { scalarText } from '../../model/core/text.ts';
import { serviceIndex } from '../../model/cluster/service-addresses.ts';

/** Alertmanager's route prefix as it normalizes it, and Prometheus' path prefix as it joins the API path to it. */
const prefix = (p: unknown): string => `/${str(p).replace(/^\/+|\/+$/g, '')}`;

/** Where a finding about the Prometheus lands: its rendered field, else the values key kube-prometheus-stack builds it from. */
function placeOf(view: PrometheusView, renderedPath: Path, valuesPath: Path): FailurePlace {
  if (view.resource) return { resource: view.resource, path: renderedPath };
  return { data: view.values!.source, path: valuesPath };
}

/** Why the Prometheus lists no Alertmanager, at the values key that turned it off. */
function noAlertmanagerPlace(view: PrometheusView): FailurePlace {
  const values = view.values?.values ?? {};
  const off = dig(values, ['prometheus', 'prometheusSpec', 'disableAlerting']) === true;
  return placeOf(view, ['spec'], off ? ['prometheus', 'prometheusSpec', 'disableAlerting'] : ['alertmanager', 'enabled']);
}

/** The pods the operator makes for the Alertmanagers a Service selects, in its namespace, each with its web port. */
function alertmanagerPodsBehind(ctx: CheckContext, svc: Resource, namespace: string): OperatorPod[] {
  const alertmanagers = ctx.resources.filter((r) => r.kind === 'Alertmanager');
  return operatorPodsSelected(ctx.repo, alertmanagers, { namespace, selector: obj(dig(svc.object, ['spec', 'selector'])) });
}

/** Whether a Service's port sends to the pods' web listener: its target is the web port's number or its name. */
function reachesWebPort(port: Obj, pods: readonly OperatorPod[]): boolean {
  const target = scalarText(port.targetPort ?? port.port);
  return pods.some((p) => p.named.has(target) || [...p.named.values()].includes(target));
}

function judgeEntry(ctx: CheckContext, view: PrometheusView, entry: Obj, i: number): void {
  const target = alertmanagerTarget(entry, view.namespace, view.spec);
  const namespace = target.discovery.namespaces[0]!;
  const name = target.service;
  const at = (field: string) => placeOf(view, ['spec', 'alerting', 'alertmanagers', i, field], ['prometheus', 'prometheusSpec', 'alertingEndpoints', i, field]);
  const sends = `${view.from} sends its alerts to Service ${namespace}/${name}`;
  if (
    opaqueNamespaces(ctx.renders).has(namespace) ||
    createdAtRuntime(ctx.repo).some((e) => e.kind === 'Service' && e.namespace === namespace && e.name === name)
  )
    return;
  const svc = serviceIndex(ctx.repo, ctx.resources).named(namespace, name);
  if (!svc) return ctx.fail(at('name'), `${sends}, which nothing provides: no alert it fires reaches an Alertmanager`);
  const port = target.port;
  const ports = objects(dig(svc.object, ['spec', 'ports']));
  if (port && 'name' in port && !ports.some((p) => p.name === port.name))
    return ctx.fail(
      at('port'),
      `${sends}, port ${port.name}, which the Service does not have (${ports.map((p) => str(p.name)).join(', ')}): no endpoint is kept, and no alert reaches an Alertmanager`,
    );
  const pods = alertmanagerPodsBehind(ctx, svc, namespace);
  const alertmanagers = pods.map((p) => p.resource);
  if (alertmanagers.length === 0) return ctx.fail(at('name'), `${sends}, whose pods are no Alertmanager's: every alert it posts to /api/v2/alerts is refused`);
  // A port number keeps the endpoints whose pod's container port has that number: only the web port is Alertmanager's API.
  const webPort = Number([...pods[0]!.named.values()][0]);
  if (port && 'containerPort' in port && (port.containerPort !== webPort || !ports.some((p) => reachesWebPort(p, pods))))
    return ctx.fail(
      at('port'),
      port.containerPort !== webPort
        ? `${sends}, container port ${port.containerPort}, which is not Alertmanager's web port (${webPort}; 9094 is its cluster's): no alert reaches its API`
        : `${sends}, container port ${webPort}, which no port of the Service sends to: no endpoint is kept, and no alert reaches an Alertmanager`,
    );
  const local = alertmanagers.find((am) => dig(am.object, ['spec', 'listenLocal']) === true);
  if (local)
    return ctx.fail(
      { resource: local, path: ['spec', 'listenLocal'] },
      `${sends}, but Alertmanager ${local.name} sets listenLocal: it listens on 127.0.0.1 alone and declares no web port, and no alert from another pod reaches it`,
    );
  const routes = alertmanagers.map((am) => prefix(dig(am.object, ['spec', 'routePrefix'])));
  const posts = prefix(target.pathPrefix);
  if (!routes.includes(posts))
    ctx.fail(
      at('pathPrefix'),
      `${sends} under ${posts}, but Alertmanager ${alertmanagers[0]!.name} answers under its routePrefix ${routes[0]}: every alert posted to ${posts.replace(/\/$/, '')}/api/v2/alerts gets 404`,
    );
}

export const alertsReachAlertmanagerCheck: PolicyCheck = {
  id: 'alerts-reach-alertmanager',
  description:
    "Every Prometheus sends its alerts to an Alertmanager: its alerting lists one (as rendered, or as kube-prometheus-stack's values build it: not with alertmanager.enabled false and no alertingEndpoints, nor with disableAlerting), and each Alertmanager it lists is a Service in its namespace with the port it names (a port number: the web port, 9093), whose pods are an Alertmanager's listening beyond 127.0.0.1, which answers under the pathPrefix it posts to; otherwise no alert, Watchdog included, leaves Prometheus, and nothing turns red until the external watchdog says DOWN (invariants A11, A12).",
  invariants: ['A11', 'A12'],
  remediation:
    "keep kube-prometheus-stack's Alertmanager enabled (or list yours in prometheus.prometheusSpec.alertingEndpoints), and name its Service, that Service's port name and the Alertmanager's routePrefix in each entry",
  reads: { kinds: ['Prometheus', 'Alertmanager', 'Service', 'Namespace'], charts: ['kube-prometheus-stack'], renders: true },
  exemptible: false,
  run(ctx) {
    for (const view of prometheusViews(ctx)) {
      const entries = objects(dig(view.spec, ['alerting', 'alertmanagers']));
      if (entries.length === 0 && view.spec.additionalAlertManagerConfigs !== undefined) {
        ctx.notJudged(
          placeOf(view, ['spec', 'additionalAlertManagerConfigs'], ['prometheus', 'prometheusSpec']),
          `${view.from} sends its alerts to the Alertmanagers of its additionalAlertManagerConfigs, a Secret's text the gate does not read`,
        );
        continue;
      }
      if (entries.length === 0) {
        ctx.fail(
          noAlertmanagerPlace(view),
          `${view.from} lists no Alertmanager (its alerting is empty): every alert it fires, Watchdog included, stops there, and nothing turns red until the external watchdog says DOWN`,
        );
        continue;
      }
      entries.forEach((entry, i) => judgeEntry(ctx, view, entry, i));
    }
  },
};
