/**
 * A Service as pkg/apis/core/validation `ValidateService` judges it on create, after the API server's defaults and
 * allocators: what each type may carry, session affinity's timeout, external IPs (`ValidateNonSpecialIP`), source
 * ranges, the load balancer's fields, the traffic policies' reach, app protocols and node ports.
 */
import { describe, expect, it } from 'vitest';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const service = (spec: object, annotations?: object) => ({
  metadata: { name: 'web', ...(annotations ? { annotations } : {}) },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], ...spec },
});
const said = (spec: object, annotations?: object) => validateBuiltin('Service', service(spec, annotations), 35).map((p) => `${p.path.join('.')}: ${p.message}`);

describe('a Service, by its type', () => {
  it('admits what charts write: ClusterIP, headless, NodePort, a LoadBalancer with its class, ranges and Local traffic', () => {
    expect(said({})).toEqual([]);
    expect(said({ clusterIP: 'None' })).toEqual([]);
    expect(said({ type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{ port: 80, nodePort: 30080 }] })).toEqual([]);
    expect(
      said({
        type: 'LoadBalancer',
        loadBalancerClass: 'io.cilium/l2-announcer',
        loadBalancerSourceRanges: ['10.0.0.0/8', ' 192.168.0.0/16'],
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: 32000,
        allocateLoadBalancerNodePorts: false,
      }),
    ).toEqual([]);
  });
  it('refuses a headless NodePort or LoadBalancer, and load balancer fields on another type', () => {
    expect(said({ type: 'NodePort', clusterIP: 'None' })).toEqual(["spec.clusterIP: may not be set to 'None' for NodePort services"]);
    expect(said({ loadBalancerClass: 'x.io/y', allocateLoadBalancerNodePorts: true, loadBalancerSourceRanges: ['10.0.0.0/8'] })).toEqual([
      "spec.allocateLoadBalancerNodePorts: may only be used when `type` is 'LoadBalancer'",
      "spec.loadBalancerClass: may only be used when `type` is 'LoadBalancer'",
      "spec.loadBalancerSourceRanges: may only be used when `type` is 'LoadBalancer'",
    ]);
    expect(said({}, { 'service.beta.kubernetes.io/load-balancer-source-ranges': '10.0.0.0/8,10.1.0.0/33' })).toEqual([
      "metadata.annotations.service.beta.kubernetes.io/load-balancer-source-ranges: may only be used when `type` is 'LoadBalancer'",
      'metadata.annotations.service.beta.kubernetes.io/load-balancer-source-ranges: source range "10.1.0.0/33": prefix length out of range',
    ]);
  });
  it("refuses an ExternalName's cluster IPs and families, and a list of cluster IPs without the field", () => {
    expect(said({ type: 'ExternalName', externalName: 'db.example.com.', clusterIP: '10.0.0.1', ipFamilyPolicy: 'SingleStack', ports: [] })).toEqual([
      'spec.clusterIP: may not be set for ExternalName services',
      'spec.ipFamilyPolicy: may not be set for ExternalName services',
    ]);
    expect(said({ clusterIPs: ['10.96.0.10'] })).toEqual(['spec.clusterIPs: must be empty when `clusterIP` is not specified']);
    expect(said({ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.11'] })).toEqual(['spec.clusterIPs: first value must match `clusterIP`']);
  });
});

describe("a Service's traffic", () => {
  it('refuses an external traffic policy or a health check port where nothing reaches it from outside', () => {
    expect(said({ externalTrafficPolicy: 'Local' })).toEqual(['spec.externalTrafficPolicy: may only be set for externally-accessible services']);
    expect(said({ externalTrafficPolicy: 'Local', externalIPs: ['203.0.113.7'] })).toEqual([]);
    expect(said({ type: 'LoadBalancer', healthCheckNodePort: 32000 })).toEqual([
      "spec.healthCheckNodePort: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    ]);
  });
  it('refuses external IPs that are special, and a session affinity timeout out of range or under None', () => {
    expect(said({ externalIPs: ['0.0.0.0', '127.0.0.2', '::ffff:169.254.1.1', '224.0.0.5', 'ff12::1', '10.0.0.300', '010.0.0.1'] })).toEqual([
      'spec.externalIPs.0: externalIPs "0.0.0.0": may not be unspecified (0.0.0.0)',
      'spec.externalIPs.1: externalIPs "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'spec.externalIPs.2: externalIPs "::ffff:169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
      'spec.externalIPs.3: externalIPs "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
      'spec.externalIPs.4: externalIPs "ff12::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
      'spec.externalIPs.5: externalIPs "10.0.0.300": must be a valid IP address',
    ]);
    expect(said({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } } })).toEqual([
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds: timeoutSeconds 86401: must be greater than 0 and less than 86400',
    ]);
    expect(said({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } })).toEqual([
      'spec.sessionAffinityConfig: must not be set when session affinity is None',
    ]);
  });
  it('refuses an app protocol that is no qualified name, and one node port twice for a protocol', () => {
    expect(
      said({
        type: 'NodePort',
        ports: [
          { name: 'a', port: 80, nodePort: 30080, appProtocol: 'kubernetes.io/h2c' },
          { name: 'b', port: 81, nodePort: 30080, appProtocol: 'h 2' },
          { name: 'c', port: 81, protocol: 'UDP', nodePort: 30080 },
        ],
      }),
    ).toEqual([expect.stringMatching(/^spec\.ports\.1\.appProtocol: appProtocol "h 2": /), 'spec.ports.1.nodePort: Duplicate value: nodePort 30080/TCP']);
  });
});
