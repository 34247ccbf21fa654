/**
 * Which Prometheus loads what. The Prometheus operator loads a PrometheusRule, ServiceMonitor, PodMonitor, Probe or
 * ScrapeConfig into a Prometheus only when that Prometheus' selector for the kind matches its labels and its namespace
 * selector its namespace; the API server stores the rest. A null selector selects nothing, an empty one everything; a null
 * namespace selector only the Prometheus' own namespace (the Prometheus CRD's field docs).
 *
 * The Prometheus is read as the operator reads it when the chart that makes it was rendered. Where it was not, as
 * kube-prometheus-stack's template builds it from the values (templates/prometheus/prometheus.yaml): a selector the
 * values give, else `release: <release name>` while the kind's *SelectorNilUsesHelmValues is true (its default), else
 * everything; a namespace selector the values give, else every namespace.
 */
import { namespaceOrDestination, type ArgoApp, applicationsByName } from '../argocd/argocd.ts';
import { chartValues, type ChartValues } from '../helm/chart-values.ts';
import { dig, isMap, str, type Obj } from '../core/dig.ts';
import { selectorMatches } from '../core/label-selector.ts';
import type { Resource } from '../core/manifest.ts';
import type { CheckContext } from '../checks/kit.ts';

/** The fields of a Prometheus that select one kind of object, and where it looks for them. */
export interface SelectorFields {
  selector: string;
  namespaceSelector: string;
  nilUsesHelmValues: string;
}

/** The kinds a Prometheus selects, each with its selector fields. */
export const SELECTED_KINDS: Readonly<Record<string, SelectorFields>> = {
  PrometheusRule: { selector: 'ruleSelector', namespaceSelector: 'ruleNamespaceSelector', nilUsesHelmValues: 'ruleSelectorNilUsesHelmValues' },
  ServiceMonitor: {
    selector: 'serviceMonitorSelector',
    namespaceSelector: 'serviceMonitorNamespaceSelector',
    nilUsesHelmValues: 'serviceMonitorSelectorNilUsesHelmValues',
  },
  PodMonitor: { selector: 'podMonitorSelector', namespaceSelector: 'podMonitorNamespaceSelector', nilUsesHelmValues: 'podMonitorSelectorNilUsesHelmValues' },
  Probe: { selector: 'probeSelector', namespaceSelector: 'probeNamespaceSelector', nilUsesHelmValues: 'probeSelectorNilUsesHelmValues' },
  ScrapeConfig: {
    selector: 'scrapeConfigSelector',
    namespaceSelector: 'scrapeConfigNamespaceSelector',
    nilUsesHelmValues: 'scrapeConfigSelectorNilUsesHelmValues',
  },
};

const KPS = 'kube-prometheus-stack';

/** A Prometheus as the operator reads it: where it runs, its spec, how the gate knows it, and its object where rendered. */
export interface PrometheusView {
  name: string;
  namespace: string;
  spec: Obj;
  from: string;
  /** The rendered Prometheus; else the values it is built from, where a finding about it lands. */
  resource?: Resource;
  values?: ChartValues;
}

/** The Prometheus the rendered chart makes, as written. */
function renderedPrometheus(r: Resource, namespace: string): PrometheusView {
  return { name: r.name, namespace, spec: (dig(r.object, ['spec']) ?? {}) as Obj, from: `Prometheus ${namespace}/${r.name}`, resource: r };
}

/** kube-prometheus-stack's fullname (its _helpers.tpl): the override, else the release, with the chart's name where it lacks it; 26 characters at most. */
function stackFullname(release: string, values: Obj): string {
  const override = dig(values, ['fullnameOverride']);
  const name = str(dig(values, ['nameOverride'])) || KPS;
  const full = typeof override === 'string' && override !== '' ? override : release.includes(name) ? release : `${release}-${name}`;
  return full.slice(0, 26).replace(/-+$/, '');
}

/**
 * The Alertmanagers the template lists (templates/prometheus/prometheus.yaml): none where alerting is disabled, the
 * values' alertingEndpoints where given, else the chart's own Alertmanager where it is enabled.
 */
function alertingFromValues(values: Obj, namespace: string, fullname: string): Obj | undefined {
  const endpoints = dig(values, ['prometheus', 'prometheusSpec', 'alertingEndpoints']);
  const given = Array.isArray(endpoints) && endpoints.length > 0;
  if (dig(values, ['prometheus', 'prometheusSpec', 'disableAlerting']) === true) return undefined;
  if (given) return { alertmanagers: endpoints };
  if (dig(values, ['alertmanager', 'enabled']) === false) return undefined;
  const spec = (dig(values, ['alertmanager', 'alertmanagerSpec']) ?? {}) as Obj;
  const own = { namespace, name: `${fullname}-alertmanager`, port: spec.portName ?? 'http-web', pathPrefix: spec.routePrefix ?? '/' };
  return { alertmanagers: [own] };
}

