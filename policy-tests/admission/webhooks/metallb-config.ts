/**
 * MetalLB's reading of its configuration (v0.16.1, internal/config/config.go: `For`), for the kinds a layer-2 lab
 * writes: the IPAddressPools (`addressPoolFromCR`, `ParseCIDR` on the model floor, the overlap of every pool's CIDRs with those before
 * it) and the L2Advertisements (`l2AdvertisementFromCR`, the pool selectors). Its webhooks refuse what this refuses
 * (metallb.ts). Each error is the first Go returns, as its text reads (a selector printed as Go's `%v`, `%q` or
 * `LabelSelector.String()` prints it where each is used), with the object and the field it is about.
 */
import { labelSelectorError } from '../../model/scheduling/label-syntax.ts';
import { parsePoolEntry } from '../../model/cluster/address-pools.ts';
import { ipEqual, ipNetContains, ipNetString, maskOnes, type GoIPNet } from '../../model/go/net.ts';
import type { Path } from '../../model/core/positions.ts';

type Obj = Record<string, any>;

/** A pool or an advertisement as the webhook decodes it. */
export interface MetalLBObject {
  kind: 'IPAddressPool' | 'L2Advertisement';
  name: string;
  namespace?: string;
  labels?: Readonly<Record<string, string>>;
  spec: Obj;
}

/** What the configuration's parse refuses, and where. */
export interface ConfigError {
  object: MetalLBObject;
  path: Path;
  message: string;
}

class Refused extends Error {
  readonly path: Path;
  constructor(path: Path, message: string) {
    super(message);
    this.path = path;
  }
}

const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).map((s) => (typeof s === 'string' ? s : ''));

/** cidrContainsCIDR, both ways. */
function cidrsOverlap(a: GoIPNet, b: GoIPNet): boolean {
  const contains = (outer: GoIPNet, inner: GoIPNet) => {
    const [ol, il] = [maskOnes(outer.mask), maskOnes(inner.mask)];
    return (ol === il && ipEqual(outer.ip, inner.ip)) || (ol < il && ipNetContains(outer, inner.ip));
  };
  return contains(a, b) || contains(b, a);
}

type Format = (s: string) => string;
const plain: Format = (v) => v;
const quoted: Format = (v) => JSON.stringify(v);

/** A match expression as Go's `%v` (plain) or `%q` (quoted) prints the struct: `{key In [a b]}`. */
function requirementText(e: Obj, f: Format): string {
  return `{${f(String(e?.key ?? ''))} ${f(String(e?.operator ?? ''))} [${strings(e?.values).map(f).join(' ')}]}`;
}

/** A selector as Go's `%v` or `%q` prints the struct value: `{map[k:v] [{key In [a b]}]}`. */
function selectorText(selector: Obj | undefined, f: Format): string {
  const labels = (selector?.matchLabels ?? {}) as Record<string, unknown>;
  const ml = Object.keys(labels)
    .sort()
    .map((k) => `${f(k)}:${f(String(labels[k]))}`)
    .join(' ');
  return `{map[${ml}] [${list(selector?.matchExpressions)
    .map((e: Obj) => requirementText(e, f))
    .join(' ')}]}`;
}

