/**
 * MetalLB's reading of its BGP kinds (v0.16.1, internal/config/config.go and validation.go; internal/bgp/community):
 * communities (`community.New`, `communitiesFromCrs`), BFD profiles (`bfdProfileFromCR`), peers (`peerFromCR`,
 * `parseTimers`, the password Secret), BGP advertisements (`bgpAdvertisementFromCR`, `validateBGPAdvPerPool` and the
 * local preference two advertisements of one pool may give); what each BGP mode refuses is metallb-modes.ts'. Each
 * throws MetalLB's first error as a Refused, at the field it is about.
 */
import { selectorMatches } from '../../model/core/label-selector.ts';
import { goDurationMs } from '../../model/core/time.ts';
import { parseGoIP, to4, maskOnes, type GoIPNet } from '../../model/go/net.ts';
import { labelSelectorError } from '../../model/scheduling/label-syntax.ts';
import { blame, duplicate, duplicateSelectors, list, parses, plain, Refused, selectorText, strings, type MetalLBObject } from './metallb-selectors.ts';

type Obj = Record<string, any>;

/** A BGP community as MetalLB holds it: its text, and whether it is a legacy (16:16) one. */
export interface Community {
  value: string;
  legacy: boolean;
}

/** strconv.ParseUint(s, 10, bits)'s error, as Go prints it, or undefined. */
function parseUintError(s: string, bits: number): string | undefined {
  if (!/^[0-9]+$/.test(s)) return `strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`;
  return BigInt(s) >= 1n << BigInt(bits) ? `strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range` : undefined;
}

/** community.New: a legacy `a:b` of two uint16s or a `large:a:b:c` of three uint32s; `format` marks a text of neither shape. */
export function parseCommunity(c: string): Community | { error: string; format: boolean } {
  const fs = c.split(':');
  const section = (parts: string[], bits: number) => {
    for (const part of parts) {
      const e = parseUintError(part, bits);
      if (e)
        return {
          error: `invalid community value: invalid section ${JSON.stringify(part)} of community ${JSON.stringify(c)}, err: ${JSON.stringify(e)}`,
          format: false,
        };
    }
    return undefined;
  };
  if (fs.length === 2) return section(fs, 16) ?? { value: fs.map((f) => String(Number(f))).join(':'), legacy: true };
  if (fs.length === 4) {
    if (fs[0] !== 'large')
      return {
        error: `invalid community value: invalid marker for large community, expected community to be of format large:<uint32>:<uint32>:<uint32> but got ${JSON.stringify(c)} instead`,
        format: false,
      };
    return (
      section(fs.slice(1), 32) ?? {
        value: fs
          .slice(1)
          .map((f) => String(Number(f)))
          .join(':'),
        legacy: false,
      }
    );
  }
  return { error: `invalid community format: ${c}`, format: true };
}

/** communitiesFromCrs: every alias of every Community, each value parsed, no alias twice. */
export function communitiesFrom(crs: readonly MetalLBObject[]): Map<string, Community> {
  const aliases = new Map<string, Community>();
  for (const cr of crs)
    blame(cr, () =>
      list(cr.spec.communities).forEach((alias, i) => {
        const name = String(alias?.name ?? '');
        const parsed = parseCommunity(String(alias?.value ?? ''));
        if ('error' in parsed) throw new Refused(['spec', 'communities', i, 'value'], `parsing community ${JSON.stringify(name)}: ${parsed.error}`);
        if (aliases.has(name)) throw new Refused(['spec', 'communities', i, 'name'], `duplicate definition of community ${JSON.stringify(name)}`);
        aliases.set(name, parsed);
      }),
    );
  return aliases;
}

