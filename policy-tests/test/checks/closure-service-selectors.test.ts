/**
 * closure-service holds every Service with a selector to pods the cluster runs, and says who reaches the Service
 * when one does: its route, a client at its address, its monitor; a Service nothing reaches is still named.
 */
import { describe, expect, it } from 'vitest';
import { serviceClosureCheck } from '../../checks/closure/services.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

/** The real repository with the named Services' selectors pointing at a label no pod carries, and `extra` added. */
function withStrayServices(names: string[], extra: Resource[] = []): Repo {
  const resources = repo.resources.map((r) => {
    if (r.kind !== 'Service' || !names.includes(r.name)) return r;
    const object = structuredClone(r.object) as { spec: { selector: Record<string, string> } };
    object.spec.selector = { 'app.kubernetes.io/name': `${r.name}-gone` };
    return { ...r, object } as Resource;
  });
  return { ...repo, resources: [...resources, ...extra] };
}

describe('closure-service: a Service with a selector has pods', () => {
  it('names who reaches each Service that selects no pod, or says nothing does', () => {
    const unreached = {
      ...repo.resources.find((r) => r.kind === 'Service' && r.name === 'sonarr')!,
      name: 'sonarr-spare',
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'sonarr-spare', namespace: 'media' },
        spec: { selector: { app: 'nobody' }, ports: [{ port: 80 }] },
      },
    } as Resource;
    // Without renders the chart-made Services are unknown; only what the selectors break is asked about here.
    const messages = runPolicy(withStrayServices(['sonarr', 'qbittorrent', 'sonarr-metrics'], [unreached]), [serviceClosureCheck])
      .map((f) => f.message)
      .filter((m) => m.startsWith('Service '));
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Service sonarr selects no pod in media \(app\.kubernetes\.io\/name=sonarr-gone\), so it has no endpoints, and Ingress sonarr routes to it: the route answers 503$/,
        ),
        expect.stringMatching(/^Service qbittorrent selects no pod in media-vpn .*, and .* dials it at .*qbittorrent\.media-vpn\.svc/),
        expect.stringMatching(/^Service sonarr-metrics selects no pod in media .*, and ServiceMonitor \S+ scrapes it/),
        'Service sonarr-spare selects no pod in media (app=nobody), so it has no endpoints: nothing answers at it',
      ]),
    );
    expect(messages).toHaveLength(4);
  });
});

describe("closure-service: the Services Rook's operator makes for a CephCluster", () => {
  const monitor = repo.resources.find((r) => r.kind === 'ServiceMonitor' && r.name === 'rook-ceph-mgr')!;
  const cluster = (spec: Record<string, unknown>): Resource =>
    ({
      ...monitor,
      kind: 'CephCluster',
      apiVersion: 'ceph.rook.io/v1',
      name: 'rook-ceph',
      object: { apiVersion: 'ceph.rook.io/v1', kind: 'CephCluster', metadata: { name: 'rook-ceph', namespace: 'rook-ceph' }, spec },
    }) as Resource;
  const withMonitor = (edit: (spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] }) => void): Resource => {
    const object = structuredClone(monitor.object) as { spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] } };
    edit(object.spec);
    return { ...monitor, object } as Resource;
  };
  const monitorFindings = (resources: Resource[]) =>
    runPolicy({ ...repo, resources: [...repo.resources.filter((r) => r !== monitor), ...resources] }, [serviceClosureCheck])
      .map((f) => f.message)
      .filter((m) => m.startsWith('ServiceMonitor rook-ceph-mgr'));

  it("holds the manager's monitor to the metrics Service Rook makes, by its labels and port", () => {
    expect(monitorFindings([monitor, cluster({})])).toEqual([]);
    expect(monitorFindings([withMonitor((s) => (s.selector.matchLabels.app = 'ceph-mgr')), cluster({})])).toEqual([
      'ServiceMonitor rook-ceph-mgr selects no Service in rook-ceph: nothing is scraped',
    ]);
    expect(monitorFindings([withMonitor((s) => (s.endpoints[0]!.port = 'metrics')), cluster({})])).toEqual([
      'ServiceMonitor rook-ceph-mgr scrapes port metrics, which no Service it selects has',
    ]);
    // The dashboard's Service carries the same labels and its own port; an external cluster's managers run elsewhere.
    expect(monitorFindings([withMonitor((s) => (s.endpoints[0]!.port = 'https-dashboard')), cluster({ dashboard: { enabled: true, ssl: true } })])).toEqual([]);
    expect(monitorFindings([withMonitor((s) => (s.selector.matchLabels.app = 'ceph-mgr')), cluster({ external: { enable: true } })])).toEqual([]);
  });
  it("takes the Application's word for a Service made at run time where no CephCluster is seen", () => {
    expect(monitorFindings([withMonitor((s) => (s.selector.matchLabels.app = 'ceph-mgr'))])).toEqual([]);
  });
});
