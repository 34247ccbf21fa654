/**
 * MetalLB's own configuration tests (internal/config/config_test.go `TestParse`, v0.16.1), read as data. Each row's
 * ClusterResources is written as the objects its Go values marshal to (the fields' types and JSON tags read from
 * api/v1beta1 and api/v1beta2 of the same checkout, as the cert-manager readers do) and parsed by the gate's port
 * (admission/webhooks/metallb-config.ts), every kind: pools, layer-2 and BGP advertisements, peers (with the Secrets
 * their passwords come from), BFD profiles, communities, and nodes. A row agrees when the port refuses it exactly where
 * upstream expects the parse to fail (a row with no `want`), and, where it parses, gives each pool the CIDRs the row's
 * `want` lists.
 */
import { parseConfig, type MetalLBObject, type MetalLBResources } from '../webhooks/metallb-config.ts';
import { discardFRROnly, discardNativeOnly } from '../webhooks/metallb-modes.ts';
import { parsePoolEntry } from '../../model/cluster/address-pools.ts';
import { ipNetString, parseGoCIDR } from '../../model/go/net.ts';
import { count, countUnread, emptyAgreement, type Agreement, type UpstreamTable } from './agreement.ts';
import { definitionsOf, environment, structsOf, toV1 } from './cert-manager-go.ts';
import { blockAt, structTableRows, type GoEnvironment } from './go-literals.ts';

export interface MetalLBCase {
  /** TestParse (config.For), or the BGP modes' own checks: TestValidate (DiscardFRROnly), TestValidateFRR (DiscardNativeOnly). */
  test: 'TestParse' | 'TestValidate' | 'TestValidateFRR';
  name: string;
  resources: MetalLBResources;
  /** Each pool's CIDRs where the row expects the parse to pass; undefined where it expects a refusal. */
  want?: Record<string, string[]>;
}

export type MetalLBTable = UpstreamTable<MetalLBCase>;

const CONSTANTS = {
  'corev1.SecretTypeOpaque': 'Opaque',
  'corev1.SecretTypeBasicAuth': 'kubernetes.io/basic-auth',
  'v1beta2.InternalASNMode': 'internal',
  'v1beta2.ExternalASNMode': 'external',
  'metav1.LabelSelectorOpIn': 'In',
  'metav1.LabelSelectorOpNotIn': 'NotIn',
  'metav1.LabelSelectorOpExists': 'Exists',
  'metav1.LabelSelectorOpDoesNotExist': 'DoesNotExist',
};

/**
 * The names a test's rows use (its locals, the API's constants) and the calls it makes: the API's unsigned fields,
 * written as conversions (`uint32(50)`), as their value, and the test file's own helpers where it has some.
 */
function testEnvironment(source: string, body: string, helpers: Readonly<Record<string, (args: unknown[]) => unknown>> = {}): GoEnvironment {
  const base = environment('', definitionsOf(source, body, []), CONSTANTS);
  return {
    value: (n) => base.value(n),
    call: (n, args) => (/^uint(?:8|16|32|64)?$/.test(n) ? args[0] : n in helpers ? helpers[n]!(args) : base.call(n, args)),
  };
}

/** The pools' CIDRs a row's `want` lists: each `"name": {... CIDR: []*net.IPNet{ipnet("..."), ...}`, as Go prints them. */
function wantedCIDRs(want: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of want.matchAll(/"([^"]+)":\s*\{/g)) {
    const block = blockAt(want, m.index + m[0].length - 1);
    const cidr = /\bCIDR:\s*\[\]\*net\.IPNet\{([^}]*)\}/.exec(block);
    if (cidr && /^\s*Name:\s*"/m.test(block)) out[m[1]!] = [...cidr[1]!.matchAll(/ipnet\("([^"]+)"\)/g)].map((c) => ipNetString(parseGoCIDR(c[1]!)!));
  }
  return out;
}

