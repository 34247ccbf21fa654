/**
 * The Service allocator's refusals on create (Kubernetes v1.36 pkg/registry/core/service/storage/alloc.go and the IP
 * and port allocators), each message as the API server words it.
 */
import { describe, expect, it } from 'vitest';
import { serviceAllocations, type ServiceNetwork } from '../../admission/allocation/service-allocation.ts';
import { DEFAULT_NODE_PORTS } from '../../model/repository/node-network.ts';

const service = (name: string, spec: Record<string, unknown>): { object: Record<string, unknown>; label: string } => ({
  object: { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'demo' }, spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec } },
  label: `Service demo/${name}`,
});
const single: ServiceNetwork = { ranges: ['10.96.0.0/12'], nodePorts: DEFAULT_NODE_PORTS };
const messages = (services: ReturnType<typeof service>[], network = single) =>
  serviceAllocations(services, network).map((a) => [a.index, a.invalid.path.join('.'), a.invalid.message]);

describe('serviceAllocations', () => {
  it('gives what a single-stack cluster has, and lets the cluster choose what is left out', () => {
    expect(
      messages([
        service('a', {}),
        service('b', { clusterIP: '10.96.0.10', ipFamilies: ['IPv4'], ipFamilyPolicy: 'PreferDualStack' }),
        service('c', {
          type: 'NodePort',
          ports: [
            { port: 80, nodePort: 30080 },
            { port: 80, protocol: 'UDP', nodePort: 30080 },
          ],
        }),
        service('d', { type: 'ExternalName', externalName: 'example.com', clusterIP: '1.2.3.4' }),
        // Headless and selectorless: families the cluster lacks are allowed.
        {
          ...service('e', { clusterIP: 'None', ipFamilies: ['IPv6'], ipFamilyPolicy: 'RequireDualStack' }),
          object: { ...service('e', {}).object, spec: { clusterIP: 'None', ipFamilies: ['IPv6'], ipFamilyPolicy: 'RequireDualStack' } },
        },
      ]),
    ).toEqual([]);
  });

  it('refuses a family the cluster lacks, as initIPFamilyFields words it', () => {
    expect(
      messages([service('a', { ipFamilyPolicy: 'RequireDualStack' }), service('b', { ipFamilies: ['IPv6'] }), service('c', { clusterIP: 'fd00::10' })]),
    ).toEqual([
      [0, 'spec.ipFamilyPolicy', 'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services'],
      [1, 'spec.ipFamilies.0', 'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster'],
      [2, 'spec.clusterIP', 'spec.clusterIPs[0]: Invalid value: ["fd00::10"]: IPv6 is not configured on this cluster'],
    ]);
  });

  it('refuses an address outside the range, the network and broadcast addresses, and one already given', () => {
    expect(
      messages([
        service('a', { clusterIP: '10.43.0.10' }),
        service('b', { clusterIP: '10.96.0.0' }),
        service('c', { clusterIP: '10.111.255.255' }),
        service('d', { clusterIP: '10.96.0.1' }),
        service('e', { clusterIPs: ['10.100.0.5'] }),
        service('f', { clusterIP: '10.100.0.5' }),
      ]),
    ).toEqual([
      [
        0,
        'spec.clusterIP',
        'spec.clusterIPs: Invalid value: ["10.43.0.10"]: failed to allocate IP 10.43.0.10: the provided IP (10.43.0.10) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
      ],
      [1, 'spec.clusterIP', expect.stringContaining('the provided IP (10.96.0.0) is not in the valid range')],
      [2, 'spec.clusterIP', expect.stringContaining('the provided IP (10.111.255.255) is not in the valid range')],
      [3, 'spec.clusterIP', expect.stringContaining('provided IP is already allocated (to the kubernetes Service (default/kubernetes)')],
      [
        5,
        'spec.clusterIP',
        'spec.clusterIPs: Invalid value: ["10.100.0.5"]: failed to allocate IP 10.100.0.5: provided IP is already allocated (to Service demo/e)',
      ],
    ]);
    // An address an object outside the repository holds (Talos' kube-dns) is taken too.
    expect(messages([service('a', { clusterIP: '10.96.0.10' })], { ...single, held: [{ ip: '10.96.0.10', by: 'kube-system/kube-dns' }] })).toEqual([
      [0, 'spec.clusterIP', expect.stringContaining('provided IP is already allocated (to kube-system/kube-dns)')],
    ]);
    // A ServiceCIDR the cluster adds widens the range.
    expect(messages([service('a', { clusterIP: '10.43.0.10' })], { ranges: ['10.96.0.0/12', '10.43.0.0/16'], nodePorts: DEFAULT_NODE_PORTS })).toEqual([]);
  });

  it('refuses a node port outside the range, or one another Service holds', () => {
    expect(
      messages([
        service('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] }),
        service('b', { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 31000 }] }),
        service('c', { type: 'NodePort', ports: [{ port: 81, nodePort: 31000 }] }),
        // A ClusterIP Service's node port is validation's to refuse, not the allocator's.
        service('d', { ports: [{ port: 80, nodePort: 31000 }] }),
      ]),
    ).toEqual([
      [
        0,
        'spec.ports.0.nodePort',
        'spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
      ],
      [2, 'spec.ports.0.nodePort', 'spec.ports[0].nodePort: Invalid value: 31000: provided port is already allocated (to Service demo/b)'],
    ]);
  });

  it('judges no family or address where no Service range is known, and still the node ports', () => {
    expect(
      messages(
        [service('a', { clusterIP: '1.2.3.4', ipFamilyPolicy: 'RequireDualStack' }), service('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 1 }] })],
        { ranges: [], nodePorts: DEFAULT_NODE_PORTS },
      ),
    ).toEqual([[1, 'spec.ports.0.nodePort', expect.stringContaining('provided port is not in the valid range')]]);
  });
});