/** bfdIntFromConfig over each of a profile's bounded fields (bfdProfileFromCR). */
export function checkBFDProfile(name: string, spec: Obj): void {
  if (name === '') throw new Refused(['metadata', 'name'], 'missing bfd profile name');
  const bounds: [string, number, number, string][] = [
    ['detectMultiplier', 2, 255, 'detect multiplier'],
    ['receiveInterval', 10, 60000, 'receive interval'],
    ['transmitInterval', 10, 60000, 'transmit interval'],
    ['minimumTtl', 1, 254, 'minimum ttl'],
    ['echoInterval', 10, 60000, 'echo interval'],
  ];
  for (const [field, min, max, what] of bounds) {
    const v = spec[field];
    if (v === undefined || v === null) continue;
    if (Number(v) < min || Number(v) > max) throw new Refused(['spec', field], `invalid value ${v}, must be in ${min}-${max} range\ninvalid ${what} value`);
  }
}

/** metav1.Duration's String(), for a timer's error. */
const durationText = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : '%!q(<nil>)');

/** parseTimers: a hold time of 0 or at least 3s, a keepalive no longer than it (each derived from the other where missing). */
function checkTimers(spec: Obj): void {
  const [ht, ka] = [spec.holdTime, spec.keepaliveTime];
  if ((ht === undefined || ht === null) && (ka === undefined || ka === null)) return;
  const ms = (v: unknown) => (typeof v === 'string' ? (goDurationMs(v) ?? 0) : 0);
  const hold = ht !== undefined && ht !== null ? ms(ht) : ms(ka) * 3;
  const keepalive = ka !== undefined && ka !== null ? ms(ka) : ms(ht) / 3;
  const rounded = Math.trunc(hold / 1000);
  if (rounded !== 0 && rounded < 3) throw new Refused(['spec', 'holdTime'], `invalid BGPPeer timers: invalid hold time ${durationText(ht)}: must be 0 or >=3s`);
  if (keepalive > hold)
    throw new Refused(
      ['spec', 'keepaliveTime'],
      `invalid BGPPeer timers: invalid keepaliveTime ${durationText(ka)}, must be lower than holdTime ${durationText(ht)}`,
    );
}

/** A Secret as the peers' password references read it: its type and its data's keys. */
export interface PeerSecret {
  type: string;
  keys: readonly string[];
}

/** peerFromCR: what a peer must say, every address Go parses, its node selectors, one source of its password. */
export function checkPeer(name: string, namespace: string, spec: Obj, secrets?: ReadonlyMap<string, PeerSecret>): void {
  const at = (field: string) => ['spec', field];
  const [asn, myASN, dynamic] = [Number(spec.peerASN ?? 0), Number(spec.myASN ?? 0), String(spec.dynamicASN ?? '')];
  if (myASN === 0) throw new Refused(at('myASN'), 'missing local ASN');
  if (asn === 0 && dynamic === '') throw new Refused(at('peerASN'), 'missing peer ASN and dynamicASN');
  if (asn !== 0 && dynamic !== '') throw new Refused(at('dynamicASN'), 'both peer ASN and dynamicASN specified');
  if (dynamic !== '' && dynamic !== 'internal' && dynamic !== 'external') throw new Refused(at('dynamicASN'), `invalid dynamicASN ${dynamic}`);
  if (asn === myASN && spec.ebgpMultiHop === true) throw new Refused(at('ebgpMultiHop'), 'invalid ebgp-multihop parameter set for an ibgp peer');
  const [address, iface] = [String(spec.peerAddress ?? ''), String(spec.interface ?? '')];
  if (address === '' && iface === '') throw new Refused(at('peerAddress'), 'peer has no Address or Interface specified');
  if (address !== '' && iface !== '') throw new Refused(at('interface'), 'peer has both Address and Interface specified');
  checkTimers(spec);
  if (address !== '' && !parseGoIP(address)) throw new Refused(at('peerAddress'), `invalid BGPPeer address ${JSON.stringify(address)}`);
  const routerID = String(spec.routerID ?? '');
  if (routerID !== '' && !parseGoIP(routerID)) throw new Refused(at('routerID'), `invalid router ID ${JSON.stringify(routerID)}`);
  const source = String(spec.sourceAddress ?? '');
  if (source !== '' && !parseGoIP(source)) throw new Refused(at('sourceAddress'), `invalid source IP ${JSON.stringify(source)}`);
  duplicateSelectors(list(spec.nodeSelectors), 'nodeSelectors', at('nodeSelectors'));
  list(spec.nodeSelectors).forEach((s, i) => parses(s, ['spec', 'nodeSelectors', i], `failed to convert peer ${name} node selector`));
  const secretName = String(spec.passwordSecret?.name ?? '');
  if (String(spec.password ?? '') !== '' && secretName !== '')
    throw new Refused(at('password'), `can not have both password and secret ref set in peer config ${JSON.stringify(namespace)}/${JSON.stringify(name)}`);
  if (secretName === '' || !secrets) return;
  const secret = secrets.get(secretName);
  const why = !secret
    ? `secret ref not found for peer config ${JSON.stringify(namespace)}/${JSON.stringify(name)}`
    : secret.type !== 'kubernetes.io/basic-auth'
      ? `secret type mismatch on ${JSON.stringify(namespace)}/${JSON.stringify(secretName)}, type "kubernetes.io/basic-auth" is expected `
      : !secret.keys.includes('password')
        ? `password not specified in the secret ${JSON.stringify(namespace)}/${JSON.stringify(secretName)}`
        : undefined;
  if (why) throw new Refused(at('passwordSecret'), `${why}\nfailed to parse peer ${name} password secret`);
}

