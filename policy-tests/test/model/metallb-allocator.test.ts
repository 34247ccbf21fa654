/**
 * MetalLB's allocator (v0.16.1, controller/service.go's allocateIPs and internal/allocator) as the model ports it:
 * which address a LoadBalancer Service gets, and why it gets none.
 */
import { describe, expect, it } from 'vitest';
import { allocatorPool, MetalLBAllocator, type LBService } from '../../model/cluster/metallb-allocator.ts';
import { metallbAllocatorAgreement, metallbAllocatorCases } from '../../admission/upstream/metallb-allocator-cases.ts';

const NAMESPACES = new Map<string, Record<string, string>>([
  ['ingress', { 'kubernetes.io/metadata.name': 'ingress', tier: 'edge' }],
  ['media', { 'kubernetes.io/metadata.name': 'media' }],
]);
const pool = (name: string, spec: Record<string, unknown>) => allocatorPool({ name, spec }, NAMESPACES);
let n = 0;
const svc = (annotations: Record<string, string> = {}, more: Partial<LBService> = {}): LBService => ({
  key: `ingress/s${n++}`,
  namespace: 'ingress',
  labels: {},
  annotations,
  spec: { type: 'LoadBalancer', ports: [{ port: 443, protocol: 'TCP' }], selector: { app: 'proxy' } },
  family: 'IPv4',
  ...more,
});
const outcome = (a: ReturnType<MetalLBAllocator['allocate']>) => ('error' in a ? `refused: ${a.error}` : `${a.pool} ${a.ips.join(',')}`);

describe("MetalLB's allocator", () => {
  it("gives the repository's two proxies the addresses they ask for, and an unpinned Service the first free one", () => {
    const a = new MetalLBAllocator([pool('lan', { addresses: ['192.168.1.240-192.168.1.249'] })]);
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '192.168.1.240' })))).toBe('lan 192.168.1.240');
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '192.168.1.241' })))).toBe('lan 192.168.1.241');
    expect(outcome(a.allocate(svc()))).toBe('lan 192.168.1.242');
  });

  it('refuses an address no pool holds, one held on the same port without a shared key, and two ways of asking', () => {
    const a = new MetalLBAllocator([pool('lan', { addresses: ['192.168.1.240/30'] })]);
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '192.168.1.250' })))).toBe('refused: ["192.168.1.250"] is not allowed in config');
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '192.168.1.240' })))).toBe('lan 192.168.1.240');
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '192.168.1.240' })))).toBe(
      'refused: can\'t change sharing key for "ingress/s' + (n - 1) + '", address also in use by ingress/s' + (n - 2),
    );
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '192.168.1.241' }, { spec: { loadBalancerIP: '192.168.1.241' } })))).toBe(
      'refused: service can not have both metallb.io/loadBalancerIPs and svc.Spec.LoadBalancerIP',
    );
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '192.168.1.0241' })))).toBe('refused: invalid metallb.io/loadBalancerIPs: "192.168.1.0241"');
  });

  it('shares an address under one key on other ports, and not on the same port', () => {
    const a = new MetalLBAllocator([pool('lan', { addresses: ['10.0.0.0/30'] })]);
    const shared = { 'metallb.io/loadBalancerIPs': '10.0.0.1', 'metallb.io/allow-shared-ip': 'dns' };
    expect(outcome(a.allocate(svc(shared, { spec: { ports: [{ port: 53, protocol: 'UDP' }] } })))).toBe('lan 10.0.0.1');
    expect(outcome(a.allocate(svc(shared, { spec: { ports: [{ port: 53 }] } })))).toBe('lan 10.0.0.1');
    expect(outcome(a.allocate(svc(shared, { spec: { ports: [{ port: 53 }] } })))).toBe('refused: port TCP/53 is already in use on "10.0.0.1"');
  });

  it('takes from the pool a Service names, refusing a pool that does not exist or has nothing free', () => {
    const a = new MetalLBAllocator([pool('lan', { addresses: ['10.0.0.1/32'] }), pool('private', { addresses: ['10.0.1.0/31'], autoAssign: false })]);
    expect(outcome(a.allocate(svc({ 'metallb.io/address-pool': 'lan-private' })))).toBe('refused: unknown pool "lan-private"');
    expect(outcome(a.allocate(svc({ 'metallb.io/address-pool': 'private' })))).toBe('private 10.0.1.0');
    expect(outcome(a.allocate(svc({ 'metallb.io/address-pool': 'lan' })))).toBe('lan 10.0.0.1');
    expect(outcome(a.allocate(svc({ 'metallb.io/address-pool': 'lan' })))).toBe('refused: no available IPs in pool lan');
    // An address asked for from another pool than the one named.
    expect(outcome(a.allocate(svc({ 'metallb.io/address-pool': 'lan', 'metallb.io/loadBalancerIPs': '10.0.1.1' })))).toBe(
      'refused: requested loadBalancer IP(s) ["10.0.1.1"] is not compatible with requested address pool lan',
    );
  });

  it('auto-assigns only from pools that auto-assign, skips the buggy .0 and .255 where asked, and runs out', () => {
    const a = new MetalLBAllocator([
      pool('manual', { addresses: ['10.9.0.0/24'], autoAssign: false }),
      pool('lan', { addresses: ['10.0.0.255-10.0.1.0'], avoidBuggyIPs: true }),
    ]);
    expect(outcome(a.allocate(svc()))).toBe('refused: no available IPs');
    const b = new MetalLBAllocator([pool('lan', { addresses: ['10.0.0.254-10.0.1.1'], avoidBuggyIPs: true })]);
    expect([outcome(b.allocate(svc())), outcome(b.allocate(svc())), outcome(b.allocate(svc()))]).toEqual([
      'lan 10.0.0.254',
      'lan 10.0.1.1',
      'refused: no available IPs',
    ]);
  });

  it('serves a pool pinned to namespaces or labels only to those, by priority, and before the open pools', () => {
    const a = new MetalLBAllocator([
      pool('open', { addresses: ['10.0.0.0/24'] }),
      pool('edge', { addresses: ['10.1.0.0/24'], serviceAllocation: { priority: 2, namespaceSelectors: [{ matchLabels: { tier: 'edge' } }] } }),
      pool('first', { addresses: ['10.2.0.0/24'], serviceAllocation: { priority: 1, namespaces: ['ingress'] } }),
      pool('labelled', { addresses: ['10.3.0.0/24'], serviceAllocation: { serviceSelectors: [{ matchLabels: { team: 'media' } }] } }),
    ]);
    expect(outcome(a.allocate(svc()))).toBe('first 10.2.0.0');
    expect(outcome(a.allocate(svc({}, { namespace: 'media', key: 'media/x' })))).toBe('open 10.0.0.0');
    expect(outcome(a.allocate(svc({}, { namespace: 'media', key: 'media/y', labels: { team: 'media' } })))).toBe('labelled 10.3.0.0');
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '10.1.0.7' }, { namespace: 'media', key: 'media/z' })))).toBe(
      'refused: pool edge not compatible for ip assignment',
    );
  });

  it('refuses an address of the other family', () => {
    const a = new MetalLBAllocator([pool('v6', { addresses: ['2001:db8::/64'] })]);
    expect(outcome(a.allocate(svc({ 'metallb.io/loadBalancerIPs': '2001:db8::5' })))).toBe(
      'refused: requested loadBalancer IP(s) ["2001:db8::5"] does not match the ipFamily of the service',
    );
    expect(outcome(a.allocate(svc()))).toBe('refused: no available IPs');
    expect(outcome(a.allocate(svc({}, { family: 'IPv6' })))).toBe('v6 2001:db8::');
  });
});

