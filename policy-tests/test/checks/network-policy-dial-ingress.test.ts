/**
 * network-policy-dial-ingress beyond its mutation (the VPN pod's callers narrowed to Sonarr): the other end of each
 * dial, the ingress policies of the pods behind the Service, judged as Cilium enforces NetworkPolicy and
 * CiliumNetworkPolicy together. A rule by the caller's namespace and pods, Cilium's fromEndpoints or cluster entity
 * lets it in; an address block never does (a pod's address is its endpoint's); a caller on the node's network arrives
 * as its node; a rule the gate cannot place is said not judged.
 */
import { describe, expect, it } from 'vitest';
import { dialIngressCheck } from '../../checks/network-policy/dial-ingress.ts';
import { ingressPathCheck } from '../../checks/network-policy/ingress.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';
import { withCanary } from '../support/canary.ts';

const repo = await loadRepo(REPO_ROOT);

/** The repository with the VPN pod's ingress rule for the managers' port replaced by `from` (a NetworkPolicy's peers). */
function withCallers(from: unknown[]): Repo {
  const resources = repo.resources.map((r) => {
    if (r.kind !== 'NetworkPolicy' || r.name !== 'gluetun-callers') return r;
    const object = structuredClone(r.object) as { spec: { ingress: { from: unknown[] }[] } };
    object.spec.ingress[0]!.from = from;
    return { ...r, object } as Resource;
  });
  return { ...repo, resources };
}
const findings = (r: Repo) => runPolicy(r, [dialIngressCheck]).map((f) => [f.severity ?? 'fail', f.message]);
const media = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'media' } } };

describe('network-policy-dial-ingress', () => {
  it('passes the real repository', () => {
    expect(findings(repo)).toEqual([]);
  });

  it('fails each caller no rule lets in, at the address it dials, and passes one by its namespace and pods', () => {
    const onlySonarr = findings(withCallers([{ ...media, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'sonarr' } } }]));
    expect(onlySonarr.map(([, m]) => /^\S+ (\S+) dials/.exec(m ?? '')?.[1] ?? '').sort((a, b) => a.localeCompare(b))).toEqual([
      'radarr',
      'radarr',
      'radarr-4k',
      'radarr-4k',
    ]);
    expect(onlySonarr[0]).toEqual([
      'fail',
      expect.stringMatching(
        /^Deployment radarr(-4k)? dials qbittorrent\.media-vpn\.svc\.cluster\.local:8080 \(port http-qbt of the pods of Deployment gluetun\), and the ingress policies that select those pods in media-vpn \(NetworkPolicy default-deny, NetworkPolicy gluetun-callers\) let none of its pods in from namespace media on that port: the connection times out$/,
      ),
    ]);
    // Every namespace's pods, or the media namespace, let them in.
    expect(findings(withCallers([{ namespaceSelector: {} }]))).toEqual([]);
  });

  it("lets no caller in by an address block, even of the pods' own network, and says why", () => {
    const byBlock = findings(withCallers([{ ipBlock: { cidr: '10.244.0.0/16' } }]));
    expect(byBlock.length).toBeGreaterThan(0);
    expect(
      byBlock.every(
        ([severity, m]) => severity === 'fail' && /\(an address block selects no pod: Cilium gives a pod's address its endpoint's identity\)/.test(m ?? ''),
      ),
    ).toBe(true);
  });

  it("reads a CiliumNetworkPolicy's ingress with the NetworkPolicies, and says a group not judged", () => {
    const cilium = (rule: Record<string, unknown>): Resource =>
      ({
        kind: 'CiliumNetworkPolicy',
        apiVersion: 'cilium.io/v2',
        name: 'callers-cilium',
        namespace: 'media-vpn',
        file: 'apps/media/gluetun/networkpolicy.yaml',
        object: {
          kind: 'CiliumNetworkPolicy',
          metadata: { name: 'callers-cilium', namespace: 'media-vpn' },
          spec: { endpointSelector: { matchLabels: { 'app.kubernetes.io/name': 'gluetun' } }, ingress: [rule] },
        },
      }) as unknown as Resource;
    // A peer no caller matches (an empty `from` would let every source in).
    const shut = withCallers([{ podSelector: { matchLabels: { app: 'nobody' } } }]);
    const refused = findings(shut).length;
    expect(refused).toBeGreaterThan(0);
    const inMedia = { fromEndpoints: [{ matchLabels: { 'k8s:io.kubernetes.pod.namespace': 'media' } }] };
    expect(findings({ ...shut, resources: [...shut.resources, cilium(inMedia)] })).toEqual([]);
    expect(findings({ ...shut, resources: [...shut.resources, cilium({ fromEntities: ['cluster'] })] })).toEqual([]);
    const grouped = findings({ ...shut, resources: [...shut.resources, cilium({ fromGroups: [{ aws: { securityGroupsIds: ['sg-1'] } }] })] });
    expect(grouped.every(([severity]) => severity === 'not-judged')).toBe(true);
    expect(grouped).toHaveLength(refused);
  });

  it("fails a Service whose pods of one workload refuse the caller while another's let it in: the connections sent there time out", () => {
    // A second VPN Deployment behind the same Services, which the callers' policy leaves out (only the default deny selects it).
    const split = withCanary(repo, (r) => {
      if (r.kind !== 'NetworkPolicy' || r.name !== 'gluetun-callers') return r;
      const object = structuredClone(r.object) as { spec: { podSelector: Record<string, unknown> } };
      object.spec.podSelector.matchExpressions = [{ key: 'track', operator: 'DoesNotExist' }];
      return { ...r, object } as Resource;
    });
    const partly = findings(split);
    expect(partly.length).toBeGreaterThan(0);
    expect(partly).toContainEqual([
      'fail',
      expect.stringMatching(
        /^Deployment radarr dials \S+ \(port http-qbt of the pods of Deployment gluetun(-canary)?\), and the ingress policies that select the pods of Deployment gluetun-canary in media-vpn \(NetworkPolicy default-deny\) let none of its pods in from namespace media on that port: the Service balances its connections among its pods, and though others let it through, each one it sends to the pods of Deployment gluetun-canary times out$/,
      ),
    ]);
    // The same split behind an Ingress: the proxy reaches one Deployment's pods and not the other's.
    const bazarr = repo.resources.find((r) => r.kind === 'Ingress' && r.name === 'bazarr')!;
    const routeObject = structuredClone(bazarr.object) as {
      metadata: Record<string, string>;
      spec: { rules: { http: { paths: { backend: { service: Record<string, unknown> } }[] } }[] };
    };
    Object.assign(routeObject.metadata, { name: 'qbittorrent', namespace: 'media-vpn' });
    routeObject.spec.rules[0]!.http.paths[0]!.backend.service = { name: 'qbittorrent', port: { number: 8080 } };
    const ingress = { ...bazarr, name: 'qbittorrent', namespace: 'media-vpn', object: routeObject } as Resource;
    const routed = (r: Repo) => runPolicy({ ...r, resources: [...r.resources, ingress] }, [ingressPathCheck]).map((f) => [f.severity ?? 'fail', f.message]);
    expect(routed(repo)).toEqual([]);
    expect(routed(split)).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Ingress qbittorrent routes to Service qbittorrent \(port \S+\), whose pods NetworkPolicy default-deny isolates .*: the Service balances its connections among its pods, and though others let it through, each one it sends to the pods of Deployment gluetun-canary times out$/,
        ),
      ],
    ]);
  });
});