/** The Prometheus kube-prometheus-stack's template would build from these values (see the module comment). */
function fromValues(app: ArgoApp | undefined, { appName, values }: ChartValues): PrometheusView | undefined {
  if (dig(values, ['prometheus', 'enabled']) === false) return undefined;
  const spec = (dig(values, ['prometheus', 'prometheusSpec']) ?? {}) as Obj;
  const release = app?.sources.find((s) => s.chart === KPS)?.helm?.releaseName ?? appName;
  // The fields a monitor is judged against (monitoring-accepted), as the template passes them on.
  const built: Obj = Object.fromEntries(
    ['scrapeInterval', 'scrapeClasses', 'version', 'image', 'arbitraryFSAccessThroughSMs', 'enableFeatures']
      .filter((k) => spec[k] !== undefined)
      .map((k) => [k, spec[k]]),
  );
  const given = (v: unknown) => isMap(v) && Object.keys(v).length > 0;
  for (const fields of Object.values(SELECTED_KINDS)) {
    built[fields.selector] = given(spec[fields.selector])
      ? spec[fields.selector]
      : spec[fields.nilUsesHelmValues] !== false
        ? { matchLabels: { release } }
        : {};
    built[fields.namespaceSelector] = given(spec[fields.namespaceSelector]) ? spec[fields.namespaceSelector] : {};
  }
  const namespace = str(dig(values, ['namespaceOverride'])) || app?.destinationNamespace || '';
  const fullname = stackFullname(release, values);
  const alerting = alertingFromValues(values, namespace, fullname);
  if (alerting) built.alerting = alerting;
  return { name: `${fullname}-prometheus`, namespace, spec: built, from: `the Prometheus ${KPS}'s values build (app ${appName})` };
}

/** The Prometheuses the operator runs: the rendered ones as written, else the one the chart's values build. */
export function prometheusViews(ctx: CheckContext): PrometheusView[] {
  const rendered = ctx.resources.filter((r) => r.kind === 'Prometheus');
  if (rendered.length) return rendered.map((r) => renderedPrometheus(r, namespaceOrDestination(ctx.repo, r) ?? ''));
  const apps = applicationsByName(ctx.repo);
  return chartValues(ctx.repo, KPS).flatMap((v) => {
    const view = fromValues(apps.get(v.appName), v);
    return view ? [{ ...view, values: v }] : [];
  });
}

/** A label selector as the operator reads it: null selects nothing, {} everything. */
const selects = (selector: unknown, labels: Obj): boolean => selector !== undefined && selector !== null && selectorMatches(selector as Obj, labels);

const describe = (selector: unknown): string =>
  selector === undefined || selector === null
    ? 'nothing (its selector is null)'
    : Object.entries((dig(selector, ['matchLabels']) ?? {}) as Obj)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(', ') || 'by expressions';

/** An object a Prometheus may select: its kind, namespace and labels, and the labels of each namespace. */
export interface Selectable {
  kind: string;
  namespace: string;
  labels: Obj;
}

/** Why the Prometheus does not load the object; undefined where it does. */
export function notLoadedBecause(p: PrometheusView, object: Selectable, namespaceLabels: ReadonlyMap<string, Obj>): string | undefined {
  const fields = SELECTED_KINDS[object.kind]!;
  const { namespace } = object;
  const nsSelector = p.spec[fields.namespaceSelector];
  const inNamespace =
    nsSelector === undefined || nsSelector === null
      ? namespace === p.namespace
      : selects(nsSelector, namespaceLabels.get(namespace) ?? { 'kubernetes.io/metadata.name': namespace });
  if (!inNamespace) return `${p.from} does not look in namespace ${namespace} (its ${fields.namespaceSelector})`;
  return selects(p.spec[fields.selector], object.labels) ? undefined : `${p.from} selects ${object.kind}s by ${describe(p.spec[fields.selector])}`;
}

/** An object's kind, namespace and labels, as a Prometheus selects it. */
export function selectable(ctx: CheckContext, object: Resource): Selectable {
  return { kind: object.kind, namespace: namespaceOrDestination(ctx.repo, object) ?? '', labels: (dig(object.object, ['metadata', 'labels']) ?? {}) as Obj };
}
