/**
 * MetalLB's validating webhooks (v0.16.1) on IPAddressPools and L2Advertisements, each refusal in its words: the
 * configuration's parse (admission/webhooks/metallb-config.ts), the webhooks' namespace and order
 * (admission/webhooks/metallb.ts), and Go's address parsing under them (model/go/net.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig, type MetalLBObject } from '../../admission/webhooks/metallb-config.ts';
import { parsePoolEntry, summarize } from '../../model/cluster/address-pools.ts';
import { metallbRefusals } from '../../admission/webhooks/metallb.ts';
import { ipNetString, parseGoCIDR, parseGoIP } from '../../model/go/net.ts';
import { labelSelectorError } from '../../model/scheduling/label-syntax.ts';
import { metallbAgreement, metallbCases } from '../../admission/upstream/metallb-cases.ts';

const NS = 'metallb-system';
const pool = (name: string, addresses: string[], extra: object = {}): MetalLBObject => ({
  kind: 'IPAddressPool',
  name,
  namespace: NS,
  spec: { addresses, ...extra },
});
const adv = (name: string, spec: object): MetalLBObject => ({ kind: 'L2Advertisement', name, namespace: NS, spec });
const cidrs = (text: string) => {
  const parsed = parsePoolEntry(text);
  return 'error' in parsed ? parsed.error : parsed.map(ipNetString);
};
const error = (pools: MetalLBObject[], l2Advs: MetalLBObject[] = []) => {
  const e = parseConfig({ pools, l2Advs });
  return e && `${e.object.name} ${e.path.join('.')}: ${e.message}`;
};

describe("Go's address parsing, as MetalLB calls it", () => {
  it('reads addresses and CIDRs as net.ParseIP and net.ParseCIDR do, refusing what Go refuses', () => {
    expect(ipNetString(parseGoCIDR('10.20.1.5/16')!)).toBe('10.20.0.0/16');
    expect(ipNetString(parseGoCIDR('2001:db8::1/64')!)).toBe('2001:db8::/64');
    // An IPv4 address written in IPv6 is held in 16 bytes, its network printed as IPv4 under the mask's last 32 bits.
    expect(ipNetString(parseGoCIDR('::ffff:10.0.0.0/104')!)).toBe('10.0.0.0/8');
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/', '010.0.0.0/8', 'fe80::/10%eth0', 'fe80::%eth0/10', '10.0.0.0/+8'])
      expect(parseGoCIDR(bad), bad).toBeUndefined();
    expect(parseGoIP('192.168.1.1')?.length).toBe(16);
    expect(parseGoIP('192.168.1.01')).toBeUndefined();
  });
});

describe("MetalLB's ParseCIDR (parsePoolEntry) and ipaddr's Summarize", () => {
  it('summarizes a range into the fewest CIDRs, either family', () => {
    expect(cidrs('192.168.1.240-192.168.1.249')).toEqual(['192.168.1.240/29', '192.168.1.248/31']);
    expect(cidrs('192.168.1.240 - 192.168.1.240')).toEqual(['192.168.1.240/32']);
    expect(cidrs('0.0.0.0-255.255.255.255')).toEqual(['0.0.0.0/0']);
    expect(cidrs('2001:db8::1-2001:db8::6')).toEqual(['2001:db8::1/128', '2001:db8::2/127', '2001:db8::4/127', '2001:db8::6/128']);
    expect(cidrs('10.0.0.0/8')).toEqual(['10.0.0.0/8']);
  });

  it("refuses a range whose ends do not parse or run backwards, in MetalLB's words", () => {
    expect(cidrs('192.168.1.240-249')).toBe('invalid IP range "192.168.1.240-249": invalid end IP "249"');
    expect(cidrs('x-192.168.1.1')).toBe('invalid IP range "x-192.168.1.1": invalid start IP "x"');
    expect(cidrs('192.168.1.249-192.168.1.240')).toBe(
      'invalid IP range "192.168.1.249-192.168.1.240": start IP "192.168.1.249" is after the end IP "192.168.1.240"',
    );
    expect(cidrs('192.168.1.0/24/1')).toBe('invalid CIDR "192.168.1.0/24/1"');
  });

  it('gives nothing, and no error, for a range from one family to the other (Summarize returns nil)', () => {
    expect(cidrs('10.0.0.1-2001:db8::1')).toEqual([]);
    expect(summarize(parseGoIP('2001:db8::1')!, parseGoIP('10.0.0.1')!)).toEqual([]);
  });
});

describe("MetalLB's configuration parse, pools and layer-2 advertisements", () => {
  it("admits the repository's pool and advertisement", () => {
    expect(error([pool('lan', ['192.168.1.240-192.168.1.249'])], [adv('lan', { ipAddressPools: ['lan'] })])).toBeUndefined();
  });

  it('refuses a pool with no addresses, an address that does not parse, and a CIDR that overlaps one before it', () => {
    expect(error([pool('lan', [])])).toBe('lan spec.addresses: parsing address pool lan: pool has no prefixes defined');
    expect(error([pool('lan', ['10.0.0.0/8', '10.1.0.0/33'])])).toBe(
      'lan spec.addresses.1: parsing address pool lan: invalid CIDR "10.1.0.0/33" in pool "lan": invalid CIDR "10.1.0.0/33"',
    );
    expect(error([pool('a', ['192.168.1.240-192.168.1.249']), pool('b', ['192.168.1.241/32'])])).toBe(
      'b spec.addresses.0: CIDR "192.168.1.241/32" in pool "b" overlaps with already defined CIDR "192.168.1.240/29"',
    );
    // Within one pool too, and an IPv4 network written in IPv6 is the same network.
    expect(error([pool('a', ['10.0.0.0/8', '::ffff:10.0.0.0/104'])])).toMatch(/^a spec\.addresses\.1: CIDR "10\.0\.0\.0\/8" in pool "a" overlaps/);
    expect(error([pool('a', ['10.0.0.0/8']), pool('b', ['11.0.0.0/8', '2001:db8::/32'])])).toBeUndefined();
  });

  it('refuses a namespace or selector to allocate to written twice, or a selector Kubernetes cannot build', () => {
    expect(error([pool('a', ['10.0.0.0/8'], { serviceAllocation: { namespaces: ['media', 'media'] } })])).toBe(
      'a spec.serviceAllocation.namespaces.1: parsing address pool a: duplicate definition in namespaces field',
    );
    const sel = { matchLabels: { app: 'proxy' } };
    expect(error([pool('a', ['10.0.0.0/8'], { serviceAllocation: { serviceSelectors: [sel, sel] } })])).toBe(
      'a spec.serviceAllocation.serviceSelectors.1: parsing address pool a: duplicate definition of serviceSelectors {map["app":"proxy"] []}',
    );
    expect(
      error([pool('a', ['10.0.0.0/8'], { serviceAllocation: { namespaceSelectors: [{ matchExpressions: [{ key: 'k', operator: 'in', values: ['v'] }] }] } })]),
    ).toBe(
      'a spec.serviceAllocation.namespaceSelectors.0: parsing address pool a: "in" is not a valid label selector operator\n' +
        'invalid namespace label selector &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{{k in [v]},},} in ip pool a',
    );
  });

  it('refuses an advertisement naming a pool twice, a selector twice or one that cannot be built; a pool it names need not exist', () => {
    expect(error([], [adv('lan', { ipAddressPools: ['lan', 'lan'] })])).toBe('lan spec.ipAddressPools.1: duplicate definition of ipAddressPools "lan"');
    expect(error([], [adv('lan', { ipAddressPools: ['elsewhere'] })])).toBeUndefined();
    // Values are compared sorted, as MetalLB sorts them in place first.
    const a = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b', 'a'] }] };
    const b = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] };
    expect(error([], [adv('lan', { nodeSelectors: [a, b] })])).toBe(
      'lan spec.nodeSelectors.1: duplicate definition of nodeSelectors {map[] [{"zone" "In" ["a" "b"]}]}',
    );
    expect(error([], [adv('lan', { nodeSelectors: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'a'] }] }] })])).toBe(
      'lan spec.nodeSelectors.0.matchExpressions.0.values.1: duplicate definition of match expression value in label selector "a"',
    );
    expect(error([], [adv('lan', { nodeSelectors: [{ matchLabels: { 'bad key!': 'x' } }] })])).toMatch(
      /^lan spec\.nodeSelectors\.0: key: Invalid value: "bad key!": name part must consist of .*\ninvalid label selector \{map\[bad key!:x\] \[\]\}\nfailed to parse node selector for lan$/,
    );
    expect(error([], [adv('lan', { ipAddressPoolSelectors: [{ matchExpressions: [{ key: 'k', operator: 'Exists', values: ['v'] }] }] })])).toBe(
      'lan spec.ipAddressPoolSelectors.0: values: Invalid value: []string{"v"}: values set must be empty for exists and does not exist\ninvalid label selector {map[] [{k Exists [v]}]}',
    );
  });
});

describe("MetalLB's webhooks over a sync", () => {
  it('refuses a pool or advertisement outside MetalLB’s namespace', () => {
    expect(metallbRefusals([{ ...pool('a', ['10.0.0.0/8']), namespace: 'default' }], NS)).toEqual([
      expect.objectContaining({ path: ['metadata', 'namespace'], message: 'resource must be created in metallb-system namespace' }),
    ]);
  });

  it('refuses the second of two overlapping pools and admits the first; a refused pool is not in the cluster for the next', () => {
    const refused = metallbRefusals([pool('a', ['10.0.0.0/24']), pool('b', ['10.0.0.128/25']), pool('c', ['10.0.0.128/25'])], NS);
    expect(refused.map((r) => `${r.object.name}: ${r.message}`)).toEqual([
      'b: CIDR "10.0.0.128/25" in pool "b" overlaps with already defined CIDR "10.0.0.0/24"',
      'c: CIDR "10.0.0.128/25" in pool "c" overlaps with already defined CIDR "10.0.0.0/24"',
    ]);
    expect(metallbRefusals([pool('b', ['10.0.1.0/24']), pool('a', ['10.0.0.0/24']), adv('lan', { ipAddressPools: ['a', 'b'] })], NS)).toEqual([]);
  });
});

describe("Kubernetes' LabelSelectorAsSelector errors", () => {
  it('builds what it can and says why it cannot, the operator first', () => {
    expect(labelSelectorError(undefined)).toBeUndefined();
    expect(labelSelectorError({ matchLabels: { app: 'x' }, matchExpressions: [{ key: 'k', operator: 'NotIn', values: ['a'] }] })).toBeUndefined();
    expect(labelSelectorError({ matchExpressions: [{ key: 'k', operator: 'Gt', values: ['1'] }] })).toBe('"Gt" is not a valid label selector operator');
    expect(labelSelectorError({ matchExpressions: [{ key: 'k', operator: 'In', values: [] }] })).toBe(
      "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(labelSelectorError({ matchExpressions: [{ key: '-k', operator: 'In', values: ['-v'] }] })).toMatch(
      /^\[key: Invalid value: "-k": .*, values\[0\]: Invalid value: "-v": .*\]$/,
    );
  });
});

describe("the reader of MetalLB's TestParse (upstream/metallb-cases.ts), on a table written in its form", () => {
  const types = [
    'type IPAddressPool struct {\n\tmetav1.ObjectMeta `json:"metadata,omitempty"`\n\n\tSpec IPAddressPoolSpec `json:"spec"`\n}',
    'type IPAddressPoolSpec struct {\n\tAddresses []string `json:"addresses"`\n\tAllocateTo *ServiceAllocation `json:"serviceAllocation,omitempty"`\n}',
    'type ServiceAllocation struct {\n\tNamespaces []string `json:"namespaces,omitempty"`\n}',
    'type L2Advertisement struct {\n\tmetav1.ObjectMeta `json:"metadata,omitempty"`\n\n\tSpec L2AdvertisementSpec `json:"spec,omitempty"`\n}',
    'type L2AdvertisementSpec struct {\n\tIPAddressPools []string `json:"ipAddressPools,omitempty"`\n}',
  ];
  const row = (desc: string, crs: string, want = '') => `\t\t{\n\t\t\tdesc: "${desc}",\n\t\t\tcrs: ClusterResources{\n${crs}\n\t\t\t},${want}\n\t\t},\n`;
  const pools = (...addresses: string[]) =>
    `\t\t\t\tPools: []v1beta1.IPAddressPool{\n\t\t\t\t\t{\n\t\t\t\t\t\tObjectMeta: metav1.ObjectMeta{Name: "pool1"},\n\t\t\t\t\t\tSpec: v1beta1.IPAddressPoolSpec{Addresses: []string{${addresses.map((a) => `"${a}"`).join(', ')}}, AllocateTo: &v1beta1.ServiceAllocation{Namespaces: []string{"a"}}},\n\t\t\t\t\t},\n\t\t\t\t},`;
  const source = (rows: string) =>
    `func TestParse(t *testing.T) {\n\ttests := []struct {\n\t\tdesc string\n\t\tcrs  ClusterResources\n\t\twant *Config\n\t}{\n${rows}\t}\n}\n`;
  const want = (cidr: string) =>
    `\n\t\t\twant: &Config{\n\t\t\t\tPools: &Pools{ByName: map[string]*Pool{\n\t\t\t\t\t"pool1": {\n\t\t\t\t\t\tName: "pool1",\n\t\t\t\t\t\tCIDR: []*net.IPNet{ipnet("${cidr}")},\n\t\t\t\t\t},\n\t\t\t\t}},\n\t\t\t},`;

  it('reads the rows, judges them, declines the BGP ones, and bites when the gate disagrees', () => {
    const table = metallbCases({
      configTest: source(
        row('a pool', pools('10.20.0.0/16'), want('10.20.0.0/16')) +
          row('a range backwards', pools('1.2.3.10-1.2.3.1')) +
          row('a wrong want', pools('10.20.0.0/16'), want('10.30.0.0/16')) +
          row('a peer', `\t\t\t\tPeers: []v1beta2.BGPPeer{},`),
      ),
      v1beta1: types,
    });
    expect(table.declined.map((d) => d.name)).toEqual(['a peer']);
    expect(table.cases[0]!.pools[0]).toMatchObject({ name: 'pool1', spec: { addresses: ['10.20.0.0/16'], serviceAllocation: { namespaces: ['a'] } } });
    const agreement = metallbAgreement(table);
    expect([agreement.agree, agreement.total]).toEqual([2, 3]);
    expect(JSON.stringify(agreement)).toContain('TestParse/a wrong want');
  });
});