describe("the reader of MetalLB's allocator tests (upstream/metallb-allocator-cases.ts), on tables written in their form", () => {
  const source = [
    'var (\n\tsvc = &v1.Service{\n\t\tObjectMeta: metav1.ObjectMeta{\n\t\t\tName: "test-lb-service",\n\t\t},\n\t}\n)\n',
    'func TestAssignment(t *testing.T) {\n\talloc := New(noopCallback)\n\tmakePools := func() *config.Pools {\n\t\treturn &config.Pools{ByName: map[string]*config.Pool{\n',
    '\t\t\t"test": {\n\t\t\t\tName:       "test",\n\t\t\t\tAutoAssign: true,\n\t\t\t\tCIDR: []*net.IPNet{\n\t\t\t\t\tipnet("1.2.3.4/31"),\n\t\t\t\t},\n\t\t\t},\n',
    '\t\t\t"pinned": {\n\t\t\t\tName: "pinned",\n\t\t\t\tServiceAllocations: &config.ServiceAllocation{Namespaces: sets.New("ns1")},\n\t\t\t\tCIDR: []*net.IPNet{ipnet("1.2.5.0/24")},\n\t\t\t},\n',
    '\t\t}}\n\t}\n\ttests := []struct {\n\t\tdesc string\n\t\tsvcKey string\n\t\tsvc *v1.Service\n\t\tips []string\n\t\tports []Port\n\t\tsharingKey string\n\t\twantErr bool\n\t}{\n',
    '\t\t{\n\t\t\tdesc: "assign s1",\n\t\t\tsvcKey: "s1",\n\t\t\tsvc: svc,\n\t\t\tips: []string{"1.2.3.4"},\n\t\t},\n',
    '\t\t{\n\t\t\tdesc: "s2 can\'t grab s1\'s IP",\n\t\t\tsvcKey: "s2",\n\t\t\tsvc: svc,\n\t\t\tips: []string{"1.2.3.4"},\n\t\t\twantErr: true,\n\t\t},\n',
    '\t\t{\n\t\t\tdesc: "a wrong expectation",\n\t\t\tsvcKey: "s3",\n\t\t\tsvc: &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1"}},\n\t\t\tips: []string{"1.2.5.9"},\n\t\t\twantErr: true,\n\t\t},\n',
    '\t\t{\n\t\t\tdesc: "s1 frees its IP",\n\t\t\tsvcKey: "s1",\n\t\t\tsvc: svc,\n\t\t},\n\t}\n}\n',
  ].join('');

  it('runs the steps in order on one allocator, and bites when the gate disagrees', () => {
    const table = metallbAllocatorCases(source);
    expect(table.unread.map((u) => u.name)).toEqual(['TestBuggyIPs']);
    const agreement = metallbAllocatorAgreement(table);
    expect([agreement.agree, agreement.total]).toEqual([3, 5]);
    expect(agreement.disagreements.map((d) => d.file)).toEqual(['TestAssignment/a wrong expectation', 'TestBuggyIPs']);
  });
});
