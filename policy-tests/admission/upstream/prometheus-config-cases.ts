/**
 * The prometheus-operator's configuration generator tests (pkg/prometheus/promcfg_test.go with its testdata/*.golden),
 * read as data from an upstream checkout, against the gate's reading of what a Prometheus the operator runs discovers
 * (model/prometheus-operator/discovery.ts): for each test that builds a Prometheus and its monitors or Alertmanagers,
 * the Prometheus, the monitors and the golden file its driver passes on (go-test-driver.ts), and of the golden file
 * what the gate reads of it: each monitor's Kubernetes discovery (its role, its namespaces, node metadata) and each
 * Alertmanager's (its discovery, the Service and the port kept, the path prefix). A discovery sent with an
 * `apiserverConfig`, which the gate says not judged, is declined.
 */
import { parse } from 'yaml';
import { asManifest, GoUnsupported } from './go-literals.ts';
import { driveRows, functionBody, UNREAD, type DriverCall } from './go-test-driver.ts';
import { alertmanagerTarget, monitorDiscovery, type Discovery } from '../../model/prometheus-operator/discovery.ts';
import { dig, isMap, list, objects, str, type Obj } from '../../model/core/dig.ts';
import { textAgreement, type Agreement, type DecliningTable, type RowNote, type TextCase } from './agreement.ts';

/** The constants of the operator's API and of promcfg.go that these drivers name. */
const CONSTANTS: Readonly<Record<string, unknown>> = {
  'monitoringv1.EndpointsRole': 'Endpoints',
  'monitoringv1.EndpointSliceRole': 'EndpointSlice',
  'monitoringv1.AlertmanagerAPIVersion1': 'V1',
  'monitoringv1.AlertmanagerAPIVersion2': 'V2',
  'monitoringv1.SelectorMechanismRole': 'RoleSelector',
  'monitoringv1.SelectorMechanismRelabel': 'RelabelConfig',
  'monitoringv1.TLSVersion10': 'TLS10',
  'monitoringv1.TLSVersion12': 'TLS12',
  'monitoringv1.RelabelAction': 'replace',
  'metav1.LabelSelectorOpIn': 'In',
  'metav1.LabelSelectorOpExists': 'Exists',
  'operator.DefaultPrometheusVersion': '',
  'monitoringv1.SchemeHTTP': 'HTTP',
  kubernetesSDRoleEndpoint: 'endpoints',
  kubernetesSDRoleEndpointSlice: 'endpointslice',
  kubernetesSDRolePod: 'pod',
  kubernetesSDRoleIngress: 'ingress',
};

/** intstr's constructors and the test store, as the values the drivers mean. */
const CALLS: Readonly<Record<string, (args: unknown[]) => unknown>> = {
  'intstr.FromString': ([s]) => s,
  'intstr.FromInt': ([n]) => Number(n),
  'intstr.FromInt32': ([n]) => Number(n),
  'monitoringv1.Duration': ([s]) => s,
  'assets.NewTestStoreBuilder': () => ({}),
  byteText: ([s]) => s,
};

const DRIVER_CALLS = ['mustNewConfigGenerator', 'cg.GenerateServerConfiguration', 'cg.GenerateAgentConfiguration', 'cg.generateK8SSDConfig', 'golden.Assert'];

/** A Go-shaped object as a manifest spells it: JSON names, metadata, and the Prometheus' common fields in its spec. */
function manifest(go: unknown): Obj {
  const m = asManifest(go) as Obj;
  const spec = isMap(m.spec) ? { ...m.spec, ...(isMap(m.spec.commonPrometheusFields) ? m.spec.commonPrometheusFields : {}) } : {};
  delete spec.commonPrometheusFields;
  return { metadata: m.objectMeta ?? {}, spec };
}

const discoveryText = (d: Pick<Discovery, 'role' | 'attachNode'> & { namespaces?: readonly string[] }): string =>
  `role=${d.role} namespaces=${d.namespaces?.join(',') ?? 'all'}${d.attachNode ? ' node' : ''}`;

