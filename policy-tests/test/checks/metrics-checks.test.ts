/**
 * The metrics join: mutations of the real repository that each metrics check
 * must catch at the expression's line; the PromQL reading; the catalog's own
 * consistency; the extractors on the exporters' declaration styles.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { loadRepo, type Repo } from '../../model/repository/repo.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { SourceRender } from '../../model/argocd/rendered.ts';
import { metricsCatalog, MONITOR_KINDS, type MetricsCatalog } from '../../model/monitoring/metrics-catalog.ts';
import { monitorId, monitorJobs, serviceViews } from '../../model/monitoring/scrape-jobs.ts';
import { parsePromQL } from '../../model/monitoring/promql.ts';
import {
  extractExposition,
  extractGoNewDesc,
  extractKsmDocs,
  extractPromClient,
  extractPythonDicts,
  extractPythonMetricFamily,
} from '../../model/monitoring/metrics-extract.ts';
import { metricsMutations } from '../mutations/metrics.ts';
import { metricsCatalogMutations } from '../mutations/metrics-catalog.ts';

describeMutations('metrics checks (metrics.ts) bite on a broken copy of the real repository', metricsMutations);
describeMutations('the metrics catalog check (metrics-catalog.ts) bites on a broken copy of the real repository', metricsCatalogMutations);

describe("PromQL through Prometheus's grammar", () => {
  it('reads names, matchers, windows, grouping and comparisons', () => {
    const p = parsePromQL('sum by (job) (rate(foo_total{job=~"a.+", x!="y"}[5m])) > 0 and on (job) bar == 0 unless absent(up{job="z"})');
    expect(p.error).toBeUndefined();
    const [foo, bar, up] = p.selectors;
    expect(foo).toMatchObject({ name: 'foo_total', window: { fn: 'rate', ms: 300_000 }, groupedBy: ['job'], inAbsent: false });
    expect(foo!.matchers).toEqual([
      { label: 'job', op: '=~', value: 'a.+' },
      { label: 'x', op: '!=', value: 'y' },
    ]);
    expect(bar).toMatchObject({ name: 'bar', inAbsent: false });
    expect(bar!.window).toBeUndefined();
    expect(up).toMatchObject({ name: 'up', inAbsent: true });
    expect(p.comparisons).toEqual([{ selector: bar, op: '==', value: 0 }]);
  });

  it('reads grouping beyond a binary operator, where every operand must lend the label, and not where a function makes labels', () => {
    const [a, b] = parsePromQL('sum by (name, port) (rate(a[5m]) + rate(b[5m]))').selectors;
    expect(a!.groupedBy).toEqual([]);
    expect(a!.groupedAcross).toEqual({ at: 0, labels: ['name', 'port'] });
    expect(b!.groupedAcross).toEqual({ at: 0, labels: ['name', 'port'] });
    const inner = parsePromQL('sum by (x) (a) + b').selectors;
    expect(inner.map((s) => [s.groupedBy, s.groupedAcross])).toEqual([
      [['x'], undefined],
      [[], undefined],
    ]);
    expect(parsePromQL('sum by (x) (label_replace(a + b, "x", "$1", "y", "(.*)"))').selectors.map((s) => s.groupedAcross)).toEqual([undefined, undefined]);
    expect(parsePromQL('sum without (x) (a + b)').selectors.map((s) => s.groupedAcross)).toEqual([undefined, undefined]);
  });

  it('reads a __name__ regex selector and reports a syntax error with its offset', () => {
    const byRegex = parsePromQL('{__name__=~"(sonarr|radarr)_queue_total"} > 0').selectors[0]!;
    expect(byRegex.matchers).toEqual([{ label: '__name__', op: '=~', value: '(sonarr|radarr)_queue_total' }]);
    expect(byRegex.name).toBeUndefined();
    const broken = parsePromQL('rate(foo[5m]');
    expect(broken.error?.message).toMatch(/does not parse/);
  });

  it('parses to plain data: what the warm-start store gives back (JSON) is the same object, no key holding undefined', () => {
    for (const expr of [
      'sum by (job) (rate(foo_total{job=~"a.+"}[5m])) > 0 and on (job) bar == 0',
      'max by (x) (a / b)',
      '{__name__=~"x"} > 0',
      'rate(foo[5m]',
    ])
      expect(JSON.parse(JSON.stringify(parsePromQL(expr))), expr).toStrictEqual(parsePromQL(expr));
  });
});

describe('the metrics catalog of the real repository', () => {
  let repo: Repo;
  let catalog: MetricsCatalog;
  beforeAll(async () => {
    repo = await loadRepo();
    catalog = metricsCatalog(repo);
  });

  it('judges a chart bump by the exporter it runs: the same image version keeps the entry, another makes it stale, none rendered is not judged', async () => {
    const { runPolicy } = await import('../../model/checks/runner.ts');
    const { metricsCatalogCheck } = await import('../../checks/metrics-catalog.ts');
    const { applications } = await import('../../model/argocd/argocd.ts');
    const current = [metricsCatalogCheck];
    // The blackbox exporter's chart bumped one patch, as an update bot makes it.
    const bumped: Repo = {
      ...repo,
      resources: repo.resources.map((r) =>
        r.file === 'monitoring/blackbox-exporter/application.yaml'
          ? {
              ...r,
              object: JSON.parse(JSON.stringify(r.object).replace('"targetRevision":"11.17.2"', '"targetRevision":"11.17.3"')) as Record<string, unknown>,
            }
          : r,
      ),
    };
    const app = applications(bumped).find((a) => a.name === 'blackbox-exporter')!;
    const render = (tag: string) => ({
      app,
      source: app.sources.find((s) => s.chart === 'prometheus-blackbox-exporter')!,
      label: 'chart prometheus-blackbox-exporter 11.17.3',
      status: 'rendered' as const,
      resources: [
        {
          file: app.resource.file,
          doc: 0,
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'blackbox',
          namespace: 'monitoring',
          object: { spec: { template: { spec: { containers: [{ name: 'exporter', image: `quay.io/prometheus/blackbox-exporter:${tag}` }] } } } },
          positions: app.resource.positions,
          rendered: { id: 'blackbox-exporter#0', app: 'blackbox-exporter', source: 'chart' },
        } as Resource,
      ],
      values: [],
      nondeterministic: [],
      consumedFiles: [],
    });
    // What the check says of the blackbox exporter's entry (a partial render set also has it judge other charts' monitors).
    const messages = (renders: ReturnType<typeof render>[]) =>
      runPolicy(bumped, current, renders)
        .map((f) => `${f.severity ?? 'fail'}: ${f.message}`)
        .filter((m) => m.includes('blackbox-exporter'));
    expect(messages([render('v0.28.0')])).toEqual([]);
    expect(messages([render('v0.29.0')])).toEqual([
      expect.stringMatching(
        /^fail: catalog entry blackbox-exporter v0\.28\.0 is stale: Application blackbox-exporter deploys chart prometheus-blackbox-exporter 11\.17\.3, which runs no image at v0\.28\.0/,
      ),
    ]);
    expect(messages([])).toEqual([
      expect.stringMatching(
        /^not-judged: Application blackbox-exporter deploys chart prometheus-blackbox-exporter 11\.17\.3, the entry was read for 11\.17\.2/,
      ),
    ]);
  });

  it('says an entry whose pinned image nothing runs is stale once every chart renders, and not judged before', async () => {
    const { runPolicy } = await import('../../model/checks/runner.ts');
    const { metricsCatalogCheck } = await import('../../checks/metrics-catalog.ts');
    const { applications } = await import('../../model/argocd/argocd.ts');
    // The exporter moves to another registry: the entry's pin, ghcr.io/unpoller/unpoller, names an image nothing runs.
    const moved: Repo = {
      ...repo,
      resources: repo.resources.map((r) =>
        r.file === 'monitoring/unpoller/deployment.yaml' && r.kind === 'Deployment'
          ? {
              ...r,
              object: JSON.parse(JSON.stringify(r.object).replace('ghcr.io/unpoller/unpoller:', 'docker.io/golift/unpoller:')) as Record<string, unknown>,
            }
          : r,
      ),
    };
    const unpoller = (renders: Parameters<typeof runPolicy>[2]) =>
      runPolicy(moved, [metricsCatalogCheck], renders)
        .filter((f) => f.file === 'monitoring/metrics-catalog/unpoller-v2.20.0.yaml')
        .map((f) => `${f.severity ?? 'fail'}: ${f.message}`);
    expect(unpoller([])).toEqual([
      'fail: catalog entry unpoller v2.20.0 is stale: no workload of the repository runs ghcr.io/unpoller/unpoller, the image its pin names; refresh it with npm run metrics:catalog -- --refresh unpoller',
    ]);
    const app = applications(repo).find((a) => a.name === 'loki')!;
    const unrendered = { app, source: app.sources[0]!, label: 'chart loki', status: 'not-rendered', resources: [] } as unknown as SourceRender;
    expect(unpoller([unrendered])).toEqual([expect.stringMatching(/^not-judged: no plain workload runs ghcr\.io\/unpoller\/unpoller: whether a chart does/)]);
    expect(runPolicy(repo, [metricsCatalogCheck], []).filter((f) => f.file === 'monitoring/metrics-catalog/unpoller-v2.20.0.yaml')).toEqual([]);
  });

  it('has no malformed entry, and every entry names its version, pin and source', () => {
    expect(catalog.problems.map((p) => `${p.data.file}: ${p.message}`)).toEqual([]);
    for (const e of catalog.entries) {
      expect(e.version, e.file).not.toBe('');
      expect(Object.keys(e.pin).length, e.file).toBeGreaterThan(0);
      expect(e.source.repository && e.source.ref && e.source.files?.length, e.file).toBeTruthy();
      expect(e.file, 'one file per exporter and version').toBe(`monitoring/metrics-catalog/${e.exporter}-${e.version}.yaml`);
    }
  });

  it('reads the values a label takes, closed or an open set, and refuses a list of anything else or of a label the metric lacks', () => {
    const ksm = catalog.entries.find((e) => e.exporter === 'kube-state-metrics')!;
    expect(ksm.labelValues.get('kube_pod_status_phase')?.get('phase')).toEqual({
      values: new Set(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']),
      open: false,
    });
    expect(ksm.labelValues.get('kube_pod_container_status_last_terminated_reason')?.get('reason')).toMatchObject({ open: true });
    const file = catalog.entries.find((e) => e.exporter === 'argocd')!.data;
    const broken = (labelValues: unknown) =>
      metricsCatalog({
        ...repo,
        dataFiles: new Map([...repo.dataFiles, [file.file, { ...file, data: { ...(file.data as object), labelValues } }]]),
      }).problems.map((p) => p.message);
    for (const labelValues of [
      { argocd_app_info: { health: ['Healthy'] } },
      { argocd_app_info: { health_status: [] } },
      { argocd_app_info: { health_status: { known: 'Healthy' } } },
    ])
      expect(broken(labelValues), JSON.stringify(labelValues)).toEqual([
        expect.stringMatching(/^labelValues lists the values of a label the entry gives argocd_app_info/),
      ]);
  });

  it('covers every monitor the repository declares', () => {
    const monitors = repo.resources.filter((r) => !r.rendered && (MONITOR_KINDS as readonly string[]).includes(r.kind)).map((r) => monitorId(r));
    expect(monitors.length).toBeGreaterThan(5);
    expect(monitors.filter((m) => !catalog.coveredMonitors.has(m))).toEqual([]);
  });

  it("derives jobs as the operator does: relabelled, probe/<ns>/<name>, and the entry's own for chart monitors", () => {
    const jobs = new Map(catalog.jobs.map((j) => [j.job, j]));
    expect(jobs.get('exportarr-prowlarr')).toMatchObject({ source: 'ServiceMonitor/media-vpn/exportarr-prowlarr', intervalMs: 60_000 });
    expect(jobs.get('exportarr-prowlarr')!.metrics.has('prowlarr_system_status')).toBe(true);
    expect(jobs.get('probe/monitoring/internet')).toMatchObject({ intervalMs: 15_000 });
    expect(jobs.get('qbittorrent')!.metrics.has('qbittorrent_connected')).toBe(true);
    expect(jobs.get('kube-state-metrics')!.source).toBe('chart kube-prometheus-stack');
  });
});

describe('extractors read each declaration style', () => {
  it('kube-state-metrics docs tables, with or without a unit column', () => {
    const doc = [
      '| Metric name | Metric type | Description | Labels/tags | Status |',
      '| kube_cronjob_status_active | Gauge | | `cronjob`=&lt;cronjob-name&gt; <br> `namespace`=&lt;ns&gt; | STABLE |',
      '| kube_pod_container_status_restarts_total | Counter | restarts | integer | `container`=&lt;c&gt; <br> `pod`=&lt;p&gt; <br> `label_POD_LABEL`=&lt;x&gt; | STABLE | - |',
    ].join('\n');
    expect(extractKsmDocs(doc)).toEqual({
      kube_cronjob_status_active: ['cronjob', 'namespace'],
      kube_pod_container_status_restarts_total: ['container', 'pod'],
    });
  });

  it('client_golang NewDesc with Sprintf names and const labels', () => {
    const go =
      'systemStatusMetric: prometheus.NewDesc(\n\tfmt.Sprintf("%s_system_status", c.App),\n\t"System Status",\n\tnil,\n\tprometheus.Labels{"url": c.URL},\n),\nq: prometheus.NewDesc(\n"x_total", "help", []string{"a", "b"}, nil)';
    expect(extractGoNewDesc(go)).toEqual({ '{app}_system_status': ['url'], x_total: ['a', 'b'] });
  });

  it('prometheus_client MetricFamily, help texts with parentheses and label variables', () => {
    const py =
      "labels = ['id', 'name']\ninfo = GaugeMetricFamily('pve_node_info', 'Node info', labels=labels)\nm = GaugeMetricFamily(\n  'pve_disk_size_bytes',\n  (\n    \"Size (for type 'storage')\"\n  ),\n  labels=['id'])";
    expect(extractPythonMetricFamily(py)).toEqual({ pve_node_info: ['id', 'name'], pve_disk_size_bytes: ['id'] });
  });

  it('an exposition fixture, histograms and summaries expanded as Prometheus stores them', () => {
    const text = [
      '# HELP node_cpu_seconds_total Seconds.',
      '# TYPE node_cpu_seconds_total counter',
      'node_cpu_seconds_total{cpu="0",mode="idle"} 1',
      'node_cpu_seconds_total{cpu="0",mode="user"} 2',
      '# HELP req_seconds Latency.',
      '# TYPE req_seconds histogram',
      'req_seconds_bucket{code="200",le="1"} 1',
      'req_seconds_bucket{code="200",le="+Inf"} 1',
      'req_seconds_sum{code="200"} 0.5',
      'req_seconds_count{code="200"} 1',
      '# HELP gc_seconds GC.',
      '# TYPE gc_seconds summary',
      'gc_seconds{quantile="0.5"} 0',
      'gc_seconds_sum 0',
      'gc_seconds_count 0',
      '# HELP node_load1 Load.',
      '# TYPE node_load1 gauge',
      'node_load1 0.2',
      '',
    ].join('\n');
    expect(extractExposition(text)).toEqual({
      node_cpu_seconds_total: ['cpu', 'mode'],
      req_seconds_bucket: ['code', 'le'],
      req_seconds_sum: ['code'],
      req_seconds_count: ['code'],
      gc_seconds: ['quantile'],
      gc_seconds_sum: [],
      gc_seconds_count: [],
      node_load1: [],
    });
  });

  it('dict-built metrics and prom-client declarations', () => {
    const py =
      '{\n  "name": f"{self.config[\'metrics_prefix\']}_torrents_count",\n  "value": 1,\n  "labels": {\n    "status": status,\n    "category": category,\n  },\n}';
    expect(extractPythonDicts(py)).toEqual({ '{prefix}_torrents_count': ['category', 'status'] });
    const ts = "new Histogram({ name: 'req_seconds', labelNames: ['method'], buckets: [1] }); new Counter({ name: 'x_total', help: 'h' })";
    expect(extractPromClient(ts)).toEqual({ req_seconds_bucket: ['le', 'method'], req_seconds_count: ['method'], req_seconds_sum: ['method'], x_total: [] });
  });
});

describe('jobs as the Prometheus operator names them', () => {
  const resource = (kind: string, namespace: string, name: string, object: Record<string, unknown>) =>
    ({ kind, namespace, name, file: 'x.yaml', doc: 0, apiVersion: 'v1', object, positions: { at: () => ({ line: 1, col: 1 }) } }) as unknown as Resource;
  const service = (name: string, labels: Record<string, string>) => resource('Service', 'monitoring', name, { metadata: { name, labels } });

  it('a label on the ServiceMonitor object does not name the job; jobLabel falls back to the Service name (the SNMP chart defect)', () => {
    const monitor = resource('ServiceMonitor', 'monitoring', 'snmp-nas', {
      metadata: { labels: { job: 'snmp-nas' } },
      spec: {
        jobLabel: 'snmp-exporter',
        selector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus-snmp-exporter' } },
        endpoints: [{ port: 'http', interval: '60s' }],
      },
    });
    const services = serviceViews([service('snmp-exporter-prometheus-snmp-exporter', { 'app.kubernetes.io/name': 'prometheus-snmp-exporter' })]);
    expect(monitorJobs(monitor, services)).toMatchObject([{ job: 'snmp-exporter-prometheus-snmp-exporter', intervalMs: 60_000 }]);
    const relabelled = resource('ServiceMonitor', 'monitoring', 'snmp-nas', {
      spec: { selector: {}, endpoints: [{ port: 'http', relabelings: [{ targetLabel: 'job', replacement: 'snmp-nas' }] }] },
    });
    expect(monitorJobs(relabelled, services)).toMatchObject([{ job: 'snmp-nas', intervalMs: 30_000 }]);
  });

  it("reads an endpoint's path as the operator writes it: an empty one is no metrics_path, and Prometheus scrapes /metrics", () => {
    const services = serviceViews([service('pve', { app: 'pve' })]);
    const monitor = (path?: string) =>
      resource('ServiceMonitor', 'monitoring', 'pve', {
        spec: { selector: { matchLabels: { app: 'pve' } }, endpoints: [{ port: 'http', ...(path === undefined ? {} : { path }) }] },
      });
    expect(monitorJobs(monitor(''), services)).toMatchObject([{ path: '/metrics' }]);
    expect(monitorJobs(monitor(), services)).toMatchObject([{ path: '/metrics' }]);
    expect(monitorJobs(monitor('/pve'), services)).toMatchObject([{ path: '/pve' }]);
  });

  it('matchExpressions select several Services, each its own job by jobLabel (cert-manager)', () => {
    const monitor = resource('ServiceMonitor', 'monitoring', 'cert-manager', {
      spec: {
        jobLabel: 'app.kubernetes.io/name',
        selector: { matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'In', values: ['cert-manager', 'webhook'] }] },
        endpoints: [{ port: 'metrics' }],
      },
    });
    const services = serviceViews([
      service('cert-manager', { 'app.kubernetes.io/name': 'cert-manager' }),
      service('cert-manager-webhook', { 'app.kubernetes.io/name': 'webhook' }),
      service('other', { 'app.kubernetes.io/name': 'other' }),
    ]);
    expect(monitorJobs(monitor, services).map((j) => j.job)).toEqual(['cert-manager', 'webhook']);
  });

  it('a Service no manifest declares still names the job: the kubelet Service the operator keeps, one job per endpoint path', () => {
    const monitor = resource('ServiceMonitor', 'monitoring', 'kube-prometheus-stack-kubelet', {
      spec: {
        jobLabel: 'k8s-app',
        namespaceSelector: { matchNames: ['kube-system'] },
        selector: { matchLabels: { 'app.kubernetes.io/name': 'kubelet', 'k8s-app': 'kubelet' } },
        endpoints: [{ port: 'https-metrics' }, { port: 'https-metrics', path: '/metrics/cadvisor', interval: '10s' }],
      },
    });
    expect(monitorJobs(monitor, serviceViews([]))).toEqual([
      expect.objectContaining({ job: 'kubelet', intervalMs: 30_000, path: '/metrics' }),
      expect.objectContaining({ job: 'kubelet', intervalMs: 10_000, path: '/metrics/cadvisor' }),
    ]);
    // Without the cluster's own Services the job would be the monitor's name, which no series carries.
    expect(monitorJobs(monitor, []).map((j) => j.job)).toEqual(['kube-prometheus-stack-kubelet', 'kube-prometheus-stack-kubelet']);
  });

  it('a Probe is probe/<namespace>/<name> unless jobName says otherwise', () => {
    expect(monitorJobs(resource('Probe', 'monitoring', 'internet', { spec: { interval: '15s' } }), [])).toMatchObject([
      { job: 'probe/monitoring/internet', intervalMs: 15_000 },
    ]);
    expect(monitorJobs(resource('Probe', 'monitoring', 'internet', { spec: { jobName: 'net' } }), [])[0]!.job).toBe('net');
  });
});
