/**
 * What the Service allocator refuses on create (admission/allocation/service-allocation.ts), for the cluster the
 * facts describe: its Service range (nodeNetwork.services) and the ServiceCIDRs the repository adds to it.
 */
import { nthAddress, serviceAllocations } from '../allocation/service-allocation.ts';
import { dig } from '../../model/core/dig.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { placeOf } from '../../model/controller/waves.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { cidrFamily, DEFAULT_NODE_PORTS } from '../../model/repository/node-network.ts';

export const serviceAllocationCheck: PolicyCheck = {
  id: 'service-allocation',
  description:
    "The API server's Service allocator gives every Service what it asks for, in the cluster the facts describe: an IP family the cluster has (nodeNetwork.services; a ServiceCIDR widens a family's range, never adds one), no RequireDualStack on a single-stack cluster, a cluster IP inside the Service range that no other Service holds (nor the kubernetes Service, on the first address, nor Talos' kube-dns, on the tenth, where the facts say Talos brings it), a node port inside the node-port range (nodeNetwork.nodePorts; the API server's default, 30000-32767, where the facts name none) that no other Service holds; a Service it refuses never syncs (invariants P1).",
  invariants: ['P1'],
  remediation: 'leave clusterIP and nodePort out and let the cluster choose, or pick a free one inside the range the message names',
  // Applications too: their waves order the Services' creation, and their destinations place a Service with no namespace.
  reads: { kinds: ['Service', 'ServiceCIDR', 'Application'] },
  exemptible: false,
  run(ctx) {
    const range = ctx.repo.facts?.nodeNetwork?.services;
    // In the order Argo CD creates them (the root app's wave, then the wave inside the app), so that of two Services
    // on one address the one refused is the one created second; two it applies in one step are said to race.
    const order = (r: Resource) => placeOf(ctx.repo, r).order;
    const sameStep = (a: Resource, b: Resource) => byWave(order(a), order(b)) === 0;
    const byWave = (a: readonly number[], b: readonly number[]) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0);
    const services = ctx.resources
      .filter((r) => r.kind === 'Service' && r.apiVersion === 'v1')
      .map((r) => ({ r, at: order(r) }))
      .sort((a, b) => byWave(a.at, b.at))
      .map(({ r }) => r);
    // ServiceCIDRs widen the families the API server's flag gave; one of another family adds nothing.
    const widened = ctx.resources
      .filter((r) => r.kind === 'ServiceCIDR')
      .flatMap((r) => (dig(r.object, ['spec', 'cidrs']) as unknown[] | undefined) ?? [])
      .filter((c): c is string => typeof c === 'string' && !!range && cidrFamily(c) === cidrFamily(range));
    // Talos' CoreDNS Service, where the facts say the cluster brings it, holds the range's tenth address (Talos'
    // DNSServiceIP, as kubeadm's): a Service of the repository there is refused.
    const dns = ctx.repo.facts?.providedOutsideGit.some((o) => o.kind === 'Service' && o.namespace === 'kube-system' && o.name === 'kube-dns');
    const dnsIP = range && dns ? nthAddress(range, 10) : undefined;
    const network = {
      ranges: range ? [range, ...widened] : [],
      nodePorts: ctx.repo.facts?.nodeNetwork?.nodePorts ?? DEFAULT_NODE_PORTS,
      held: dnsIP ? [{ ip: dnsIP, by: 'kube-system/kube-dns, the cluster DNS Service Talos brings (providedOutsideGit)' }] : [],
    };
    const allocations = serviceAllocations(
      services.map((r) => ({ object: r.object, label: `Service ${namespaceOrDestination(ctx.repo, r) ?? 'default'}/${r.name}` })),
      network,
    );
    for (const { index, invalid, heldBy } of allocations) {
      const r = services[index]!;
      // gitops-engine applies one kind of one wave together, and apps of one wave sync side by side: neither comes first.
      const together = heldBy !== undefined && sameStep(services[heldBy]!, r);
      const race = together ? `; Argo CD applies both at once (${services[heldBy]!.name} too, in the same wave), so either may be the one refused` : '';
      ctx.fail({ resource: r, path: invalid.path }, `Service ${r.name}: ${invalid.message} [${invalid.fn}]${race}`);
    }
    if (!range)
      for (const r of services) {
        const asks = ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'].find(
          (f) => ![undefined, 'None'].includes(dig(r.object, ['spec', f]) as string | undefined),
        );
        if (asks)
          ctx.notJudged(
            { resource: r, path: ['spec', asks] },
            `Service ${r.name}: the cluster facts state no Service range (nodeNetwork.services), so its ${asks} is not judged`,
          );
      }
  },
};
