/**
 * closure-load-balancer beyond the mutation list, on the real repository with objects added: a BGP advertisement
 * announces only to a peer the repository declares, which the gate's offline schemas cannot hold in a broken copy.
 */
import { describe, expect, it } from 'vitest';
import { loadBalancerClosureCheck } from '../../checks/closure/load-balancer.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { applicationsByName } from '../../model/argocd/argocd.ts';
import type { SourceRender } from '../../model/argocd/rendered.ts';

const repo = await loadRepo(REPO_ROOT);
/** A finding that fails the gate: the router forward, judged only where the public proxy renders, is said not judged here. */
const failed = (f: { severity?: string }) => (f.severity ?? 'error') === 'error';

/** An object of `apiVersion kind`, named `namespace/name`. */
const object = (type: string, at: string, spec: Record<string, unknown>): Resource => {
  const [apiVersion, kind] = [type.slice(0, type.lastIndexOf(' ')), type.slice(type.lastIndexOf(' ') + 1)];
  const [namespace, name] = at.split('/') as [string, string];
  return { ...repo.resources[0]!, apiVersion, kind, name, namespace, object: { apiVersion, kind, metadata: { name, namespace }, spec } } as Resource;
};

const service = object('v1 Service', 'ingress/dashboard', { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ port: 80 }] });
const pool = object('metallb.io/v1beta1 IPAddressPool', 'metallb-system/routed', { addresses: ['10.20.0.0/24'] });
const pinned = {
  ...service,
  object: { ...service.object, metadata: { name: 'dashboard', namespace: 'ingress', annotations: { 'metallb.io/address-pool': 'routed' } } },
} as Resource;
const judge = (...extra: Resource[]) =>
  runChecks({ ...repo, resources: [...repo.resources, ...extra] }, [loadBalancerClosureCheck])
    .findings.filter(failed)
    .map((f) => f.message);

describe('closure-load-balancer on a pool announced over BGP', () => {
  it('passes where the BGP advertisement names a peer the repository declares', () => {
    const adv = object('metallb.io/v1beta1 BGPAdvertisement', 'metallb-system/routed', { ipAddressPools: ['routed'], peers: ['router'] });
    const peer = object('metallb.io/v1beta2 BGPPeer', 'metallb-system/router', { myASN: 64512, peerASN: 64513, peerAddress: '192.168.1.1' });
    expect(judge(pinned, pool, adv, peer)).toEqual([]);
  });

  it('fails where it names a peer that is not there: no router learns the address', () => {
    const adv = object('metallb.io/v1beta1 BGPAdvertisement', 'metallb-system/routed', { ipAddressPools: ['routed'], peers: ['rooter'] });
    const peer = object('metallb.io/v1beta2 BGPPeer', 'metallb-system/router', { myASN: 64512, peerASN: 64513, peerAddress: '192.168.1.1' });
    expect(judge(pinned, pool, adv, peer)).toEqual([
      'Service dashboard gets 10.20.0.0 from pool routed, which only BGPAdvertisement routed announces, to BGP peers the repository does not declare: no router learns the address',
    ]);
  });
});

describe('closure-load-balancer on a cluster of control-plane nodes alone', () => {
  const plain = object('v1 Service', 'ingress/dashboard', { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ port: 80 }] });
  const run = (facts: typeof repo.facts) =>
    runChecks({ ...repo, facts, resources: [...repo.resources, plain] }, [loadBalancerClosureCheck])
      .findings.filter(failed)
      .map((f) => f.message);

  it("fails: Talos labels every control-plane node as excluded from external load balancers, and MetalLB's speakers announce nothing from them", () => {
    expect(run(repo.facts)).toEqual([]);
    // .240 is free: the proxies, rendered from their charts, are not in the offline repository.
    expect(run({ ...repo.facts!, nodeCount: repo.facts!.controlPlaneCount })).toEqual([
      "Service dashboard gets 192.168.1.240 from pool lan, and every node of the cluster facts carries node.kubernetes.io/exclude-from-external-load-balancers (Talos gives it to control-plane nodes), from which MetalLB's speakers announce nothing while the chart's speaker.ignoreExcludeLB is off: nothing answers for the address",
    ]);
  });
});

describe('closure-load-balancer on a declaration the render does not hold', () => {
  const app = applicationsByName(repo).get('ingress-public')!;
  const renderOf = (resources: Resource[], status: SourceRender['status'] = 'rendered') =>
    ({ app, source: app.sources[0]!, label: 'chart traefik', status, resources, values: [], nondeterministic: [], consumedFiles: [] }) as SourceRender;
  const rendered = (svc: Resource): Resource => ({
    ...svc,
    name: 'ingress-public-traefik',
    rendered: { id: 'ingress-public#0', app: 'ingress-public', source: 'chart traefik' },
  });
  const judgeRendered = (renders: SourceRender[]) =>
    runChecks({ ...repo, resources: [...repo.resources, ...renders.flatMap((r) => r.resources)] }, [loadBalancerClosureCheck], renders)
      .findings.filter(failed)
      .map((f) => f.message);

  it("fails an app that declares a LoadBalancer its rendered chart no longer makes (a misspelt service.spec: the proxy's Service is a ClusterIP)", () => {
    const clusterIp = rendered({ ...service, object: { ...service.object, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } } } as Resource);
    expect(judgeRendered([renderOf([clusterIp])])).toEqual([
      'ingress-public declares gate.homelab-gitops/requires-load-balancer: "true", but its render holds no LoadBalancer Service: its values make none, and nothing outside the cluster reaches it',
    ]);
    expect(judgeRendered([renderOf([rendered(service)])]).filter((m) => m.includes('declares'))).toEqual([]);
    // Not rendered here: the declaration stands for the render, as offline.
    expect(judgeRendered([renderOf([], 'not-rendered')])).toEqual([]);
  });
});
