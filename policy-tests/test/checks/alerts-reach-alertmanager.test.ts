/**
 * alerts-reach-alertmanager beyond its mutations (which break the values offline): a rendered Prometheus judged
 * against the Services and Alertmanagers of the repository, entry by entry, as the operator keeps the endpoints of
 * each and Prometheus posts to its path prefix.
 */
import { describe, expect, it } from 'vitest';
import { alertsReachAlertmanagerCheck } from '../../checks/monitoring/alerting.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'Service')!;
const make = (kind: string, name: string, body: Record<string, unknown>) => {
  // The operator's kinds under their own group: the model gives the pods of a monitoring.coreos.com Alertmanager their labels.
  const apiVersion = kind === 'Service' ? 'v1' : 'monitoring.coreos.com/v1';
  return {
    ...template,
    apiVersion,
    kind,
    name,
    namespace: 'alerting',
    object: { apiVersion, kind, metadata: { name, namespace: 'alerting' }, ...body },
  } as unknown as Resource;
};

const alertmanager = (routePrefix?: string, extra: Record<string, unknown> = {}) =>
  make('Alertmanager', 'main', { spec: { ...(routePrefix ? { routePrefix } : {}), ...extra } });
const service = make('Service', 'alertmanager-main', {
  spec: { selector: { 'app.kubernetes.io/name': 'alertmanager', alertmanager: 'main' }, ports: [{ name: 'web', port: 9093 }] },
});
const meshOnly = make('Service', 'alertmanager-main', {
  spec: { selector: { 'app.kubernetes.io/name': 'alertmanager', alertmanager: 'main' }, ports: [{ name: 'mesh', port: 9094 }] },
});
const grafana = make('Service', 'grafana', { spec: { selector: { 'app.kubernetes.io/name': 'grafana' }, ports: [{ name: 'web', port: 3000 }] } });
const prometheus = (alerting: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
  make('Prometheus', 'main', { spec: { ...(alerting ? { alerting } : {}), ...extra } });
const entry = (fields: Record<string, unknown>) => ({ alertmanagers: [{ name: 'alertmanager-main', port: 'web', ...fields }] });

/** The findings with only these objects besides the repository's own (its kube-prometheus-stack, unrendered, is left out). */
function findings(...objects: Resource[]) {
  const dataFiles = new Map([...repo.dataFiles].filter(([file]) => file !== 'monitoring/kube-prometheus-stack/values.yaml'));
  return runPolicy({ ...repo, dataFiles, resources: [...repo.resources, ...objects] }, [alertsReachAlertmanagerCheck]).map((f) => [
    f.severity ?? 'fail',
    f.message,
  ]);
}

describe('alerts-reach-alertmanager', () => {
  it("passes a Prometheus sending to an Alertmanager's Service, port and route prefix", () => {
    expect(findings(prometheus(entry({})), service, alertmanager())).toEqual([]);
    expect(findings(prometheus(entry({ pathPrefix: '/am/' })), service, alertmanager('/am'))).toEqual([]);
  });

  it("keeps a port number to the pods' container port of that number: the web port passes, the cluster's fails", () => {
    expect(findings(prometheus(entry({ port: 9093 })), service, alertmanager())).toEqual([]);
    expect(findings(prometheus(entry({ port: 9094 })), service, alertmanager())).toEqual([
      ['fail', expect.stringMatching(/container port 9094, which is not Alertmanager's web port \(9093; 9094 is its cluster's\)/)],
    ]);
    expect(findings(prometheus(entry({ port: 9093 })), meshOnly, alertmanager())).toEqual([
      ['fail', expect.stringMatching(/container port 9093, which no port of the Service sends to/)],
    ]);
    // A quoted number is a port name, as intstr decodes it: the Service has no port named "9093".
    expect(findings(prometheus(entry({ port: '9093' })), service, alertmanager())).toEqual([
      ['fail', expect.stringMatching(/port 9093, which the Service does not have \(web\)/)],
    ]);
  });

  it('fails an Alertmanager that listens on 127.0.0.1 alone', () => {
    expect(findings(prometheus(entry({})), service, alertmanager(undefined, { listenLocal: true }))).toEqual([
      ['fail', expect.stringMatching(/Alertmanager main sets listenLocal: it listens on 127.0.0.1 alone/)],
    ]);
  });

  it('fails a Prometheus with no Alertmanager, and says one listed only in additionalAlertManagerConfigs is not judged', () => {
    expect(findings(prometheus(undefined))).toEqual([
      ['fail', expect.stringMatching(/^Prometheus alerting\/main lists no Alertmanager \(its alerting is empty\)/)],
    ]);
    expect(findings(prometheus(undefined, { additionalAlertManagerConfigs: { name: 's', key: 'k' } }))).toEqual([
      ['not-judged', expect.stringMatching(/additionalAlertManagerConfigs, a Secret's text the gate does not read/)],
    ]);
  });

  it("fails an entry naming a Service nothing provides, a port it lacks, pods that are no Alertmanager's, or another path", () => {
    expect(findings(prometheus(entry({ name: 'alertmanager' })), service, alertmanager())).toEqual([
      ['fail', expect.stringMatching(/sends its alerts to Service alerting\/alertmanager, which nothing provides/)],
    ]);
    expect(findings(prometheus(entry({ port: 'http-web' })), service, alertmanager())).toEqual([
      ['fail', expect.stringMatching(/port http-web, which the Service does not have \(web\)/)],
    ]);
    expect(findings(prometheus(entry({ name: 'grafana' })), grafana, alertmanager())).toEqual([
      ['fail', expect.stringMatching(/Service alerting\/grafana, whose pods are no Alertmanager's/)],
    ]);
    expect(findings(prometheus(entry({})), service, alertmanager('/alertmanager'))).toEqual([
      [
        'fail',
        expect.stringMatching(/under \/, but Alertmanager main answers under its routePrefix \/alertmanager: every alert posted to \/api\/v2\/alerts gets 404/),
      ],
    ]);
  });
});
