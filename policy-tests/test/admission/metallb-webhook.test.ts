/**
 * MetalLB's validating webhooks (v0.16.1) on IPAddressPools and L2Advertisements, each refusal in its words: the
 * configuration's parse (admission/webhooks/metallb-config.ts), the webhooks' namespace and order
 * (admission/webhooks/metallb.ts), and Go's address parsing under them (model/go/net.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig, type MetalLBObject } from '../../admission/webhooks/metallb-config.ts';
import { parsePoolEntry, summarize } from '../../model/cluster/address-pools.ts';
import { metallbVerdicts } from '../../admission/webhooks/metallb.ts';
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
    expect(metallbVerdicts([{ ...pool('a', ['10.0.0.0/8']), namespace: 'default' }], NS, 'native')).toEqual([
      expect.objectContaining({ path: ['metadata', 'namespace'], message: 'resource must be created in metallb-system namespace' }),
    ]);
  });

  it('refuses the second of two overlapping pools and admits the first; a refused pool is not in the cluster for the next', () => {
    const refused = metallbVerdicts([pool('a', ['10.0.0.0/24']), pool('b', ['10.0.0.128/25']), pool('c', ['10.0.0.128/25'])], NS, 'native');
    expect(refused.map((r) => `${r.object.name}: ${r.message}`)).toEqual([
      'b: CIDR "10.0.0.128/25" in pool "b" overlaps with already defined CIDR "10.0.0.0/24"',
      'c: CIDR "10.0.0.128/25" in pool "c" overlaps with already defined CIDR "10.0.0.0/24"',
    ]);
    expect(metallbVerdicts([pool('b', ['10.0.1.0/24']), pool('a', ['10.0.0.0/24']), adv('lan', { ipAddressPools: ['a', 'b'] })], NS, 'native')).toEqual([]);
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
      // A value's error under its index and then its key (validateLabelValue's path.Key), as NewRequirement prints it.
      /^\[key: Invalid value: "-k": .*, values\[0\]\[-k\]: Invalid value: "-v": .*\]$/,
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
    'type BGPPeer struct {\n\tmetav1.ObjectMeta `json:"metadata,omitempty"`\n\n\tSpec BGPPeerSpec `json:"spec"`\n}',
    'type BGPPeerSpec struct {\n\tMyASN uint32 `json:"myASN"`\n\tASN uint32 `json:"peerASN,omitempty"`\n}',
  ];
  const row = (desc: string, crs: string, want = '') => `\t\t{\n\t\t\tdesc: "${desc}",\n\t\t\tcrs: ClusterResources{\n${crs}\n\t\t\t},${want}\n\t\t},\n`;
  const pools = (...addresses: string[]) =>
    `\t\t\t\tPools: []v1beta1.IPAddressPool{\n\t\t\t\t\t{\n\t\t\t\t\t\tObjectMeta: metav1.ObjectMeta{Name: "pool1"},\n\t\t\t\t\t\tSpec: v1beta1.IPAddressPoolSpec{Addresses: []string{${addresses.map((a) => `"${a}"`).join(', ')}}, AllocateTo: &v1beta1.ServiceAllocation{Namespaces: []string{"a"}}},\n\t\t\t\t\t},\n\t\t\t\t},`;
  const source = (rows: string) =>
    `func TestParse(t *testing.T) {\n\ttests := []struct {\n\t\tdesc string\n\t\tcrs  ClusterResources\n\t\twant *Config\n\t}{\n${rows}\t}\n}\n`;
  const want = (cidr: string) =>
    `\n\t\t\twant: &Config{\n\t\t\t\tPools: &Pools{ByName: map[string]*Pool{\n\t\t\t\t\t"pool1": {\n\t\t\t\t\t\tName: "pool1",\n\t\t\t\t\t\tCIDR: []*net.IPNet{ipnet("${cidr}")},\n\t\t\t\t\t},\n\t\t\t\t}},\n\t\t\t},`;

  it('reads the rows of every kind, judges them, and bites when the gate disagrees', () => {
    const table = metallbCases({
      configTest: source(
        row('a pool', pools('10.20.0.0/16'), want('10.20.0.0/16')) +
          row('a range backwards', pools('1.2.3.10-1.2.3.1')) +
          row('a wrong want', pools('10.20.0.0/16'), want('10.30.0.0/16')) +
          row('a peer without its own ASN', `\t\t\t\tPeers: []v1beta2.BGPPeer{{Spec: v1beta2.BGPPeerSpec{ASN: uint32(64512)}}},`),
      ),
      types,
    });
    expect(table.cases.map((c) => c.name)).toEqual(['a pool', 'a range backwards', 'a wrong want', 'a peer without its own ASN']);
    expect(table.cases[3]!.resources.peers).toEqual([expect.objectContaining({ kind: 'BGPPeer', spec: { peerASN: 64512 } })]);
    expect(table.cases[0]!.resources.pools[0]).toMatchObject({
      name: 'pool1',
      spec: { addresses: ['10.20.0.0/16'], serviceAllocation: { namespaces: ['a'] } },
    });
    const agreement = metallbAgreement(table);
    expect([agreement.agree, agreement.total]).toEqual([3, 4]);
    expect(JSON.stringify(agreement)).toContain('TestParse/a wrong want');
  });
});

describe("MetalLB's BGP kinds, in the native mode a lab without FRR runs", () => {
  const peer = (name: string, spec: object): MetalLBObject => ({
    kind: 'BGPPeer',
    name,
    namespace: NS,
    spec: { myASN: 64512, peerASN: 64513, peerAddress: '192.168.1.1', ...spec },
  });
  const bgpAdv = (name: string, spec: object): MetalLBObject => ({ kind: 'BGPAdvertisement', name, namespace: NS, spec });
  const verdicts = (objects: MetalLBObject[]) =>
    metallbVerdicts(objects, NS, 'native').map((v) => `${v.warning ? 'warns' : 'refuses'} ${v.object.name} ${v.path.join('.')}: ${v.message}`);

  it('admits a plain peer and advertisement, and refuses what only FRR reads', () => {
    expect(verdicts([pool('lan', ['192.168.1.240/29']), peer('router', {}), bgpAdv('all', {})])).toEqual([]);
    expect(verdicts([peer('router', { keepaliveTime: '30s' })])).toEqual([
      'refuses router spec.keepaliveTime: peer 192.168.1.1 has keepalive-time set on native bgp mode',
    ]);
    expect(verdicts([pool('v6', ['2001:db8::/120']), bgpAdv('all', {})])).toEqual([
      'refuses all : pool "v6" has ipv6 CIDR 2001:db8::/120, native bgp mode does not support ipv6',
    ]);
    expect(verdicts([bgpAdv('all', { communities: ['large:1:2:3'] })])).toEqual([
      'refuses all spec.communities.0: native BGP mode only supports legacy communities, BGP advertisement "all" has non legacy community "large:1:2:3"',
    ]);
  });

  it("refuses a peer's missing ASN and bad timers; warns of disableMP and parses no further", () => {
    expect(verdicts([peer('a', { myASN: 0 })])).toEqual(['refuses a spec.myASN: parsing peer a missing local ASN']);
    expect(verdicts([peer('a', { holdTime: '2s' })])).toEqual([
      'refuses a spec.holdTime: parsing peer a invalid BGPPeer timers: invalid hold time "2s": must be 0 or >=3s',
    ]);
    // The password Secret is cleared before the webhook parses (it may not exist yet): two sources are the controller's to refuse.
    expect(verdicts([peer('a', { password: 'x', passwordSecret: { name: 's' } })])).toEqual([]);
    expect(verdicts([peer('a', { disableMP: true, myASN: 0 })])).toEqual([
      "warns a spec.disableMP: disable mp is deprecated and has no effect since it's the default behavior now",
    ]);
  });

  it('refuses an advertisement whose aggregation is shorter than its pool, or whose community does not parse', () => {
    expect(verdicts([pool('lan', ['10.0.0.0/24']), bgpAdv('agg', { aggregationLength: 16 })])).toEqual([
      'refuses agg spec.aggregationLength: invalid aggregation length 16: prefix 24 in this pool is more specific than the aggregation length for addresses 10.0.0.0/24',
    ]);
    expect(verdicts([bgpAdv('c', { communities: ['65536:1'] })])[0]).toMatch(
      /^refuses c spec\.communities\.0: invalid community value: invalid section "65536"/,
    );
    // An alias the webhook cannot know yet is cleared before it parses (resetTransientErrorsFields).
    expect(verdicts([bgpAdv('c', { communities: ['no-export'] })])).toEqual([]);
  });

  it('refuses a community CR whose alias repeats, and judges a BFD profile by its namespace alone', () => {
    const community = (name: string, communities: object[]): MetalLBObject => ({ kind: 'Community', name, namespace: NS, spec: { communities } });
    expect(
      verdicts([
        community('c', [
          { name: 'a', value: '1:1' },
          { name: 'a', value: '1:2' },
        ]),
      ]),
    ).toEqual(['refuses c spec.communities.1.name: duplicate definition of community "a"']);
    const bfd: MetalLBObject = { kind: 'BFDProfile', name: 'fast', namespace: NS, spec: { receiveInterval: 1 } };
    expect(verdicts([bfd])).toEqual([]);
    expect(verdicts([{ ...bfd, namespace: 'default' }])).toEqual(['refuses fast metadata.namespace: resource must be created in metallb-system namespace']);
  });
});

describe("MetalLB's controller over what the webhooks admitted", () => {
  it('refuses what the webhooks let through for later: a BFD profile in the native mode, a peer naming a profile that is not there', () => {
    const bfd: MetalLBObject = { kind: 'BFDProfile', name: 'fast', namespace: NS, spec: {} };
    const withProfile: MetalLBObject = {
      kind: 'BGPPeer',
      name: 'router',
      namespace: NS,
      spec: { myASN: 1, peerASN: 2, peerAddress: '10.0.0.1', bfdProfile: 'slow' },
    };
    expect(parseConfig({ pools: [], l2Advs: [], peers: [withProfile], bfdProfiles: [bfd] })).toMatchObject({
      object: withProfile,
      path: ['spec', 'bfdProfile'],
      message: 'peer router referencing non existing bfd profile slow',
    });
    expect(metallbVerdicts([withProfile], NS, 'native')).toEqual([]);
    const twoPasswords: MetalLBObject = {
      ...withProfile,
      spec: { myASN: 1, peerASN: 2, peerAddress: '10.0.0.1', password: 'x', passwordSecret: { name: 's' } },
    };
    expect(parseConfig({ pools: [], l2Advs: [], peers: [twoPasswords] })?.message).toBe(
      'parsing peer router can not have both password and secret ref set in peer config "metallb-system"/"router"',
    );
  });
});

describe("MetalLB in an FRR mode (the chart's default, frr-k8s)", () => {
  const peer = (name: string, spec: object): MetalLBObject => ({ kind: 'BGPPeer', name, namespace: NS, spec: { myASN: 64512, peerASN: 64513, ...spec } });
  it('refuses two peers on one node with different router IDs, or the same peer twice; admits what native mode refuses', () => {
    const frr = (objects: MetalLBObject[]) => metallbVerdicts(objects, NS, 'frr-k8s').map((v) => `${v.object.name} ${v.path.join('.')}: ${v.message}`);
    expect(frr([peer('a', { peerAddress: '10.0.0.1', routerID: '10.0.0.9' }), peer('b', { peerAddress: '10.0.0.2' })])).toEqual([
      'b spec.routerID: peer  has RouterID different from 10.0.0.9, in FRR mode peers selecting the same node must all have the same RouterID',
    ]);
    expect(frr([peer('a', { peerAddress: '10.0.0.1' }), peer('b', { peerAddress: '10.0.0.1' })])).toEqual([
      "b spec.peerAddress: peer 10.0.0.1 already exists, FRR mode doesn't support duplicate BGPPeers selecting the same node",
    ]);
    expect(frr([peer('a', { peerAddress: '10.0.0.1', keepaliveTime: '30s' })])).toEqual([]);
  });
});
