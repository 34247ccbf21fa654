/**
 * monitoring-loaded: a rule file or a monitor is only a request. The
 * Prometheus operator loads a PrometheusRule, ServiceMonitor, PodMonitor or
 * Probe into a Prometheus only when that Prometheus' selector for the kind
 * matches its labels and its namespace selector its namespace; the API server
 * stores the rest, and nothing turns red. A null selector selects nothing, an
 * empty one everything; a null namespace selector only the Prometheus' own
 * namespace (the Prometheus CRD's field docs).
 *
 * The Prometheus is read as the operator reads it when the chart that makes it
 * was rendered. Where it was not, as kube-prometheus-stack's template builds
 * it from the values (templates/prometheus/prometheus.yaml): a selector the
 * values give, else `release: <release name>` while the kind's
 * *SelectorNilUsesHelmValues is true (its default), else everything; a
 * namespace selector the values give, else every namespace.
 */
import { namespaceOrDestination, type ArgoApp, applicationsByName } from '../../model/argocd/argocd.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { dig, isMap } from '../../model/core/dig.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { namespaceLabels } from '../../model/cluster/pod-templates.ts';

type Obj = Record<string, unknown>;

interface Loads {
  selector: string;
  namespaceSelector: string;
  nilUsesHelmValues: string;
  effect: string;
}

const LOADED: Readonly<Record<string, Loads>> = {
  PrometheusRule: {
    selector: 'ruleSelector',
    namespaceSelector: 'ruleNamespaceSelector',
    nilUsesHelmValues: 'ruleSelectorNilUsesHelmValues',
    effect: 'its rules never evaluate, and none of its alerts can fire',
  },
  ServiceMonitor: {
    selector: 'serviceMonitorSelector',
    namespaceSelector: 'serviceMonitorNamespaceSelector',
    nilUsesHelmValues: 'serviceMonitorSelectorNilUsesHelmValues',
    effect: 'its targets are never scraped',
  },
  PodMonitor: {
    selector: 'podMonitorSelector',
    namespaceSelector: 'podMonitorNamespaceSelector',
    nilUsesHelmValues: 'podMonitorSelectorNilUsesHelmValues',
    effect: 'its pods are never scraped',
  },
  Probe: {
    selector: 'probeSelector',
    namespaceSelector: 'probeNamespaceSelector',
    nilUsesHelmValues: 'probeSelectorNilUsesHelmValues',
    effect: 'its targets are never probed',
  },
};

const KPS = 'kube-prometheus-stack';

/** A Prometheus as the operator reads it: where it runs, its spec, and how the gate knows it. */
export interface PrometheusView {
  name: string;
  namespace: string;
  spec: Obj;
  from: string;
}

/** The Prometheus the rendered chart makes, as written. */
function renderedPrometheus(r: Resource, namespace: string): PrometheusView {
  return { name: r.name, namespace, spec: (dig(r.object, ['spec']) ?? {}) as Obj, from: `Prometheus ${namespace}/${r.name}` };
}

/** The Prometheus kube-prometheus-stack's template would build from these values (see the module comment). */
function fromValues(app: ArgoApp | undefined, appName: string, values: Obj): PrometheusView | undefined {
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
  for (const loads of Object.values(LOADED)) {
    built[loads.selector] = given(spec[loads.selector]) ? spec[loads.selector] : spec[loads.nilUsesHelmValues] !== false ? { matchLabels: { release } } : {};
    built[loads.namespaceSelector] = given(spec[loads.namespaceSelector]) ? spec[loads.namespaceSelector] : {};
  }
  return {
    name: `${release}-prometheus`,
    namespace: app?.destinationNamespace ?? '',
    spec: built,
    from: `the Prometheus ${KPS}'s values build (app ${appName})`,
  };
}

/** A label selector as the operator reads it: null selects nothing, {} everything. */
const selects = (selector: unknown, labels: Obj): boolean => selector !== undefined && selector !== null && selectorMatches(selector as Obj, labels);

const describe = (selector: unknown): string =>
  selector === undefined || selector === null
    ? 'nothing (its selector is null)'
    : Object.entries((dig(selector, ['matchLabels']) ?? {}) as Obj)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(', ') || 'by expressions';

/** The Prometheuses the operator runs: the rendered ones as written, else the one the chart's values build. */
export function prometheusViews(ctx: CheckContext): PrometheusView[] {
  const rendered = ctx.resources.filter((r) => r.kind === 'Prometheus');
  if (rendered.length) return rendered.map((r) => renderedPrometheus(r, namespaceOrDestination(ctx.repo, r) ?? ''));
  const apps = applicationsByName(ctx.repo);
  return chartValues(ctx.repo, KPS).flatMap((v) => fromValues(apps.get(v.appName), v.appName, v.values) ?? []);
}

export const monitoringLoadedCheck: PolicyCheck = {
  id: 'monitoring-loaded',
  description:
    "Every PrometheusRule, ServiceMonitor, PodMonitor and Probe is loaded by a Prometheus: its labels match that Prometheus' selector for its kind and its namespace the kind's namespace selector, as the operator reads the rendered Prometheus, or as kube-prometheus-stack's values build it when the chart is not rendered; the API server stores the rest, and their rules never evaluate and their targets are never scraped, with nothing red (invariants A8, A17).",
  invariants: ['A8', 'A17'],
  remediation: `give the object the label the Prometheus selects (release: <its release>), or make the Prometheus select every one (prometheus.prometheusSpec.<kind>SelectorNilUsesHelmValues: false in monitoring/${KPS}/values.yaml)`,
  reads: { kinds: [...Object.keys(LOADED), 'Prometheus', 'Namespace'], charts: [KPS], renders: true },
  exemptible: false,
  run(ctx) {
    const prometheuses = prometheusViews(ctx);
    if (prometheuses.length === 0) return;
    const namespaces = namespaceLabels(ctx.repo);
    for (const object of ctx.resources) {
      const loads = LOADED[object.kind];
      if (!loads) continue;
      const namespace = namespaceOrDestination(ctx.repo, object) ?? '';
      const labels = (dig(object.object, ['metadata', 'labels']) ?? {}) as Obj;
      const reasons = prometheuses.map((p) => {
        const nsSelector = p.spec[loads.namespaceSelector];
        const inNamespace =
          nsSelector === undefined || nsSelector === null
            ? namespace === p.namespace
            : selects(nsSelector, namespaces.get(namespace) ?? { 'kubernetes.io/metadata.name': namespace });
        if (!inNamespace) return `${p.from} does not look in namespace ${namespace} (its ${loads.namespaceSelector})`;
        return selects(p.spec[loads.selector], labels) ? undefined : `${p.from} selects ${object.kind}s by ${describe(p.spec[loads.selector])}`;
      });
      if (reasons.some((r) => r === undefined)) continue;
      ctx.fail(
        { resource: object, path: ['metadata', 'name'] },
        `${object.kind} ${namespace}/${object.name} is loaded by no Prometheus (${reasons.join('; ')}): ${loads.effect}`,
      );
    }
  },
};
