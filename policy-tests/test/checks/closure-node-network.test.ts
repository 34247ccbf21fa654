/**
 * closure-node-network reads MetalLB as it announces: an L2Advertisement names its pools, selects them by label, or
 * announces every pool of its namespace; a pool only BGP announces is not on the segment's ARP and is left alone.
 * Each entry form (a range, a CIDR, one address) is held to the nodes' subnet and to the addresses the segment
 * already uses; a node named by address is a node of the facts, with the role its call needs.
 */
import { describe, expect, it } from 'vitest';
import { nodeNetworkClosureCheck } from '../../checks/closure/node-network.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'IPAddressPool')!;

const metallb = (kind: string, name: string, spec: object, labels: Record<string, string> = {}): Resource =>
  ({ ...template, kind, name, object: { apiVersion: 'metallb.io/v1beta1', kind, metadata: { name, namespace: 'metallb-system', labels }, spec } }) as Resource;

const withResources = (extra: Resource[], drop: (r: Resource) => boolean = () => false): Repo => ({
  ...repo,
  resources: [...repo.resources.filter((r) => !drop(r)), ...extra],
});

const messages = (r: Repo) => runPolicy(r, [nodeNetworkClosureCheck]).map((f) => f.message);

describe('closure-node-network', () => {
  it('passes the real repository', () => {
    expect(messages(repo)).toEqual([]);
  });

  it('holds every form of entry an L2Advertisement announces, and leaves a pool only BGP announces alone', () => {
    const extra = [
      metallb('IPAddressPool', 'by-label', { addresses: ['10.9.0.0/28'] }, { announce: 'l2' }),
      metallb('IPAddressPool', 'too-wide', { addresses: ['192.168.0.0/23'] }),
      metallb('IPAddressPool', 'on-a-node', { addresses: ['192.168.1.13/32', '192.168.1.200'] }),
      metallb('IPAddressPool', 'bgp-only', { addresses: ['172.20.0.0/24'] }),
      metallb('L2Advertisement', 'selected', { ipAddressPoolSelectors: [{ matchLabels: { announce: 'l2' } }] }),
      metallb('L2Advertisement', 'named', { ipAddressPools: ['too-wide', 'on-a-node'] }),
      metallb('BGPAdvertisement', 'peering', { ipAddressPools: ['bgp-only'] }),
    ];
    expect(messages(withResources(extra))).toEqual([
      expect.stringMatching(
        /^IPAddressPool by-label, announced over layer 2 by L2Advertisement selected: 10\.9\.0\.0\/28 lies outside the nodes' subnet 192\.168\.1\.0\/24/,
      ),
      expect.stringMatching(/^IPAddressPool too-wide, .*: 192\.168\.0\.0\/23 lies outside the nodes' subnet/),
      expect.stringMatching(/^IPAddressPool on-a-node, .*: 192\.168\.1\.13\/32 holds 192\.168\.1\.13, a control-plane node: /),
    ]);
  });

  it('announces every pool of its namespace when an L2Advertisement names none', () => {
    const everyPool = metallb('L2Advertisement', 'everything', {});
    const vipPool = metallb('IPAddressPool', 'vip', { addresses: ['192.168.1.10-192.168.1.10'] });
    const found = messages(withResources([everyPool, vipPool], (r) => r.kind === 'L2Advertisement'));
    expect(found).toEqual([
      expect.stringMatching(
        /^IPAddressPool vip, announced over layer 2 by L2Advertisement everything: 192\.168\.1\.10-192\.168\.1\.10 holds 192\.168\.1\.10, the control plane's VIP/,
      ),
    ]);
  });

  it('names a TALOS_NODE that is no node, or a worker, at its value', () => {
    const backup = repo.resources.find((r) => r.kind === 'CronJob' && r.name === 'etcd-backup')!;
    const withNode = (address: string): Resource => {
      const object = structuredClone(backup.object) as {
        spec: { jobTemplate: { spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } } } };
      };
      for (const e of object.spec.jobTemplate.spec.template.spec.containers[0]!.env) if (e.name === 'TALOS_NODE') e.value = address;
      return { ...backup, object } as Resource;
    };
    const found = (address: string) =>
      runPolicy(
        withResources([withNode(address)], (r) => r === backup),
        [nodeNetworkClosureCheck],
      );
    expect(found('10.0.10.11').map((f) => f.message)).toEqual([
      expect.stringMatching(/names 10\.0\.10\.11 as TALOS_NODE, and no node of nodeNetwork has that address/),
    ]);
    const worker = found('192.168.1.23');
    expect(worker.map((f) => f.message)).toEqual([
      expect.stringMatching(/names 192\.168\.1\.23 as TALOS_NODE, which is a worker node: .*only a control-plane node runs/),
    ]);
    expect(worker[0]!.file).toBe('apps/platform/backups/etcd-backup.yaml');
  });

  it("holds a LAN machine an exporter probes to nodeNetwork's hosts: in the LAN's domain or one slip from a host, not a name the cluster serves or a site elsewhere", () => {
    const probe = (targets: string[]): Resource =>
      ({
        ...template,
        kind: 'Probe',
        name: 'lan',
        object: {
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'Probe',
          metadata: { name: 'lan', namespace: 'monitoring' },
          spec: { targets: { staticConfig: { static: targets } } },
        },
      }) as Resource;
    const fine = [
      'https://pve1.lan:8006/',
      'nas.lan:161',
      'NAS.lan.',
      'https://tv.lan/ping',
      'https://dns.gogle/',
      '192.168.1.5:9100',
      '[fd00::5]:9100',
      'http://[fd00::5]/',
    ];
    const served = {
      ...template,
      kind: 'Ingress',
      name: 'tv',
      object: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'tv', namespace: 'media' },
        spec: {
          rules: [{ host: 'tv.lan', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'sonarr', port: { number: 8989 } } } }] } }],
        },
      },
    } as Resource;
    expect(messages(withResources([probe(fine), served]))).toEqual([]);
    expect(messages(withResources([probe(['https://tv.lan/ping'])]))).toEqual([
      expect.stringMatching(/^Probe lan has its exporter probe tv\.lan, which is none/),
    ]);
    expect(messages(withResources([probe(['https://pve1.aln:8006/', 'pve4.lan:9221', 'gatewya.lan'])]))).toEqual([
      expect.stringMatching(
        /^Probe lan has its exporter probe pve1\.aln, which is none of the LAN's machines nodeNetwork names \(nas\.lan, .*\) \(did you mean "pve1\.lan"\?\): the exporter cannot resolve it/,
      ),
      expect.stringMatching(/^Probe lan has its exporter probe pve4\.lan, which is none of the LAN's machines/),
      expect.stringMatching(/^Probe lan has its exporter probe gatewya\.lan, .*\(did you mean "gateway\.lan"\?\)/),
    ]);
    // Where the facts list no hosts, no name is judged.
    const facts = { ...repo.facts!, nodeNetwork: { ...repo.facts!.nodeNetwork!, hosts: undefined } };
    expect(runPolicy({ ...withResources([probe(['pve4.lan'])]), facts } as Repo, [nodeNetworkClosureCheck])).toEqual([]);
  });

  it("holds the host of a URL a container's variable is written with as a probe target: a Secret's or a ConfigMap's value is not read", () => {
    const poller = (env: object[]): Resource =>
      ({
        ...template,
        kind: 'Deployment',
        name: 'poller',
        object: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'poller', namespace: 'monitoring' },
          spec: { template: { spec: { containers: [{ name: 'poll', image: 'poller:1', env }] } } },
        },
      }) as Resource;
    const fine = [
      'https://gateway.lan',
      'https://NAS.lan:5001/api',
      'http://loki.monitoring.svc:3100',
      'https://192.168.1.1',
      'https://api.github.com/',
      'gateway.aln',
    ];
    const secret = { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'poller', key: 'url' } } };
    expect(messages(withResources([poller([...fine.map((value, i) => ({ name: `URL_${i}`, value })), secret])]))).toEqual([]);
    const found = runPolicy(
      withResources([
        poller([
          { name: 'UP_UNIFI_DEFAULT_URL', value: 'https://gatway.lan' },
          { name: 'NAS', value: 'smb://files.lan/share' },
        ]),
      ]),
      [nodeNetworkClosureCheck],
    );
    expect(found.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^Deployment poller gives poll's UP_UNIFI_DEFAULT_URL a URL on gatway\.lan, which is none of the LAN's machines .*\(did you mean "gateway\.lan"\?\): the program cannot resolve it/,
      ),
      expect.stringMatching(/^Deployment poller gives poll's NAS a URL on files\.lan, which is none/),
    ]);
  });
});