/** What the gate reads of a golden configuration: each monitor's discovery by job, each Alertmanager's in order. */
export function goldenReading(text: string): string[] {
  const config = (parse(text) ?? {}) as Obj;
  const lines: string[] = [];
  const sd = (d: Obj) => {
    const names = dig(d, ['namespaces', 'names']);
    return discoveryText({
      role: str(d.role),
      namespaces: names === undefined ? undefined : list(names).map(str),
      attachNode: dig(d, ['attach_metadata', 'node']) === true,
    });
  };
  for (const job of objects(config.scrape_configs))
    if (/^(serviceMonitor|podMonitor|probe)\/|^k8s-sd-test$/.test(str(job.job_name)))
      for (const d of objects(job.kubernetes_sd_configs)) lines.push(`${str(job.job_name)}: ${d.api_server !== undefined ? 'api_server ' : ''}${sd(d)}`);
  objects(dig(config, ['alerting', 'alertmanagers'])).forEach((am, i) => {
    const rules = objects(am.relabel_configs);
    const port =
      rules[1] && /port_(name|number)$/.test(str(list(rules[1].source_labels)[0]))
        ? ` port=${str(list(rules[1].source_labels)[0])}:${str(rules[1].regex)}`
        : '';
    const d = objects(am.kubernetes_sd_configs)[0];
    if (d)
      lines.push(
        `alertmanager ${i}: ${sd(d)} service=${str(rules[0]?.regex)}${port}${am.path_prefix !== undefined ? ` path_prefix=${str(am.path_prefix)}` : ''}`,
      );
  });
  return lines.sort();
}

/** The gate's reading of the same: the Prometheus' Alertmanagers and, for each monitor, its discovery per job. */
function gateReading(prometheus: Obj, monitors: readonly { kind: string; object: Obj }[], direct: boolean): string[] {
  const lines: string[] = [];
  const spec = prometheus.spec as Obj;
  for (const m of monitors) {
    const namespace = str(dig(m.object, ['metadata', 'namespace']));
    const d = monitorDiscovery({ kind: m.kind, namespace, spec: m.object.spec as Obj }, spec);
    if (!d) continue;
    const text = discoveryText({ ...d, namespaces: d.namespaces.includes('') ? undefined : d.namespaces });
    if (direct) lines.push(`k8s-sd-test: ${text}`);
    else for (const job of jobNames(m.kind, namespace, m.object)) lines.push(`${job}: ${text}`);
  }
  const namespace = str(dig(prometheus, ['metadata', 'namespace']));
  objects(dig(spec, ['alerting', 'alertmanagers'])).forEach((entry, i) => {
    const t = alertmanagerTarget(entry, namespace, spec);
    const portLabel = (name: boolean) =>
      name
        ? `__meta_kubernetes_${t.discovery.role === 'endpointslice' ? 'endpointslice' : 'endpoint'}_port_name`
        : '__meta_kubernetes_pod_container_port_number';
    const port = t.port ? ` port=${'name' in t.port ? `${portLabel(true)}:${t.port.name}` : `${portLabel(false)}:${t.port.containerPort}`}` : '';
    lines.push(
      `alertmanager ${i}: ${discoveryText(t.discovery)} service=${t.service}${port}${t.pathPrefix !== undefined ? ` path_prefix=${t.pathPrefix}` : ''}`,
    );
  });
  return lines.sort();
}

/** The job names the operator gives a monitor: one per endpoint of a ServiceMonitor or PodMonitor, one for a Probe. */
function jobNames(kind: string, namespace: string, object: Obj): string[] {
  const name = str(dig(object, ['metadata', 'name']));
  if (kind === 'Probe') return [`probe/${namespace}/${name}`];
  const endpoints = objects(dig(object, ['spec', kind === 'PodMonitor' ? 'podMetricsEndpoints' : 'endpoints']));
  const prefix = kind === 'PodMonitor' ? 'podMonitor' : 'serviceMonitor';
  return endpoints.map((_, i) => `${prefix}/${namespace}/${name}/${i}`);
}

/** The argument a case needs, or why the row is not read. */
function needed(value: unknown, what: string): unknown {
  if (value === UNREAD) throw new GoUnsupported(`${what} is not read`);
  return value;
}

