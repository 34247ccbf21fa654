/**
 * network-policy-dns-egress beyond its mutation (the VPN pod's DNS rule narrowed to TCP): a pod that dials by name is
 * let out to the cluster's resolver on 53/UDP. A NetworkPolicy port without a protocol is TCP, a Cilium port without
 * one is any; a pod whose dnsPolicy sends it elsewhere is not held to it; where the facts give no resolver pods, not
 * judged. A host a Cilium policy lets it reach by toFQDNs (a name or a pattern) is dialled by name too.
 */
import { describe, expect, it } from 'vitest';
import { dnsEgressCheck } from '../../checks/network-policy/dns-egress.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

/** The repository with the VPN pod's DNS rule replaced by `rule` (a Cilium egress rule), or dropped. */
function withDnsRule(rule: Record<string, unknown> | undefined): Repo {
  const resources = repo.resources.map((r) => {
    if (r.kind !== 'CiliumNetworkPolicy' || r.name !== 'gluetun-egress') return r;
    const object = structuredClone(r.object) as { spec: { egress: unknown[] } };
    object.spec.egress = rule ? [rule, ...object.spec.egress.slice(1)] : object.spec.egress.slice(1);
    return { ...r, object } as Resource;
  });
  return { ...repo, resources };
}
const findings = (r: Repo) => runPolicy(r, [dnsEgressCheck]).map((f) => [f.severity ?? 'fail', f.message]);
const toDns = { matchLabels: { 'k8s:io.kubernetes.pod.namespace': 'kube-system', 'k8s:k8s-app': 'kube-dns' } };
const REFUSED =
  /^Deployment gluetun dials http:\/\/sonarr\.media\.svc:8989 and \d+ more addresses by name, and the egress policies that select its pods in media-vpn \(NetworkPolicy default-deny, CiliumNetworkPolicy gluetun-egress(, CiliumNetworkPolicy backups-egress)?\) let none of its lookups out to the cluster's resolver \(kube-dns in kube-system, port 53\/UDP\)/;

