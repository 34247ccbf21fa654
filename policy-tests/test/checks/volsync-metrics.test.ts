/**
 * volsync-metrics with the chart rendered: VolSync's manager (cmd/main.go) serves its metrics over HTTPS behind
 * controller-runtime's authentication and authorization filter unless --metrics-secure or --metrics-require-rbac is
 * false, so a monitor that presents no token scrapes nothing. Offline the chart is not rendered, so the real
 * repository's render is stood in for by the chart's two objects (a Deployment and its ServiceMonitor).
 */
import { describe, expect, it } from 'vitest';
import { sourceChecks } from '../../checks/monitoring/sources.ts';
import { judgedWithRender } from '../support/chart-render.ts';

const check = sourceChecks.find((c) => c.id === 'volsync-metrics')!;

const manager = (extra: string[]) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'volsync', namespace: 'volsync-system' },
  spec: {
    template: {
      spec: {
        containers: [
          {
            name: 'manager',
            image: 'quay.io/backube/volsync:0.16.0',
            args: ['--health-probe-bind-address=:8081', '--metrics-bind-address=:8443', '--leader-elect', ...extra],
          },
        ],
      },
    },
  },
});

const monitor = (endpoint: Record<string, unknown> = {}) => ({
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'ServiceMonitor',
  metadata: { name: 'volsync', namespace: 'volsync-system' },
  spec: {
    endpoints: [{ interval: '30s', path: '/metrics', port: 'https', scheme: 'https', tlsConfig: { insecureSkipVerify: true }, ...endpoint }],
    selector: { matchLabels: { 'control-plane': 'volsync-controller' } },
  },
});

const judged = (args: string[], endpoint?: Record<string, unknown>) =>
  judgedWithRender(check, { app: 'volsync', chart: 'volsync', namespace: 'volsync-system' }, [manager(args), monitor(endpoint)]);

describe('volsync-metrics with the chart rendered', () => {
  it("passes the repository's render: metrics.disableAuth makes the chart pass --metrics-require-rbac=false", async () => {
    expect((await judged(['--metrics-require-rbac=false'])).failed).toEqual([]);
    expect((await judged(['-metrics-secure=f'])).failed).toEqual([]);
  });

  it('fails a monitor with no token where the manager guards its metrics (both flags at their default, or set true)', async () => {
    for (const args of [[], ['--metrics-require-rbac'], ['--metrics-require-rbac=false', '--metrics-require-rbac=true']]) {
      const { failed } = await judged(args);
      expect(failed).toEqual([expect.stringContaining('every scrape is answered 401')]);
    }
  });

  it('takes a monitor that presents a credential (which identity it is, and its binding, is not judged)', async () => {
    expect((await judged([], { authorization: { credentials: { name: 'prometheus-token', key: 'token' } } })).failed).toEqual([]);
  });
});
