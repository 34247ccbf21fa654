/**
 * What k8s-sidecar 2.10 asks the API server (model/grafana/sidecars.ts k8sSidecarRequests), read from its container's
 * environment as its src/sidecar.py and src/resources.py read it: the kinds RESOURCE names, the namespaces NAMESPACE
 * lists, a list by label and a watch, RESOURCE_NAME's gets, METHOD's list-only and sleep modes.
 */
import { describe, expect, it } from 'vitest';
import { k8sSidecarRequests } from '../../model/grafana/sidecars.ts';

const container = (env: Record<string, string>) => ({ name: 'sc', env: Object.entries(env).map(([name, value]) => ({ name, value })) });
const requests = (env: Record<string, string>, own = 'monitoring') =>
  k8sSidecarRequests(container({ LABEL: 'grafana_dashboard', FOLDER: '/tmp/d', ...env }), own);

describe('k8sSidecarRequests', () => {
  it('lists and then watches its kinds by label, in its own namespace where NAMESPACE is unset, configmaps where RESOURCE is', () => {
    expect(requests({})).toEqual({
      requests: [
        'GET /api/v1/namespaces/monitoring/configmaps?labelSelector=grafana_dashboard&limit=5',
        'GET /api/v1/namespaces/monitoring/configmaps?labelSelector=grafana_dashboard&watch=True',
      ],
    });
  });

  it('reads every namespace at once with ALL, each of a list otherwise, secrets before configmaps with both', () => {
    expect(requests({ NAMESPACE: 'ALL', RESOURCE: 'both', LABEL_VALUE: '1' })).toEqual({
      requests: [
        'GET /api/v1/secrets?labelSelector=grafana_dashboard%3D1&limit=5',
        'GET /api/v1/secrets?labelSelector=grafana_dashboard%3D1&watch=True',
        'GET /api/v1/configmaps?labelSelector=grafana_dashboard%3D1&limit=5',
        'GET /api/v1/configmaps?labelSelector=grafana_dashboard%3D1&watch=True',
      ],
    });
    expect((requests({ NAMESPACE: 'a,b', RESOURCE: 'secret', METHOD: 'LIST' }) as { requests: string[] }).requests).toEqual([
      'GET /api/v1/namespaces/a/secrets?labelSelector=grafana_dashboard&limit=5',
      'GET /api/v1/namespaces/b/secrets?labelSelector=grafana_dashboard&limit=5',
    ]);
  });

  it('gets the objects RESOURCE_NAME names for its namespace and kind, and lists again instead of watching there', () => {
    expect(requests({ RESOURCE: 'both', RESOURCE_NAME: 'configmap/one,monitoring/secret/two,other/configmap/three' })).toEqual({
      // A three-part name is held to its namespace only (resources.py checks no kind there): the configmaps' pass gets it too.
      requests: [
        'GET /api/v1/namespaces/monitoring/secrets/two',
        'GET /api/v1/namespaces/monitoring/configmaps/one',
        'GET /api/v1/namespaces/monitoring/configmaps/two',
      ],
    });
    expect(requests({ RESOURCE_NAME: 'secret/one' })).toEqual({
      requests: ['GET /api/v1/namespaces/monitoring/configmaps?labelSelector=grafana_dashboard&limit=5'],
    });
    expect(requests({ METHOD: 'SLEEP', IGNORE_ALREADY_PROCESSED: 'true' })).toEqual({
      requests: ['GET /version', 'GET /api/v1/namespaces/monitoring/configmaps?labelSelector=grafana_dashboard&limit=5'],
    });
  });

  it('is no k8s-sidecar without LABEL and FOLDER, and says which variable it cannot read', () => {
    expect(k8sSidecarRequests(container({ LABEL: 'x' }), 'm')).toBeUndefined();
    expect(
      k8sSidecarRequests({ env: [...container({ LABEL: 'x', FOLDER: '/d' }).env, { name: 'NAMESPACE', valueFrom: { configMapKeyRef: {} } }] }, 'm'),
    ).toEqual({ unread: 'NAMESPACE' });
  });

  it("reads its settings through the caller's reading of the container's variables (its envFrom sources), and is known by its env alone", () => {
    const c = container({ LABEL: 'x', FOLDER: '/d' });
    // NAMESPACE from an envFrom ConfigMap: every namespace at once, where the env alone would say its own.
    const fromSources = (name: string) => (name === 'NAMESPACE' ? 'ALL' : name === 'LABEL' ? 'x' : name === 'FOLDER' ? '/d' : undefined);
    expect(k8sSidecarRequests(c, 'm', fromSources)).toEqual({
      requests: ['GET /api/v1/configmaps?labelSelector=x&limit=5', 'GET /api/v1/configmaps?labelSelector=x&watch=True'],
    });
    expect(k8sSidecarRequests(c, 'm', (name) => (name === 'RESOURCE' ? null : fromSources(name)))).toEqual({ unread: 'RESOURCE' });
    // A container whose unknown envFrom may hold anything is no k8s-sidecar for that.
    expect(k8sSidecarRequests({ name: 'app', envFrom: [{ secretRef: { name: 's' } }] }, 'm', () => null)).toBeUndefined();
  });
});