/** The API's `LabelSelector.String()`, which MetalLB compares selectors by, and `%v` prints a pointer to one with. */
function selectorString(selector: Obj | undefined): string {
  const labels = (selector?.matchLabels ?? {}) as Record<string, unknown>;
  const ml = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${String(labels[k])},`)
    .join('');
  const me = list(selector?.matchExpressions)
    .map((e: Obj) => `${requirementText(e, plain)},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${ml}},MatchExpressions:[]LabelSelectorRequirement{${me}},}`;
}

/** validateDuplicate: the first value written twice. */
function duplicate(values: readonly string[], what: string, at: Path): void {
  values.forEach((v, i) => {
    if (values.indexOf(v) !== i) throw new Refused([...at, i], `duplicate definition of ${what} ${quoted(v)}`);
  });
}

/**
 * validateLabelSelectorDuplicate: each selector's match expressions (their values sorted first, as MetalLB sorts them
 * in place), each without a value twice and none written twice, then no selector written twice.
 */
function duplicateSelectors(selectors: readonly Obj[], what: string, at: Path): void {
  const sorted = selectors.map((s) => ({
    ...s,
    matchExpressions: list(s?.matchExpressions).map((e: Obj) => ({ ...e, values: strings(e?.values).sort() })),
  }));
  const written = sorted.map(selectorString);
  sorted.forEach((s, i) => {
    const exprs = s.matchExpressions.map((e) => requirementText(e, plain));
    s.matchExpressions.forEach((e, j) => {
      duplicate(strings(list(selectors[i]?.matchExpressions)[j]?.values), 'match expression value in label selector', [
        ...at,
        i,
        'matchExpressions',
        j,
        'values',
      ]);
      const twin = exprs.indexOf(exprs[j]!, j + 1);
      if (twin !== -1) throw new Refused([...at, i, 'matchExpressions', twin], `duplicate definition of match expressions ${requirementText(e, quoted)}`);
    });
    const twin = written.indexOf(written[i]!, i + 1);
    if (twin !== -1) throw new Refused([...at, twin], `duplicate definition of ${what} ${selectorText(s, quoted)}`);
  });
}

/** A selector's LabelSelectorAsSelector error, with the texts MetalLB joins after it (errors.Join: one per line). */
function parses(selector: Obj, at: Path, ...context: string[]): void {
  const error = labelSelectorError(selector);
  if (error) throw new Refused(at, [error, ...context].join('\n'));
}

/** addressPoolFromCR and its service allocations: the pool's CIDRs, each with the address entry it comes from. */
function poolCIDRs(pool: MetalLBObject): { net: GoIPNet; index: number }[] {
  const wrap = (e: string) => `parsing address pool ${pool.name}: ${e}`;
  if (pool.name === '') throw new Refused(['metadata', 'name'], wrap('missing pool name'));
  const addresses = strings(pool.spec.addresses);
  if (addresses.length === 0) throw new Refused(['spec', 'addresses'], wrap('pool has no prefixes defined'));
  const nets = addresses.flatMap((cidr, index) => {
    const parsed = parsePoolEntry(cidr);
    if ('error' in parsed)
      throw new Refused(['spec', 'addresses', index], wrap(`invalid CIDR ${JSON.stringify(cidr)} in pool ${JSON.stringify(pool.name)}: ${parsed.error}`));
    return parsed.map((net) => ({ net, index }));
  });
  const allocateTo = pool.spec.serviceAllocation as Obj | undefined;
  if (allocateTo && typeof allocateTo === 'object') allocations(pool, allocateTo, wrap);
  return nets;
}

/** addressPoolServiceAllocationsFromCR: namespaces once each, selectors once each and each one that parses. */
function allocations(pool: MetalLBObject, allocateTo: Obj, wrap: (e: string) => string): void {
  const at: Path = ['spec', 'serviceAllocation'];
  const rewrap = (f: () => void) => {
    try {
      f();
    } catch (err) {
      throw err instanceof Refused ? new Refused(err.path, wrap(err.message)) : err;
    }
  };
  const namespaces = strings(allocateTo.namespaces);
  const twice = namespaces.findIndex((n, i) => namespaces.indexOf(n) !== i);
  if (twice !== -1) throw new Refused([...at, 'namespaces', twice], wrap('duplicate definition in namespaces field'));
  const [nsSelectors, svcSelectors] = [list(allocateTo.namespaceSelectors), list(allocateTo.serviceSelectors)];
  if (namespaces.length === 0 && nsSelectors.length === 0 && svcSelectors.length === 0) return;
  rewrap(() => duplicateSelectors(nsSelectors, 'namespaceSelectors', [...at, 'namespaceSelectors']));
  rewrap(() => duplicateSelectors(svcSelectors, 'serviceSelectors', [...at, 'serviceSelectors']));
  nsSelectors.forEach((s, i) =>
    rewrap(() => parses(s, [...at, 'namespaceSelectors', i], `invalid namespace label selector ${selectorString(s)} in ip pool ${pool.name}`)),
  );
  svcSelectors.forEach((s, i) =>
    rewrap(() => parses(s, [...at, 'serviceSelectors', i], `invalid service label selector ${selectorText(s, plain)} in ip pool ${pool.name}`)),
  );
}

/** l2AdvertisementFromCR, then the pool selectors' parse (setL2AdvertisementsToPools). */
function checkL2Advertisement(adv: MetalLBObject): void {
  const spec = adv.spec;
  duplicate(strings(spec.ipAddressPools), 'ipAddressPools', ['spec', 'ipAddressPools']);
  duplicateSelectors(list(spec.ipAddressPoolSelectors), 'ipAddressPoolSelectors', ['spec', 'ipAddressPoolSelectors']);
  duplicateSelectors(list(spec.nodeSelectors), 'nodeSelectors', ['spec', 'nodeSelectors']);
  duplicateSelectors(list(spec.serviceSelectors), 'serviceSelectors', ['spec', 'serviceSelectors']);
  list(spec.nodeSelectors).forEach((s, i) =>
    parses(s, ['spec', 'nodeSelectors', i], `invalid label selector ${selectorText(s, plain)}`, `failed to parse node selector for ${adv.name}`),
  );
  list(spec.serviceSelectors).forEach((s, i) => {
    const error = labelSelectorError(s);
    if (error)
      throw new Refused(
        ['spec', 'serviceSelectors', i],
        `invalid service selector ${selectorText(s, plain)}: ${error}\nfailed to parse service selector for ${adv.name}`,
      );
  });
  list(spec.ipAddressPoolSelectors).forEach((s, i) => parses(s, ['spec', 'ipAddressPoolSelectors', i], `invalid label selector ${selectorText(s, plain)}`));
}

/**
 * `For(resources, DiscardFRROnly)` for pools and layer-2 advertisements alone: with no peer, BFD profile, BGP
 * advertisement or community, the native mode's own checks and the configuration's cross-checks find nothing, so
 * what is left is poolsFor: each pool parsed, no name twice, no CIDR overlapping one before it, then each advertisement.
 */
export function parseConfig(resources: { pools: readonly MetalLBObject[]; l2Advs: readonly MetalLBObject[] }): ConfigError | undefined {
  const names = new Set<string>();
  const all: { net: GoIPNet; pool: string }[] = [];
  for (const pool of resources.pools) {
    try {
      const cidrs = poolCIDRs(pool);
      if (names.has(pool.name)) throw new Refused(['metadata', 'name'], `duplicate definition of pool ${JSON.stringify(pool.name)}`);
      names.add(pool.name);
      for (const { net, index } of cidrs) {
        const earlier = all.find((m) => cidrsOverlap(net, m.net));
        if (earlier)
          throw new Refused(
            ['spec', 'addresses', index],
            `CIDR ${JSON.stringify(ipNetString(net))} in pool ${JSON.stringify(pool.name)} overlaps with already defined CIDR ${JSON.stringify(ipNetString(earlier.net))}`,
          );
        all.push({ net, pool: pool.name });
      }
    } catch (err) {
      if (err instanceof Refused) return { object: pool, path: err.path, message: err.message };
      throw err;
    }
  }
  for (const adv of resources.l2Advs) {
    try {
      checkL2Advertisement(adv);
    } catch (err) {
      if (err instanceof Refused) return { object: adv, path: err.path, message: err.message };
      throw err;
    }
  }
  return undefined;
}