/** A BGP advertisement as MetalLB holds it, for the checks of each pool it applies to. */
export interface BGPAdvertisement {
  name: string;
  aggregationLength: number;
  aggregationLengthV6: number;
  localPref: number;
  peers: readonly string[];
  nodes: ReadonlySet<string>;
  hasServiceSelectors: boolean;
}

/** bgpAdvertisementFromCR: its lists without repeats, its lengths, its communities (an alias, or a value), its selectors. */
export function bgpAdvertisementFrom(
  name: string,
  spec: Obj,
  aliases: ReadonlyMap<string, Community>,
  nodes: readonly { name: string; labels: Obj }[],
): BGPAdvertisement {
  duplicate(strings(spec.ipAddressPools), 'ipAddressPools', ['spec', 'ipAddressPools']);
  duplicate(strings(spec.communities), 'community', ['spec', 'communities']);
  duplicate(strings(spec.peers), 'peers', ['spec', 'peers']);
  duplicateSelectors(list(spec.ipAddressPoolSelectors), 'ipAddressPoolSelectors', ['spec', 'ipAddressPoolSelectors']);
  duplicateSelectors(list(spec.nodeSelectors), 'nodeSelectors', ['spec', 'nodeSelectors']);
  duplicateSelectors(list(spec.serviceSelectors), 'serviceSelectors', ['spec', 'serviceSelectors']);
  const selectsServices = list(spec.serviceSelectors).length > 0;
  const [v4, v6] = [spec.aggregationLength, spec.aggregationLengthV6];
  if (selectsServices && v4 !== undefined && v4 !== null && Number(v4) !== 32)
    throw new Refused(['spec', 'aggregationLength'], `serviceSelectors and aggregationLength are mutually exclusive, both cannot be set in ${name}`);
  if (selectsServices && v6 !== undefined && v6 !== null && Number(v6) !== 128)
    throw new Refused(['spec', 'aggregationLengthV6'], `serviceSelectors and aggregationLengthV6 are mutually exclusive, both cannot be set in ${name}`);
  const adv = {
    name,
    aggregationLength: v4 === undefined || v4 === null ? 32 : Number(v4),
    aggregationLengthV6: v6 === undefined || v6 === null ? 128 : Number(v6),
    localPref: Number(spec.localPref ?? 0),
    peers: strings(spec.peers),
    hasServiceSelectors: selectsServices,
  };
  if (adv.aggregationLength > 32) throw new Refused(['spec', 'aggregationLength'], `invalid aggregation length %!q(int=${adv.aggregationLength}) for IPv4`);
  if (adv.aggregationLengthV6 > 128)
    throw new Refused(['spec', 'aggregationLengthV6'], `invalid aggregation length %!q(int=${adv.aggregationLengthV6}) for IPv6`);
  strings(spec.communities).forEach((c, i) => {
    if (aliases.has(c)) return;
    const parsed = parseCommunity(c);
    if ('error' in parsed) throw new Refused(['spec', 'communities', i], `${parsed.error}\ninvalid community ${JSON.stringify(c)} in BGP advertisement`);
  });
  const nodeSelectors = list(spec.nodeSelectors);
  nodeSelectors.forEach((s, i) =>
    parses(s, ['spec', 'nodeSelectors', i], `invalid label selector ${selectorText(s, plain)}`, `failed to parse node selector for ${name}`),
  );
  list(spec.serviceSelectors).forEach((s, i) => {
    const error = labelSelectorError(s);
    if (error)
      throw new Refused(
        ['spec', 'serviceSelectors', i],
        `invalid service selector ${selectorText(s, plain)}: ${error}\nfailed to parse service selector for ${name}`,
      );
  });
  const chosen = nodeSelectors.length === 0 ? nodes : nodes.filter((n) => nodeSelectors.some((s) => selectorMatches(s, n.labels)));
  return { ...adv, nodes: new Set(chosen.map((n) => n.name)) };
}