/** The test's rows, each `want` taken out before the row is parsed (its internal types are not the API's) and kept. */
export function metallbCases(sources: { configTest: string; validationTest?: string; types: readonly string[] }): MetalLBTable {
  const start = sources.configTest.indexOf('func TestParse(');
  const body = start === -1 ? '' : blockAt(sources.configTest, sources.configTest.indexOf('{', start));
  // Each `want: &Config{...}` becomes `want: N`, its text kept as wants[N].
  const wants: string[] = [];
  let rowsText = '';
  let from = 0;
  for (const m of body.matchAll(/\n\t\t\twant: &Config\{/g)) {
    const block = blockAt(body, m.index + m[0].length - 1);
    rowsText += `${body.slice(from, m.index)}\n\t\t\twant: ${wants.length}`;
    wants.push(block);
    from = m.index + m[0].length + block.length + 1;
  }
  rowsText += body.slice(from);
  const structs = structsOf(sources.types);
  const env = testEnvironment(sources.configTest, body);
  const table: MetalLBTable = { cases: [], unread: [] };
  if (body === '') table.unread.push({ name: 'TestParse', why: 'no such test in the file' });
  for (const { text, row, why } of structTableRows(rowsText, /tests/, env)) {
    const name = /desc:\s*"([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 40);
    if (!row) table.unread.push({ name: `TestParse/${name}`, why: why! });
    else
      try {
        const want = typeof row.want === 'number' ? wantedCIDRs(wants[row.want]!) : undefined;
        table.cases.push({ test: 'TestParse', name, resources: resourcesOf((row.crs ?? {}) as Record<string, unknown>, structs), want });
      } catch (err) {
        table.unread.push({ name: `TestParse/${name}`, why: (err as Error).message });
      }
  }
  if (sources.validationTest !== undefined)
    for (const test of ['TestValidate', 'TestValidateFRR'] as const) validationCases(sources.validationTest, test, structs, table);
  return table;
}

/** validation_test.go's helpers: a peer selecting nodes by hostname, a node named for its hostname. */
const VALIDATION_HELPERS: Readonly<Record<string, (args: unknown[]) => unknown>> = {
  peerOnNodes: (hosts) => ({ Spec: { Address: '1.2.3.4', NodeSelectors: hosts.map((h) => ({ MatchLabels: { 'kubernetes.io/hostname': h } })) } }),
  hostNode: ([h]) => ({ ObjectMeta: { Name: h, Labels: { 'kubernetes.io/hostname': h } } }),
};

/** A BGP mode's table: each row's resources, refused exactly where it must fail. */
function validationCases(source: string, test: 'TestValidate' | 'TestValidateFRR', structs: ReturnType<typeof structsOf>, table: MetalLBTable): void {
  const start = source.indexOf(`func ${test}(`);
  if (start === -1) {
    table.unread.push({ name: test, why: 'no such test in the file' });
    return;
  }
  const body = blockAt(source, source.indexOf('{', start));
  const env = testEnvironment(source, body, VALIDATION_HELPERS);
  for (const { text, row, why } of structTableRows(body, /tests/, env)) {
    const name = `${test}/${/desc:\s*"([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 40)}`;
    if (!row) table.unread.push({ name, why: why! });
    else
      try {
        table.cases.push({
          test,
          name,
          resources: resourcesOf((row.config ?? {}) as Record<string, unknown>, structs),
          want: row.mustFail === true ? undefined : {},
        });
      } catch (err) {
        table.unread.push({ name, why: (err as Error).message });
      }
  }
}

/** A row's ClusterResources as the objects their Go values marshal to. */
function resourcesOf(crs: Record<string, unknown>, structs: ReturnType<typeof structsOf>): MetalLBResources {
  const objects = (field: string, kind: MetalLBObject['kind']) =>
    ((crs[field] ?? []) as unknown[]).map((v): MetalLBObject => {
      const o = toV1(v, kind, structs) as { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> }; spec?: Record<string, unknown> };
      return { kind, name: o.metadata?.name ?? '', namespace: o.metadata?.namespace, labels: o.metadata?.labels, spec: o.spec ?? {} };
    });
  const secrets = Object.entries((crs.PasswordSecrets ?? {}) as Record<string, Record<string, unknown>>).map(
    ([name, secret]) => [name, { type: typeof secret.Type === 'string' ? secret.Type : '', keys: Object.keys((secret.Data ?? {}) as object) }] as const,
  );
  const nodes = ((crs.Nodes ?? []) as Record<string, any>[]).map((n) => ({
    name: String(n.ObjectMeta?.Name ?? ''),
    labels: (n.ObjectMeta?.Labels ?? {}) as Record<string, unknown>,
  }));
  return {
    pools: objects('Pools', 'IPAddressPool'),
    l2Advs: objects('L2Advs', 'L2Advertisement'),
    peers: objects('Peers', 'BGPPeer'),
    bfdProfiles: objects('BFDProfiles', 'BFDProfile'),
    bgpAdvs: objects('BGPAdvs', 'BGPAdvertisement'),
    communities: objects('Communities', 'Community'),
    nodes,
    passwordSecrets: new Map(secrets),
  };
}

/** What the gate makes of a row: `refused: <error>`, or each pool's CIDRs. */
export function judgeMetalLB(c: MetalLBCase): string {
  if (c.test !== 'TestParse') {
    const refused = c.test === 'TestValidate' ? discardFRROnly(c.resources) : discardNativeOnly(c.resources);
    return refused ? `refused: ${refused.message}` : '{}';
  }
  const error = parseConfig(c.resources);
  if (error) return `refused: ${error.message}`;
  const cidrs = (p: MetalLBObject) =>
    ((p.spec.addresses ?? []) as string[]).flatMap((a) => {
      const parsed = parsePoolEntry(a);
      return 'error' in parsed ? [] : parsed.map(ipNetString);
    });
  return JSON.stringify(Object.fromEntries(c.resources.pools.map((p) => [p.name, cidrs(p)])));
}

/** How many rows the gate parses as MetalLB does. */
export function metallbAgreement(table: MetalLBTable): Agreement {
  const a = emptyAgreement();
  for (const c of table.cases) {
    const got = judgeMetalLB(c);
    const ok =
      c.want === undefined
        ? got.startsWith('refused: ')
        : c.test !== 'TestParse'
          ? got === '{}'
          : got === JSON.stringify(Object.fromEntries(c.resources.pools.map((p) => [p.name, c.want![p.name] ?? []])));
    count(a, {
      group: c.test === 'TestParse' ? (c.want === undefined ? 'refused' : 'parsed') : c.test,
      ok,
      file: c.test === 'TestParse' ? `TestParse/${c.name}` : c.name,
      why: `the gate gives ${got}, MetalLB ${c.want === undefined ? 'a refusal' : JSON.stringify(c.want)}`,
    });
  }
  countUnread(a, table.unread);
  return a;
}
