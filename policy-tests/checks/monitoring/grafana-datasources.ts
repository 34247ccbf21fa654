/**
 * grafana-datasources: Grafana provisions the datasources it is given. At start it reads every provisioning file
 * together (model/grafana/datasources.ts) and refuses the lot, and does not start, where two datasources of one
 * organization are each marked isDefault ("Only one datasource per organization can be marked as default",
 * provisioning/datasources/config_reader.go's validateDefaultUniqueness), or where a datasource takes a uid another
 * of another name holds (its store's "data source with the same uid already exists"): Grafana, every dashboard and
 * every alert view are down. kube-prometheus-stack's Prometheus is the default unless its values say not. A datasource
 * of a plugin that queries over HTTP with no url (a misspelt `urll`, which Grafana's YAML reading drops unread) is
 * provisioned, and fails every query; any other key one slip from a key Grafana reads is dropped as unread. A Loki
 * datasource speaks the scheme the cluster's Loki serves, and sends the tenant header where that Loki runs
 * multi-tenant (auth_enabled): it is otherwise refused every query.
 */
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { DATASOURCE_KEYS, provisionedDatasources, QUERIED_OVER_HTTP, undecodableFields, type ProvisionedDatasource } from '../../model/grafana/datasources.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { dig, obj } from '../../model/core/dig.ts';
import { GRAFANA_CHART, grafanaSidecars } from '../../model/grafana/sidecars.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';
import { isTenantHeader, lokiRequiresTenant, lokiSchemeProblem, lokiServesTls } from '../../model/loki/config.ts';
import { isServiceDomainHost } from '../../model/cluster/service-addresses.ts';

/** The stores the repository runs whose data Grafana reads only through a datasource of their plugin: the chart, and the type. */
const STORES = [
  { chart: 'loki', type: 'loki', what: 'logs' },
  { chart: 'tempo', type: 'tempo', what: 'traces' },
] as const;

/** Whether a datasource sends a tenant header: a jsonData.httpHeaderName<n> that is X-Scope-OrgID, the header Grafana then sets from secureJsonData. */
const sendsTenantHeader = (d: ProvisionedDatasource): boolean =>
  Object.entries(obj(d.fields.jsonData)).some(([k, v]) => /^httpHeaderName\d+$/.test(k) && typeof v === 'string' && isTenantHeader(v));

/** Where a finding about one key of a datasource points: the key's line in the values, else the provisioning file. */
const keyPlace = (d: ProvisionedDatasource, key: string): ProvisionedDatasource['where'] =>
  'data' in d.where ? { ...d.where, path: [...d.where.path, key] } : d.where;

/**
 * Grafana reads a provisioning file with yaml.v3 into its own struct, and drops a key it does not know unread: a
 * datasource whose `uie` is one slip from uid goes without the uid every dashboard's reference names. A key no slip
 * from any it reads may be a later release's, and is left alone; one from url on a datasource queried over HTTP is
 * said by the url rule.
 */
function misspeltKeys(ctx: CheckContext, d: ProvisionedDatasource): void {
  for (const key of Object.keys(d.fields).filter((k) => !DATASOURCE_KEYS.has(k))) {
    const near = nearestName(key, DATASOURCE_KEYS);
    if (near === undefined || (near === 'url' && d.url === '' && QUERIED_OVER_HTTP.has(d.type))) continue;
    ctx.fail(
      keyPlace(d, key),
      `datasource ${d.name} writes "${key}", a key Grafana does not read${suggesting(near)}: its provisioning drops it unread, and the datasource goes without it`,
      `spell the key as Grafana reads it: ${near}`,
    );
  }
}

/** A field Grafana cannot decode fails its whole provisioning at start: Grafana does not come up. */
function undecodable(ctx: CheckContext, d: ProvisionedDatasource): void {
  for (const { key, reads } of undecodableFields(d))
    ctx.fail(
      keyPlace(d, key),
      `datasource ${d.name || '(unnamed)'}'s ${key} is ${Array.isArray(d.fields[key]) ? 'a list' : typeof d.fields[key] === 'object' ? 'a map' : 'a scalar'}, where Grafana reads ${reads}: yaml.v3 refuses it, the provisioning fails, and Grafana does not start`,
      `write ${key} as ${reads}`,
    );
}

/** A log or trace store Grafana has no datasource for keeps its data out of every view: nobody can query it. */
function storesWithoutDatasource(ctx: CheckContext, datasources: readonly ProvisionedDatasource[]): void {
  const grafana = chartValues(ctx.repo, GRAFANA_CHART)[0];
  if (!grafana || dig(grafana.values, ['grafana', 'enabled']) === false) return;
  for (const store of STORES) {
    const app = chartValues(ctx.repo, store.chart)[0];
    if (!app || datasources.some((d) => d.type === store.type)) continue;
    const written = dig(grafana.values, ['grafana', 'additionalDataSources']) !== undefined;
    ctx.fail(
      { data: grafana.source, path: written ? ['grafana', 'additionalDataSources'] : ['grafana'] },
      `${app.appName} keeps the cluster's ${store.what}, and Grafana provisions no datasource of type ${store.type}: nobody can query them`,
      `add a datasource of type ${store.type} at ${app.appName}'s Service to grafana.additionalDataSources`,
    );
  }
}

