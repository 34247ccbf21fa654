/** The in-cluster addresses the closure-service check closes: what counts as one, and what does not. */
import { describe, expect, it } from 'vitest';
import { serviceAddresses } from '../../model/cluster/service-addresses.ts';

const NAMESPACES = new Set(['media', 'monitoring', 'default']);
const found = (value: unknown) => serviceAddresses(value, NAMESPACES).map(({ service, namespace, port, path }) => ({ service, namespace, port, path }));

describe('in-cluster addresses', () => {
  it('reads <service>.<namespace>.svc with its port, or the port its scheme implies', () => {
    expect(found({ env: [{ value: 'http://loki.monitoring.svc:3100/loki/api/v1/push' }], server: 'https://kubernetes.default.svc' })).toEqual([
      { service: 'loki', namespace: 'monitoring', port: 3100, path: ['env', 0, 'value'] },
      { service: 'kubernetes', namespace: 'default', port: 443, path: ['server'] },
    ]);
    expect(found('tdarr.media.svc')).toEqual([{ service: 'tdarr', namespace: 'media', port: undefined, path: [] }]);
    expect(found('grpc://tempo.monitoring.svc.cluster.local.:4317')).toEqual([{ service: 'tempo', namespace: 'monitoring', port: 4317, path: [] }]);
  });

  it('reads a host written apart from its port (hostname or host beside port) as the host at that port, found at the port', () => {
    expect(found({ radarr: [{ hostname: 'radarr.media.svc', port: 7878, useSsl: false }], client: { host: 'qbittorrent.media.svc', port: 8080 } })).toEqual([
      { service: 'radarr', namespace: 'media', port: 7878, path: ['radarr', 0, 'port'] },
      { service: 'qbittorrent', namespace: 'media', port: 8080, path: ['client', 'port'] },
    ]);
    // A port the host already says, a scheme's, a port that is no whole number, or a host that is more than the address: as written.
    expect(found({ host: 'radarr.media.svc:7878', port: 1 })).toEqual([{ service: 'radarr', namespace: 'media', port: 7878, path: ['host'] }]);
    expect(found({ host: 'http://radarr.media.svc', port: 1 })).toEqual([{ service: 'radarr', namespace: 'media', port: 80, path: ['host'] }]);
    expect(found({ hostname: 'radarr.media.svc', port: '7878' })).toEqual([{ service: 'radarr', namespace: 'media', port: undefined, path: ['hostname'] }]);
    expect(found({ url: 'radarr.media.svc', port: 7878 })).toEqual([{ service: 'radarr', namespace: 'media', port: undefined, path: ['url'] }]);
  });

  it("takes a StatefulSet pod's name under its headless Service as that Service", () => {
    expect(found('alertmanager-0.alertmanager-operated.monitoring.svc:9094')).toEqual([
      { service: 'alertmanager-operated', namespace: 'monitoring', port: 9094, path: [] },
    ]);
  });

  it('reads the short <service>.<namespace> only as an address in a namespace of the cluster', () => {
    expect(found('url: http://alertmanager.monitoring:9093, also sonarr.media:8989 and http://radarr.media')).toEqual([
      { service: 'alertmanager', namespace: 'monitoring', port: 9093, path: [] },
      { service: 'sonarr', namespace: 'media', port: 8989, path: [] },
      { service: 'radarr', namespace: 'media', port: 80, path: [] },
    ]);
    // Not addresses: a label key, an image, a bare name, a host in no namespace of the cluster.
    expect(found(['app.kubernetes.io/name', 'ghcr.io/home/app:1.2', 'sonarr.media', 'https://charts.example.net:8443', 'https://grafana.com'])).toEqual([]);
  });
});

describe('an object read twice', () => {
  it('is read for addresses once, and each call still judges its short addresses against its own namespaces', () => {
    const object = { url: 'http://sonarr.media:8989', push: 'http://loki.monitoring.svc:3100' };
    const names = (namespaces: Set<string>) => serviceAddresses(object, namespaces).map((a) => `${a.service}.${a.namespace}`);
    expect(names(new Set(['media']))).toEqual(['sonarr.media', 'loki.monitoring']);
    expect(names(new Set(['monitoring']))).toEqual(['loki.monitoring']);
    expect(serviceAddresses(object, new Set(['media']))[0]).toEqual({
      service: 'sonarr',
      namespace: 'media',
      port: 8989,
      text: 'http://sonarr.media:8989',
      path: ['url'],
    });
  });
});
