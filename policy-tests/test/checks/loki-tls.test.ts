/**
 * monitoring-loki-config's TLS rules on a rendered Loki built here (the chart's ConfigMap and StatefulSet, as the
 * chart at the reference's version renders them, trimmed to what the rules read): a server that takes TLS holds the
 * files its http_tls_config names, and its probes of the HTTP port speak its scheme; a plain server is probed in HTTP.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { lokiConfigCheck } from '../../checks/monitoring/loki-config.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { lokiReference } from '../../model/loki/config.ts';

const repo = await loadRepo(REPO_ROOT);
const version = (lokiReference(repo) as { version: string }).version;

const rendered = (kind: string, name: string, object: Record<string, unknown>, i: number): Resource =>
  ({
    file: 'monitoring/loki/application.yaml',
    doc: 0,
    apiVersion: kind === 'StatefulSet' ? 'apps/v1' : 'v1',
    kind,
    name,
    namespace: 'monitoring',
    object: { apiVersion: kind === 'StatefulSet' ? 'apps/v1' : 'v1', kind, metadata: { name, namespace: 'monitoring' }, ...object },
    positions: { at: () => ({ line: 1, col: 1 }) },
    rendered: { id: `loki#${i}`, app: 'loki', source: 'chart loki 18.11.0' },
  }) as Resource;

/** The TLS findings for a Loki of this server block, its container mounting `mounts` and probed in `scheme`. */
function judged(
  server: Record<string, unknown>,
  scheme: string,
  mounts: { mountPath: string; secret: string }[] = [],
  scrape = scheme.toLowerCase(),
): string[] {
  const config = { auth_enabled: false, server };
  const container = {
    name: 'loki',
    image: `docker.io/grafana/loki:${version}`,
    ports: [{ name: 'http-metrics', containerPort: 3100 }],
    readinessProbe: { httpGet: { path: '/ready', port: 'http-metrics', scheme } },
    volumeMounts: mounts.map((m, i) => ({ name: `tls-${i}`, mountPath: m.mountPath })),
  };
  const resources = [
    rendered('ConfigMap', 'loki', { data: { 'config.yaml': stringify(config) } }, 0),
    rendered(
      'StatefulSet',
      'loki',
      { spec: { template: { spec: { containers: [container], volumes: mounts.map((m, i) => ({ name: `tls-${i}`, secret: { secretName: m.secret } })) } } } },
      1,
    ),
    rendered(
      'Service',
      'loki',
      {
        metadata: { name: 'loki', namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'loki' } },
        spec: { ports: [{ name: 'http-metrics', port: 3100, targetPort: 'http-metrics' }] },
      },
      2,
    ),
    rendered(
      'ServiceMonitor',
      'loki',
      { spec: { selector: { matchLabels: { 'app.kubernetes.io/name': 'loki' } }, endpoints: [{ port: 'http-metrics', path: '/metrics', scheme: scrape }] } },
      3,
    ),
  ];
  return runChecks({ ...repo, resources: [...repo.resources, ...resources] }, [lokiConfigCheck])
    .findings.filter((f) => /TLS|tls|HTTPS|handshake/.test(f.message))
    .map((f) => f.message);
}

describe("monitoring-loki-config: Loki's TLS", () => {
  const tls = { http_tls_config: { cert_file: '/tls/tls.crt', key_file: '/tls/tls.key' } };

  it('passes a plain server probed in HTTP, and a TLS server whose files a volume holds, probed in HTTPS', () => {
    expect(judged({}, 'HTTP')).toEqual([]);
    expect(judged(tls, 'HTTPS', [{ mountPath: '/tls', secret: 'loki-tls' }])).toEqual([]);
  });

  it('fails each file no volume holds, and a probe and a scrape in plain HTTP of the TLS port', () => {
    expect(judged(tls, 'HTTP')).toEqual([
      expect.stringMatching(/^ServiceMonitor loki scrapes Loki's HTTP port 3100 in plain HTTP, and its server takes TLS only/),
      expect.stringMatching(/^Loki's server\.http_tls_config\.cert_file is \/tls\/tls\.crt, and no volume of the container provides \/tls\/tls\.crt/),
      expect.stringMatching(/^Loki's server\.http_tls_config\.key_file is \/tls\/tls\.key/),
      expect.stringMatching(/readinessProbe asks Loki's HTTP port 3100 in plain HTTP, and its server takes TLS only/),
    ]);
  });

  it('fails a probe or a scrape in HTTPS of a plain server, and judges the port the server listens on', () => {
    expect(judged({}, 'HTTPS', [], 'http')).toEqual([expect.stringMatching(/readinessProbe speaks HTTPS to Loki's HTTP port 3100, which serves plain HTTP/)]);
    expect(judged({}, 'HTTP', [], 'https')).toEqual([
      expect.stringMatching(/^ServiceMonitor loki scrapes Loki's HTTP port 3100 in HTTPS, which serves plain HTTP/),
    ]);
    expect(judged({ http_listen_port: 3200 }, 'HTTPS')).toEqual([]);
  });
});