/** The monitors a call passes: GenerateServerConfiguration's three maps, or generateK8SSDConfig's one discovery. */
function passedMonitors(generate: DriverCall | undefined, direct: DriverCall | undefined): { kind: string; object: Obj }[] {
  if (direct) {
    const [selector, namespace, , , role, attach] = direct.args;
    const kind = role === 'pod' ? 'PodMonitor' : 'ServiceMonitor';
    const spec: Obj = { namespaceSelector: asManifest(needed(selector, 'the namespace selector')) };
    const metadata = isMap(needed(attach, 'the attach metadata')) ? (attach as Obj).attachMetadata : undefined;
    if (metadata !== undefined) spec.attachMetadata = asManifest(metadata);
    if (role === 'endpointslice') spec.serviceDiscoveryRole = 'EndpointSlice';
    return [{ kind, object: { metadata: { namespace: needed(namespace, 'the namespace') }, spec } }];
  }
  const kinds = ['ServiceMonitor', 'PodMonitor', 'Probe'];
  return kinds.flatMap((kind, i) =>
    Object.values((needed(generate?.args[i + 1], `the ${kind} argument`) ?? {}) as Obj).map((m) => ({ kind, object: manifest(m) })),
  );
}

/** One row's case: the Prometheus and monitors its driver passes, against the golden file it asserts. */
function rowCase(name: string, calls: readonly DriverCall[], golden: (file: string) => string | undefined): TextCase | RowNote {
  const generate = calls.find((c) => c.call === 'cg.GenerateServerConfiguration');
  const direct = calls.find((c) => c.call === 'cg.generateK8SSDConfig');
  const made = calls.find((c) => c.call === 'mustNewConfigGenerator');
  const file = calls.find((c) => c.call === 'golden.Assert')?.args[2];
  if (typeof file !== 'string') return { name, why: 'no golden file named by a literal' };
  const want = golden(file);
  if (want === undefined) return { name, why: `testdata/${file} is not in the checkout` };
  if (!generate && !direct) return { name, why: 'its driver generates no Prometheus server configuration (a PrometheusAgent), which the gate does not read' };
  const prometheus = manifest(needed(generate ? generate.args[0] : made?.args[1], 'the Prometheus') ?? {});
  if (direct?.args[2] !== null && direct?.args[2] !== undefined) (prometheus.spec as Obj).apiserverConfig = asManifest(direct.args[2]);
  if ((prometheus.spec as Obj).apiserverConfig !== undefined)
    return { name, why: 'its discoveries go to another API server (apiserverConfig), which the gate says it does not judge' };
  const got = gateReading(prometheus, passedMonitors(generate, direct), direct !== undefined).join('; ');
  const expected = goldenReading(want).join('; ');
  // Grouped by what the golden file holds: a monitor's discoveries, an Alertmanager's, or both.
  const holds = [/(^|; )(?!alertmanager )/.test(expected) && expected !== '' ? 'monitors' : '', expected.includes('alertmanager ') ? 'Alertmanagers' : ''];
  return { test: holds.filter(Boolean).join(' and ') || 'neither', name: `${name} (${file})`, judge: () => got, want: expected };
}

/**
 * Every row of every test in the file, driven alone: the cases where the golden file or the gate's reading holds a
 * discovery (a row of remote write or storage settings, with neither, says nothing of them), the rows declined (an
 * apiserverConfig, a PrometheusAgent) and the rows this reader cannot follow, each with why.
 */
export function operatorConfigCases(src: string, golden: (file: string) => string | undefined): DecliningTable<TextCase> {
  const table: DecliningTable<TextCase> = { cases: [], unread: [], declined: [] };
  for (const match of src.matchAll(/^func (Test\w+)\(t \*testing\.T\)/gm)) {
    const test = match[1]!;
    const body = functionBody(src, test)!;
    let rows;
    try {
      rows = driveRows(src, body, { constants: CONSTANTS, calls: CALLS }, DRIVER_CALLS);
    } catch (err) {
      if (!(err instanceof GoUnsupported)) throw err;
      table.unread.push({ name: test, why: err.message });
      continue;
    }
    for (const row of rows) {
      const name = `${test}/${row.name}`;
      try {
        const c = row.calls ? rowCase(name, row.calls, golden) : { name, why: row.why ?? 'not a row' };
        if ('judge' in c) {
          if (c.want !== '' || c.judge() !== '') table.cases.push(c);
        } else (/^its (discoveries|driver)/.test(c.why) ? table.declined : table.unread).push(c);
      } catch (err) {
        if (!(err instanceof GoUnsupported)) throw err;
        table.unread.push({ name, why: err.message });
      }
    }
  }
  return table;
}

/**
 * How many of the cases the gate reads as the operator writes them. The rows not read are left out of the count and
 * reported apart (most are of settings whose golden files hold no discovery, so counting them would say nothing).
 */
export const operatorConfigAgreement = (table: DecliningTable<TextCase>): Agreement => textAgreement({ cases: table.cases, unread: [] }, 'the operator writes');