describe('network-policy-dns-egress', () => {
  it('passes the real repository', () => {
    expect(findings(repo)).toEqual([]);
  });

  it('fails a pod that dials by name with no rule to the resolver, or one for TCP alone; passes UDP, ANY, or a port without a protocol', () => {
    expect(findings(withDnsRule(undefined))).toEqual([['fail', expect.stringMatching(REFUSED)]]);
    const port = (p: Record<string, unknown>) => withDnsRule({ toEndpoints: [toDns], toPorts: [{ ports: [{ port: '53', ...p }] }] });
    expect(findings(port({ protocol: 'TCP' }))).toEqual([['fail', expect.stringMatching(REFUSED)]]);
    expect(findings(port({ protocol: 'UDP' }))).toEqual([]);
    expect(findings(port({}))).toEqual([]); // a Cilium port without a protocol is any
    // A rule of ports alone, with no peer, is one to every destination (Cilium's layer-4 policy on its own).
    expect(findings(withDnsRule({ toPorts: [{ ports: [{ port: '53', protocol: 'ANY' }] }] }))).toEqual([]);
    expect(findings(withDnsRule({ toPorts: [{ ports: [{ port: '53', protocol: 'TCP' }] }] }))).toEqual([['fail', expect.stringMatching(REFUSED)]]);
    // Another namespace's pods are not the resolver.
    expect(findings(withDnsRule({ toEndpoints: [{ matchLabels: { 'k8s:io.kubernetes.pod.namespace': 'media', 'k8s:k8s-app': 'kube-dns' } }] }))).toEqual([
      ['fail', expect.stringMatching(REFUSED)],
    ]);
  });

  it("holds the names asked on the way to Cilium's DNS proxy, where every rule that lets the lookups out sends them there", () => {
    const viaProxy = (dns: unknown[], extra: unknown[] = []) => {
      const r = withDnsRule({ toEndpoints: [toDns], toPorts: [{ ports: [{ port: '53', protocol: 'ANY' }], rules: { dns } }] });
      return {
        ...r,
        resources: r.resources.map((x) => {
          if (x.kind !== 'CiliumNetworkPolicy' || x.name !== 'gluetun-egress' || extra.length === 0) return x;
          const object = structuredClone(x.object) as { spec: { egress: unknown[] } };
          object.spec.egress.push(...extra);
          return { ...x, object } as Resource;
        }),
      };
    };
    expect(findings(viaProxy([{ matchName: 'vpn.example.org' }]))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Deployment gluetun dials http:\/\/sonarr\.media\.svc:8989 by name, and its lookups go out only through Cilium's DNS proxy, whose rules \(CiliumNetworkPolicy gluetun-egress\) do not let sonarr\.media\.svc\.media-vpn\.svc\.cluster\.local\. through/,
        ),
      ],
    ]);
    expect(findings(viaProxy([{ matchPattern: '**.cluster.local' }]))).toEqual([]);
    // A rule that lets the lookups out without DNS rules lets every name through.
    expect(findings(viaProxy([{ matchName: 'vpn.example.org' }], [{ toEntities: ['cluster'], toPorts: [{ ports: [{ port: '53' }] }] }]))).toEqual([]);
  });

  it('says a default deny that shuts the lookups of several workloads once, at the policy', () => {
    // The media namespace's rule to kube-dns dropped: every app there that dials by name loses its lookups.
    const resources = repo.resources.map((r) => {
      if (r.kind !== 'CiliumNetworkPolicy' || r.name !== 'media-egress') return r;
      const object = structuredClone(r.object) as { spec: { egress: unknown[] } };
      object.spec.egress = object.spec.egress.slice(1);
      return { ...r, object } as Resource;
    });
    const found = runPolicy({ ...repo, resources }, [dnsEgressCheck]);
    expect(found.map((f) => [f.severity ?? 'fail', f.message])).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^NetworkPolicy default-deny, NetworkPolicy media-within, CiliumNetworkPolicy media-egress isolate the egress of \d+ workloads in media that dial Services by name \(.*, and \d+ more\) and let none of their lookups out to the cluster's resolver/,
        ),
      ],
    ]);
    expect(found[0]).toMatchObject({ file: 'apps/media/storage/networkpolicy.yaml' });
  });

  it('reads a NetworkPolicy port without a protocol as TCP', () => {
    const np = (protocol?: string): Resource =>
      ({
        kind: 'NetworkPolicy',
        apiVersion: 'networking.k8s.io/v1',
        name: 'dns',
        namespace: 'media-vpn',
        file: 'apps/media/gluetun/networkpolicy.yaml',
        object: {
          kind: 'NetworkPolicy',
          metadata: { name: 'dns', namespace: 'media-vpn' },
          spec: {
            podSelector: {},
            policyTypes: ['Egress'],
            egress: [
              {
                to: [
                  {
                    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
                    podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
                  },
                ],
                ports: [{ port: 53, ...(protocol ? { protocol } : {}) }],
              },
            ],
          },
        },
      }) as unknown as Resource;
    const without = withDnsRule(undefined);
    expect(findings({ ...without, resources: [...without.resources, np()] })).toHaveLength(1);
    expect(findings({ ...without, resources: [...without.resources, np('UDP')] })).toEqual([]);
  });

  it('holds no pod whose dnsPolicy sends it elsewhere, and says it not judged where the facts give no resolver', () => {
    const resources = withDnsRule(undefined).resources.map((r) => {
      if (r.kind !== 'Deployment' || r.name !== 'gluetun') return r;
      const object = structuredClone(r.object) as { spec: { template: { spec: Record<string, unknown> } } };
      object.spec.template.spec.dnsPolicy = 'Default';
      return { ...r, object } as Resource;
    });
    expect(findings({ ...repo, resources })).toEqual([]);
    const facts = { ...repo.facts!, providedOutsideGit: repo.facts!.providedOutsideGit.filter((e) => e.kind !== 'Pod' || e.name !== 'coredns') };
    expect(findings({ ...withDnsRule(undefined), facts })).toEqual([
      ['not-judged', expect.stringMatching(/^\d+ pods dial Services by name .*the cluster facts give no resolver pods/)],
    ]);
  });

  it("holds a pod a Cilium policy lets reach a host by toFQDNs (the API's blog feed) to the resolver on 53/UDP, a name or a pattern", () => {
    /** The API's egress policy with its DNS rule's protocol and its FQDN entry replaced. */
    const api = (protocol: string, fqdn: Record<string, unknown>): Repo => ({
      ...repo,
      resources: repo.resources.map((r) => {
        if (r.kind !== 'CiliumNetworkPolicy' || r.name !== 'portfolio-api-egress') return r;
        const object = structuredClone(r.object) as any;
        object.spec.egress[0].toPorts[0].ports[0].protocol = protocol;
        object.spec.egress[1].toFQDNs = [fqdn];
        return { ...r, object } as Resource;
      }),
    });
    expect(findings(api('ANY', { matchName: 'blog.example.net' }))).toEqual([]);
    expect(findings(api('TCP', { matchName: 'blog.example.net' }))).toEqual([
      ['fail', expect.stringMatching(/^Deployment portfolio-api dials blog\.example\.net by name, and the egress policies .* let none of its lookups out/)],
    ]);
    expect(findings(api('TCP', { matchPattern: '*.example.net' }))).toEqual([
      ['fail', expect.stringMatching(/^Deployment portfolio-api dials \*\.example\.net by name/)],
    ]);
    // What the proxy refuses of the host is network-policy-fqdn-dns's: not said twice.
    expect(findings(api('ANY', { matchName: 'feed.example.org' }))).toEqual([]);
  });
});
