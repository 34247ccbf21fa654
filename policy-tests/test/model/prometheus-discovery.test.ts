/**
 * What a Prometheus the operator runs asks the API server (model/prometheus-operator/discovery.ts), case by case as
 * promcfg.go writes each discovery: the namespaces a monitor's selector gives, the endpoints role's flavour, node
 * metadata by monitor, scrape class and version, a Probe's ingresses, the Alertmanagers, and what is not read.
 */
import { describe, expect, it } from 'vitest';
import { prometheusApiRequests, type LoadedMonitor } from '../../model/prometheus-operator/discovery.ts';

const monitor = (kind: string, spec: Record<string, unknown>, namespace = 'media'): LoadedMonitor => ({ kind, name: 'm', namespace, spec });
const requests = (prometheus: Record<string, unknown>, ...monitors: LoadedMonitor[]) => prometheusApiRequests(prometheus, 'monitoring', monitors).requests;
const lists = (prometheus: Record<string, unknown>, ...monitors: LoadedMonitor[]) =>
  requests(prometheus, ...monitors).filter((r) => !r.endsWith('?watch=true'));

describe("a Prometheus' discoveries", () => {
  it("reads a ServiceMonitor's endpoints, services and pods in its own namespace, each listed and watched", () => {
    expect(requests({}, monitor('ServiceMonitor', {}))).toEqual([
      'GET /api/v1/namespaces/media/endpoints',
      'GET /api/v1/namespaces/media/endpoints?watch=true',
      'GET /api/v1/namespaces/media/services',
      'GET /api/v1/namespaces/media/services?watch=true',
      'GET /api/v1/namespaces/media/pods',
      'GET /api/v1/namespaces/media/pods?watch=true',
    ]);
  });

  it("reads the namespaces the selector names, every one with any, and the monitor's own where the Prometheus ignores selectors", () => {
    expect(lists({}, monitor('PodMonitor', { namespaceSelector: { matchNames: ['a', 'b'] } }))).toEqual([
      'GET /api/v1/namespaces/a/pods',
      'GET /api/v1/namespaces/b/pods',
    ]);
    expect(lists({}, monitor('PodMonitor', { namespaceSelector: { any: true, matchNames: ['a'] } }))).toEqual(['GET /api/v1/pods']);
    expect(lists({ ignoreNamespaceSelectors: true }, monitor('PodMonitor', { namespaceSelector: { any: true } }))).toEqual([
      'GET /api/v1/namespaces/media/pods',
    ]);
  });

  it('reads endpointslices where the monitor or the Prometheus asks for them, from Prometheus 2.21', () => {
    const slices = 'GET /apis/discovery.k8s.io/v1/namespaces/media/endpointslices';
    expect(lists({}, monitor('ServiceMonitor', { serviceDiscoveryRole: 'EndpointSlice' }))).toContain(slices);
    expect(lists({ serviceDiscoveryRole: 'EndpointSlice' }, monitor('ServiceMonitor', {}))).toContain(slices);
    expect(lists({ serviceDiscoveryRole: 'EndpointSlice' }, monitor('ServiceMonitor', { serviceDiscoveryRole: 'Endpoints' }))).not.toContain(slices);
    expect(lists({ version: 'v2.20.1' }, monitor('ServiceMonitor', { serviceDiscoveryRole: 'EndpointSlice' }))).not.toContain(slices);
  });

  it("reads nodes where the monitor's attachMetadata, else its scrape class', attaches them, from the version that writes it", () => {
    const nodes = 'GET /api/v1/nodes';
    expect(lists({}, monitor('ServiceMonitor', { attachMetadata: { node: true } }))).toContain(nodes);
    expect(lists({ version: 'v2.36.0' }, monitor('ServiceMonitor', { attachMetadata: { node: true } }))).not.toContain(nodes);
    expect(lists({ version: 'v2.36.0' }, monitor('PodMonitor', { attachMetadata: { node: true } }))).toContain(nodes);
    const classes = { scrapeClasses: [{ name: 'nodes', default: true, attachMetadata: { node: true } }, { name: 'plain' }] };
    expect(lists(classes, monitor('PodMonitor', {}))).toContain(nodes);
    expect(lists(classes, monitor('PodMonitor', { scrapeClassName: 'plain' }))).not.toContain(nodes);
    expect(lists(classes, monitor('PodMonitor', { attachMetadata: { node: false } }))).not.toContain(nodes);
  });

  it("reads a Probe's ingresses, unless a static config takes precedence", () => {
    const ingress = { ingress: { selector: {}, namespaceSelector: { matchNames: ['web'] } } };
    expect(lists({}, monitor('Probe', { targets: ingress }))).toEqual(['GET /apis/networking.k8s.io/v1/namespaces/web/ingresses']);
    expect(lists({}, monitor('Probe', { targets: { ...ingress, staticConfig: { static: ['x'] } } }))).toEqual([]);
  });

  it("finds each Alertmanager by the Prometheus' endpoints role in its namespace, the Prometheus' own where unset", () => {
    const alerting = {
      alertmanagers: [
        { name: 'am', port: 'web' },
        { name: 'other', namespace: 'alerts', port: 'web' },
      ],
    };
    expect(lists({ alerting }).filter((r) => r.endsWith('/endpoints'))).toEqual([
      'GET /api/v1/namespaces/monitoring/endpoints',
      'GET /api/v1/namespaces/alerts/endpoints',
    ]);
  });

  it('says what it does not read, and judges nothing of a Prometheus that asks another API server', () => {
    const sd = monitor('ScrapeConfig', { kubernetesSDConfigs: [{ role: 'Pod' }] });
    expect(prometheusApiRequests({ additionalScrapeConfigs: { name: 's', key: 'k' } }, 'monitoring', [sd]).unread).toEqual([
      "its additionalScrapeConfigs' discoveries (a Secret's text the gate does not read)",
      "ScrapeConfig media/m's kubernetesSDConfigs (not read)",
    ]);
    expect(prometheusApiRequests({}, 'monitoring', [monitor('ScrapeConfig', { staticConfigs: [] })]).unread).toEqual([]);
    expect(prometheusApiRequests({ apiserverConfig: { host: 'h' } }, 'monitoring', [monitor('PodMonitor', {})])).toEqual({
      requests: [],
      unread: ['its discoveries, which its apiserverConfig sends to another API server with other credentials'],
    });
  });
});