export const grafanaDatasourcesCheck: PolicyCheck = {
  id: 'grafana-datasources',
  description:
    "Grafana provisions the datasources it is given: at most one per organization marked isDefault (kube-prometheus-stack's Prometheus is, unless its values say not), and no uid held by two datasources of different names; otherwise Grafana refuses its provisioning at start and does not come up; each datasource of a plugin that queries over HTTP (Prometheus, Loki, Tempo...) has a url, without which every query of it fails; no datasource writes a key one slip from one Grafana reads (`uie`), which its provisioning drops unread, nor a list or a map where Grafana reads text (or other than a map where it reads one), which stops Grafana at start; a Loki datasource at the cluster's Loki speaks its scheme (https exactly where its server takes TLS) and, where that Loki runs multi-tenant (auth_enabled, Loki's default), sends the tenant header (jsonData.httpHeaderName<n> X-Scope-OrgID), without which Loki refuses every query 401; and the log and trace stores the repository runs (Loki, Tempo) each have a datasource of their type, without which nobody can query what they keep (A2, A3, A10).",
  invariants: ['A2', 'A3', 'A10'],
  remediation:
    "leave isDefault to one datasource (kube-prometheus-stack's Prometheus, or set grafana.sidecar.datasources.isDefaultDatasource: false), and give each datasource its own uid",
  reads: {
    kinds: withKeyProviders('ConfigMap', 'Secret', 'Deployment', 'StatefulSet', 'Application'),
    charts: [GRAFANA_CHART, 'loki', 'tempo'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const unread = grafanaSidecars(ctx.repo, ctx.resources).find((s) => s.what === 'datasources' && s.unread && s.workload);
    if (unread)
      return ctx.notJudged(
        { resource: unread.workload!, path: [...unread.at!, 'env'] },
        `which datasources Grafana provisions is not judged: ${unread.name}'s ${unread.unread} is set from a value the gate does not read, so the objects it loads are not known`,
      );
    const datasources = provisionedDatasources(ctx.repo, ctx.resources);
    storesWithoutDatasource(ctx, datasources);
    for (const d of datasources) {
      misspeltKeys(ctx, d);
      undecodable(ctx, d);
    }
    for (const d of datasources.filter((x) => QUERIED_OVER_HTTP.has(x.type) && x.url === '')) {
      const slip = Object.keys(d.fields).find((k) => !DATASOURCE_KEYS.has(k) && nearestName(k, ['url']) === 'url');
      ctx.fail(
        d.where,
        `datasource ${d.name} (${d.type}) has no url${slip ? ` (its key "${slip}" is one slip from url, a key Grafana does not read)` : ''}: Grafana provisions it, and every query of it fails with "unsupported protocol scheme"`,
        "write the datasource's url, the address of its store's Service (url: http://<service>.<namespace>.svc:<port>)",
      );
    }
    const lokiTls = lokiServesTls(ctx.repo, ctx.resources);
    const tenants = lokiRequiresTenant(ctx.repo, ctx.resources);
    for (const d of datasources.filter((x) => x.type === 'loki' && URL.canParse(x.url))) {
      const problem = lokiSchemeProblem(new URL(d.url), lokiTls);
      if (problem)
        ctx.fail(
          keyPlace(d, 'url'),
          `datasource ${d.name} (loki) queries ${d.url}, and ${problem}: every query of the logs fails`,
          "write the scheme the cluster's Loki serves in the url",
        );
      else if (tenants && isServiceDomainHost(new URL(d.url).hostname) && !sendsTenantHeader(d))
        ctx.fail(
          keyPlace(d, 'url'),
          `datasource ${d.name} (loki) queries ${d.url} with no tenant (an X-Scope-OrgID header: jsonData.httpHeaderName1 and secureJsonData.httpHeaderValue1), and the cluster's Loki runs multi-tenant (auth_enabled, its default): it refuses every query 401 "no org id"`,
          "set loki.auth_enabled: false for one tenant, or give the datasource the tenant's X-Scope-OrgID header",
        );
    }
    const defaults = new Map<number, string>();
    const uids = new Map<string, string>();
    for (const d of datasources) {
      if (d.isDefault) {
        const first = defaults.get(d.orgId);
        if (first !== undefined)
          ctx.fail(
            d.where,
            `datasource ${d.name} is marked isDefault beside ${first} in organization ${d.orgId}: Grafana refuses its provisioning ("Only one datasource per organization can be marked as default") and does not start`,
          );
        else defaults.set(d.orgId, d.name);
      }
      if (!d.uid) continue;
      const key = `${d.orgId}/${d.uid}`;
      const holder = uids.get(key);
      if (holder !== undefined && holder !== d.name)
        ctx.fail(
          d.where,
          `datasource ${d.name} takes uid ${d.uid}, which ${holder} holds: Grafana's provisioning fails ("data source with the same uid already exists") and Grafana does not start`,
        );
      else uids.set(key, d.name);
    }
  },
};