/** ipfamily.ForCIDR: a CIDR's family, by its address. */
const familyOf = (n: GoIPNet) => (to4(n.ip) ? 4 : 6);

/** validateBGPAdvPerPool: each address entry's CIDRs no more specific than the aggregation, and one local preference per kind of update. */
export function checkAdvertisementOnPool(
  adv: BGPAdvertisement,
  cidrsByEntry: ReadonlyMap<string, readonly GoIPNet[]>,
  attached: readonly BGPAdvertisement[],
): void {
  for (const [entry, cidrs] of cidrsByEntry) {
    if (cidrs.length === 0) continue;
    const maxLength = familyOf(cidrs[0]!) === 4 ? adv.aggregationLength : adv.aggregationLengthV6;
    const lowest = Math.min(...cidrs.map((c) => maskOnes(c.mask)));
    if (maxLength < lowest)
      throw new Refused(
        ['spec', 'aggregationLength'],
        `invalid aggregation length ${adv.aggregationLength}: prefix ${lowest} in this pool is more specific than the aggregation length for addresses ${entry}`,
      );
  }
  if (adv.hasServiceSelectors) return;
  const families = new Set([...cidrsByEntry.values()].filter((c) => c.length > 0).map((c) => familyOf(c[0]!)));
  const aggregationDiffers = (other: BGPAdvertisement) => {
    if (families.size === 0) return true;
    if (other.aggregationLength !== adv.aggregationLength && !families.has(6)) return true;
    if (other.aggregationLengthV6 !== adv.aggregationLengthV6 && !families.has(4)) return true;
    return other.aggregationLength !== adv.aggregationLength && other.aggregationLengthV6 !== adv.aggregationLengthV6;
  };
  const compatible = (other: BGPAdvertisement) =>
    other.localPref === adv.localPref ||
    aggregationDiffers(other) ||
    (adv.peers.length > 0 && other.peers.length > 0 && !adv.peers.some((p) => other.peers.includes(p))) ||
    ![...adv.nodes].some((n) => other.nodes.has(n));
  const clash = attached.find((other) => !other.hasServiceSelectors && !compatible(other));
  if (clash)
    throw new Refused(
      ['spec', 'localPref'],
      `invalid local preference ${adv.localPref}: local preferernce ${clash.localPref} was already set for the same type of BGP update. Check existing BGP advertisements with common pools and aggregation lengths`,
    );
}
