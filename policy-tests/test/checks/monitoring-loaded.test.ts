/**
 * monitoring-loaded reads a Prometheus as the operator does (a null selector selects nothing, an empty one
 * everything; a null namespace selector only its own namespace), and, where kube-prometheus-stack is not rendered,
 * builds it from the values as the chart's template does (release: <release> while *SelectorNilUsesHelmValues is
 * not false, a selector the values give otherwise).
 */
import { describe, expect, it } from 'vitest';
import { monitoringLoadedCheck } from '../../checks/monitoring/loaded.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const VALUES = 'monitoring/kube-prometheus-stack/values.yaml';
const rule = repo.resources.find((r) => r.kind === 'PrometheusRule')!;

/** The real repository with kube-prometheus-stack's prometheusSpec replaced, and `extra` resources. */
function withSpec(prometheusSpec: Record<string, unknown>, extra: Resource[] = []): Repo {
  const dataFiles = new Map(repo.dataFiles);
  const values = dataFiles.get(VALUES)!;
  const data = structuredClone(values.data) as { prometheus: { prometheusSpec: Record<string, unknown> } };
  data.prometheus.prometheusSpec = prometheusSpec;
  dataFiles.set(VALUES, { ...values, data });
  return { ...repo, dataFiles, resources: [...repo.resources, ...extra] };
}

const prometheus = (spec: Record<string, unknown>): Resource =>
  ({
    ...rule,
    kind: 'Prometheus',
    name: 'k8s',
    object: { apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', metadata: { name: 'k8s', namespace: 'monitoring' }, spec },
  }) as Resource;

const failing = (r: Repo) => runPolicy(r, [monitoringLoadedCheck]).map((f) => f.message);

describe('monitoring-loaded', () => {
  it('passes the real repository', () => {
    expect(failing(repo)).toEqual([]);
  });

  it("builds the chart's selectors from the values: release by default, the values' own selector when given", () => {
    const byDefault = failing(withSpec({}));
    expect(byDefault.filter((m) => m.startsWith('PrometheusRule monitoring/watchdog '))).toEqual([
      expect.stringMatching(/selects PrometheusRules by release=kube-prometheus-stack\): its rules never evaluate/),
    ]);
    // ServiceMonitors, PodMonitors and Probes too: every kind the defaults leave to the release label.
    expect(new Set(byDefault.map((m) => m.split(' ')[0]))).toEqual(new Set(['PrometheusRule', 'ServiceMonitor', 'Probe']));
    const labelled = {
      ...rule,
      name: 'labelled',
      object: { ...rule.object, metadata: { name: 'labelled', namespace: 'monitoring', labels: { team: 'lab' } } },
    } as Resource;
    const own = failing(
      withSpec({ ruleSelector: { matchLabels: { team: 'lab' } }, serviceMonitorSelectorNilUsesHelmValues: false, probeSelectorNilUsesHelmValues: false }, [
        labelled,
      ]),
    );
    expect(own.some((m) => m.startsWith('PrometheusRule monitoring/labelled '))).toBe(false);
    expect(own.filter((m) => m.startsWith('PrometheusRule')).length).toBeGreaterThan(0);
  });

  it('reads a rendered Prometheus: a null selector selects nothing, a null namespace selector only its own namespace', () => {
    const elsewhere = {
      ...rule,
      name: 'elsewhere',
      namespace: 'media',
      object: { ...rule.object, metadata: { name: 'elsewhere', namespace: 'media' } },
    } as Resource;
    const messages = failing({
      ...repo,
      resources: [
        ...repo.resources,
        elsewhere,
        prometheus({ ruleSelector: {}, serviceMonitorSelector: {}, serviceMonitorNamespaceSelector: {}, probeNamespaceSelector: {} }),
      ],
    });
    expect(messages.filter((m) => m.startsWith('PrometheusRule'))).toEqual([
      expect.stringMatching(
        /^PrometheusRule media\/elsewhere is loaded by no Prometheus \(Prometheus monitoring\/k8s does not look in namespace media \(its ruleNamespaceSelector\)\)/,
      ),
    ]);
    expect(messages.filter((m) => m.startsWith('Probe'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/selects Probes by nothing \(its selector is null\)\): its targets are never probed$/)]),
    );
    expect(messages.some((m) => m.startsWith('ServiceMonitor'))).toBe(false);
  });
});
