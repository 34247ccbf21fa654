/**
 * What kube-state-metrics v2.20 asks the API server (model/apps/kube-state-metrics.ts), from its flags as
 * pkg/options reads them and each resource's store in internal/store/builder.go: its group and version, its scope.
 */
import { describe, expect, it } from 'vitest';
import { isKubeStateMetrics, kubeStateMetricsRequests } from '../../model/apps/kube-state-metrics.ts';
import { expandedCommandLine } from '../../model/cluster/environment.ts';

const image = 'registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.20.0';

describe('kubeStateMetricsRequests', () => {
  it('lists and watches each resource --resources names, in its group and version, namespaced ones in each of --namespaces', () => {
    expect(kubeStateMetricsRequests({ image, args: ['--port=8080', '--resources=cronjobs,nodes,pods', '--namespaces=backups,media'] })).toEqual({
      requests: [
        'GET /apis/batch/v1/namespaces/backups/cronjobs',
        'GET /apis/batch/v1/namespaces/backups/cronjobs?watch=true',
        'GET /apis/batch/v1/namespaces/media/cronjobs',
        'GET /apis/batch/v1/namespaces/media/cronjobs?watch=true',
        'GET /api/v1/nodes',
        'GET /api/v1/nodes?watch=true',
        'GET /api/v1/namespaces/backups/pods',
        'GET /api/v1/namespaces/backups/pods?watch=true',
        'GET /api/v1/namespaces/media/pods',
        'GET /api/v1/namespaces/media/pods?watch=true',
      ],
    });
    expect(kubeStateMetricsRequests({ image, args: ['--resources', 'horizontalpodautoscalers'] })).toEqual({
      requests: ['GET /apis/autoscaling/v2/horizontalpodautoscalers', 'GET /apis/autoscaling/v2/horizontalpodautoscalers?watch=true'],
    });
  });

  it('adds each --resources and --namespaces given to the ones before it, trimmed, as ResourceSet and NamespaceList do', () => {
    // Read as the last one alone, the secrets' informer went unasked, and a grant it needs unjudged.
    expect(kubeStateMetricsRequests({ image, args: ['--resources=nodes', '--resources= secrets ,', '--namespaces=media', '--namespaces', 'backups'] })).toEqual(
      {
        requests: [
          'GET /api/v1/nodes',
          'GET /api/v1/nodes?watch=true',
          'GET /api/v1/namespaces/media/secrets',
          'GET /api/v1/namespaces/media/secrets?watch=true',
          'GET /api/v1/namespaces/backups/secrets',
          'GET /api/v1/namespaces/backups/secrets?watch=true',
        ],
      },
    );
  });

  it('reads its 32 default resources where --resources is absent, and says what it cannot read', () => {
    const read = kubeStateMetricsRequests({ image, args: [] });
    expect('requests' in read && read.requests.length).toBe(64);
    expect('requests' in read && read.requests).not.toContain('GET /api/v1/endpoints');
    expect(kubeStateMetricsRequests({ image, args: ['--resources=pods,widgets'] })).toEqual({
      unread: '--resources names widgets, which the gate does not know',
    });
    expect(kubeStateMetricsRequests({ image, args: ['--custom-resource-state-config-file=/etc/crs.yaml'] })).toEqual({
      unread: 'its custom resource state configuration',
    });
  });

  it('knows the program by its image', () => {
    expect(isKubeStateMetrics({ image })).toBe(true);
    expect(isKubeStateMetrics({ image: 'quay.io/prometheus/node-exporter:v1.12.1' })).toBe(false);
  });
});

describe('kubeStateMetricsRequests on its command line as the kubelet expands it', () => {
  const environment = (values: Record<string, string>) => ({
    setting: (name: string) => (values[name] === undefined ? undefined : values[name] === 'held' ? ('held' as const) : { value: values[name]! }),
  });
  const container = { image, args: ['--resources=pods', '--namespaces=$(WATCHED)'] };

  it('reads a $(NAME) by the variable, and says a command line that reads a value it cannot read not judged', () => {
    expect(kubeStateMetricsRequests(container, expandedCommandLine(environment({ WATCHED: 'media' }), container))).toEqual({
      requests: ['GET /api/v1/namespaces/media/pods', 'GET /api/v1/namespaces/media/pods?watch=true'],
    });
    expect(kubeStateMetricsRequests(container, expandedCommandLine(environment({ WATCHED: 'held' }), container))).toEqual({
      unread: 'its command line reads a variable whose value the gate does not read',
    });
  });
});
