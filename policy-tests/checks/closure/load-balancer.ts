/**
 * closure-load-balancer: every LoadBalancer Service gets an address, and something answers for it. Whether a provider
 * exists at all (MetalLB's pools, or one providedOutsideGit), whether a chart's LoadBalancer is declared on its app, whether the LAN's proxy
 * admits the LAN, and what MetalLB's controller makes of each Service (model/cluster/metallb-allocator.ts): the address it is given, or why
 * it stays <pending>; then whether an advertisement announces the pool it came from, to it; and whether the router's
 * port forward lands on the public proxy's Service.
 */
import { applications, applicationsByName, namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { requiresLoadBalancer, REQUIRES_LOAD_BALANCER } from '../../model/argocd/app-declarations.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { advertisedPools } from '../../model/cluster/address-pools.ts';
import { allocatorPool, MetalLBAllocator, portsOf, type IPFamily, type LBService } from '../../model/cluster/metallb-allocator.ts';
import { namespaceLabels } from '../../model/cluster/pod-templates.ts';
import { dig, list, obj } from '../../model/core/dig.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { cidrFamily, cidrWithin } from '../../model/repository/node-network.ts';
import { traefikProxiesByClass } from '../../model/traefik/proxies.ts';
import { LAN_GATEWAY, PUBLIC_GATEWAY } from '../../model/cluster/ingress-routes.ts';
import type { Allocation } from '../../model/cluster/metallb-allocator.ts';

/** Where the Traefik chart's values set its Service's source ranges (its service.spec is the Service's spec). */
const SOURCE_RANGES = ['service', 'spec', 'loadBalancerSourceRanges'];
import { both, requirementFits, type Fit } from '../../model/scheduling/node-affinity.ts';
import { nodeKinds, viewOf, type NodeKind } from '../../model/scheduling/nodes.ts';
import { FACTS_FIX } from './closing.ts';

export const loadBalancerClosureCheck: PolicyCheck = {
  id: 'closure-load-balancer',
  description:
    "Every LoadBalancer Service (plain, rendered, or declared on its app with gate.homelab-gitops/requires-load-balancer) has an address provider: an IPAddressPool in the repository, or a providedOutsideGit LoadBalancer entry; and MetalLB, as its controller allocates (v0.16.1), gives it an address: the one it asks for (metallb.io/loadBalancerIPs or spec.loadBalancerIP) from the pool that holds it, if that pool serves the Service (its serviceAllocation) and no other Service holds the address on the same ports without the same sharing key; else one from the pool it names (metallb.io/address-pool), which exists and has one free; else one from a pool pinned to it or any pool that auto-assigns; and a layer-2 or BGP advertisement announces that pool to it, from a node its nodeSelectors match among the nodes of the cluster facts that do not carry node.kubernetes.io/exclude-from-external-load-balancers (a BGP one to a peer the repository declares); otherwise it waits for an address forever, or has one nothing answers for. An app that declares one, rendered, renders one, or nothing outside the cluster reaches it. The LAN proxy (the Traefik of the LAN ingress class) admits the LAN, the subnet of the nodes in the cluster facts, among the loadBalancerSourceRanges of its Service, or every client on the LAN is refused at the Service. The router's port forward (the cluster facts' nodeNetwork.forwards) lands on the public proxy: a LoadBalancer Service the public class's Traefik renders asks MetalLB for that address (one it does not ask for is the allocator's pick of the moment), is given it, and serves each forwarded port, where its chart renders (invariants P1).",
  invariants: ['P1'],
  remediation: `keep MetalLB and its pool (apps/platform/metallb), ${FACTS_FIX}; an app whose chart renders a LoadBalancer Service carries ${REQUIRES_LOAD_BALANCER}: "true"; list the LAN in the LAN proxy's service.spec.loadBalancerSourceRanges`,
  reads: { kinds: ['*'], everyKind: 'a LoadBalancer Service, and the pool that serves it, may come from any render', charts: ['traefik'], renders: true },
  exemptible: false,
  run(ctx) {
    const { repo } = ctx;
    const pool = repo.resources.some((r) => r.kind === 'IPAddressPool') || (repo.facts?.providedOutsideGit ?? []).some((e) => e.kind === 'LoadBalancer');
    const declared = applications(repo).filter(requiresLoadBalancer);
    const services = ctx.resources.filter((r) => r.kind === 'Service' && dig(r.object, ['spec', 'type']) === 'LoadBalancer');
    if (!pool) {
      for (const app of declared)
        ctx.fail(
          { resource: app.resource, path: ['metadata', 'annotations', REQUIRES_LOAD_BALANCER] },
          `${app.name}'s chart renders a LoadBalancer Service, and nothing in the repository hands out addresses: it waits forever`,
        );
      for (const svc of services)
        ctx.fail(
          { resource: svc, path: ['spec', 'type'] },
          `Service ${svc.name} is a LoadBalancer, and nothing in the repository hands out addresses: it waits forever`,
        );
    }
    // A rendered LoadBalancer must be declared on its app, or the offline gate would not know.
    for (const svc of services.filter((s) => s.rendered)) {
      const app = applicationsByName(repo).get(svc.rendered!.app);
      if (app && !declared.includes(app))
        ctx.fail(
          { resource: svc, path: ['spec', 'type'] },
          `Service ${svc.name} is a LoadBalancer, but app ${app.name} does not carry ${REQUIRES_LOAD_BALANCER}: "true"`,
        );
    }
    // The converse: an app that declares one, and whose every source is rendered, renders one. Otherwise its values no
    // longer make one (a misspelt service.spec, the key that holds its type), and nothing outside the cluster reaches it.
    for (const app of declared) {
      const own = ctx.renders.filter((x) => x.app.name === app.name);
      if (own.length === 0 || own.some((x) => x.status !== 'rendered') || services.some((s) => s.rendered?.app === app.name)) continue;
      ctx.fail(
        { resource: app.resource, path: ['metadata', 'annotations', REQUIRES_LOAD_BALANCER] },
        `${app.name} declares ${REQUIRES_LOAD_BALANCER}: "true", but its render holds no LoadBalancer Service: its values make none, and nothing outside the cluster reaches it`,
      );
    }
    if (repo.resources.some((r) => r.kind === 'IPAddressPool')) checkAllocations(ctx, services);
    lanSourceRanges(ctx);
  },
};

/**
 * The LAN's proxy (the Traefik that serves the LAN ingress class) admits the LAN at its Service: a LoadBalancer
 * Service's loadBalancerSourceRanges are the only clients kube-proxy and Cilium let through to it, and its address is
 * announced on the nodes' segment alone, so ranges that leave the LAN out (the nodes' subnet of the cluster facts)
 * refuse every client that can reach it, and every LAN app is unreachable.
 */
function lanSourceRanges(ctx: CheckContext): void {
  const subnet = ctx.repo.facts?.nodeNetwork?.subnet;
  const proxy = traefikProxiesByClass(ctx.repo).get(LAN_GATEWAY);
  const ranges = proxy ? dig(proxy.values, SOURCE_RANGES) : undefined;
  if (!subnet || !proxy || !Array.isArray(ranges) || ranges.length === 0) return;
  if (ranges.some((r) => typeof r === 'string' && cidrWithin(subnet, r.trim()))) return;
  ctx.fail(
    { data: proxy.source, path: SOURCE_RANGES },
    `the LAN proxy's Service (${proxy.appName}) admits only ${ranges.map(String).join(', ')}, none of which holds the LAN (${subnet}, the nodes' subnet of the cluster facts): every client on the LAN is refused at the Service, and every app of ${LAN_GATEWAY} is out of reach`,
    `list the LAN (${subnet}) in service.spec.loadBalancerSourceRanges`,
  );
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const stringMap = (v: unknown): Record<string, string> => Object.fromEntries(Object.entries(obj(v)).map(([k, x]) => [k, String(x)]));

/** Whether an L2Advertisement or BGPAdvertisement applies to the pool and the Service (its pools, or all; its Service selectors, or all). */
function picks(adv: Resource, pool: Resource | undefined, svc: LBService): boolean {
  if (!pool || adv.namespace !== pool.namespace) return false;
  const picksPool = advertisedPools(adv.object.spec, [pool], (p) => dig(p.object, ['metadata', 'labels'])).length > 0;
  const services = list(dig(adv.object, ['spec', 'serviceSelectors']));
  return picksPool && (services.length === 0 || services.some((s) => selectorMatches(obj(s), svc.labels)));
}

/** Whether a BGP advertisement has a peer to announce to: one of those it names, or any where it names none (an L2 one needs none). */
const hasPeer = (adv: Resource, peers: readonly Resource[]): boolean => {
  if (adv.kind !== 'BGPAdvertisement') return true;
  const named = list(dig(adv.object, ['spec', 'peers']));
  return peers.some((p) => p.namespace === adv.namespace && (named.length === 0 || named.includes(p.name)));
};

/** A label selector against a kind of node: each requirement as the scheduler's matcher reads it, unknown where a label is. */
function selectorFit(selector: Record<string, unknown>, node: NodeKind): Fit {
  const requirements = [
    ...Object.entries(obj(selector.matchLabels)).map(([key, value]) => ({ key, operator: 'In', values: [String(value)] })),
    ...list(selector.matchExpressions).map(obj),
  ];
  return requirements.reduce<Fit>((fit, r) => both(fit, requirementFits(r, viewOf(node))), 'yes');
}

/** Whether an advertisement's node selectors may match a node of the cluster facts (none given: every node). */
const onSomeNode = (adv: Resource, kinds: readonly NodeKind[]): boolean => {
  const selectors = list(dig(adv.object, ['spec', 'nodeSelectors']));
  return selectors.length === 0 || kinds.length === 0 || kinds.some((k) => selectors.some((s) => selectorFit(obj(s), k) !== 'no'));
};

/**
 * The label a speaker does not announce from (k8snodes.IsNodeExcludedFromBalancers, in both the layer-2 and the BGP
 * controller), unless the chart's speaker.ignoreExcludeLB is on; Talos gives it to every control-plane node.
 */
const EXCLUDED = 'node.kubernetes.io/exclude-from-external-load-balancers';
const announcingKinds = (kinds: readonly NodeKind[], ignoreExcludeLB: boolean): NodeKind[] =>
  ignoreExcludeLB ? [...kinds] : kinds.filter((k) => !Object.hasOwn(k.labels, EXCLUDED));

/**
 * What MetalLB's controller makes of each LoadBalancer Service it serves (one of its class), in the order a
 * starting controller lists them, with the pools the repository declares; and whether the pool an address came from is
 * announced to the Service.
 */
function checkAllocations(ctx: CheckContext, services: readonly Resource[]): void {
  const pools = ctx.resources.filter((r) => r.kind === 'IPAddressPool');
  const advertisements = ctx.resources.filter((r) => r.kind === 'L2Advertisement' || r.kind === 'BGPAdvertisement');
  const peers = ctx.resources.filter((r) => r.kind === 'BGPPeer');
  const namespaces = namespaceLabels(ctx.repo);
  const kinds = ctx.repo.facts ? nodeKinds(ctx.repo.facts) : [];
  const metallbValues = chartValues(ctx.repo, 'metallb').map((c) => c.values);
  const ignoreExcludeLB = metallbValues.some((v) => dig(v, ['speaker', 'ignoreExcludeLB']) === true);
  const speakers = announcingKinds(kinds, ignoreExcludeLB);
  const allocator = new MetalLBAllocator(pools.map((p) => allocatorPool({ name: p.name, spec: obj(p.object.spec) }, namespaces)));
  const network = ctx.repo.facts?.nodeNetwork;
  const clusterFamily: IPFamily = (network && cidrFamily(network.services)) ?? 'IPv4';
  // filterByLoadBalancerClass: MetalLB serves the Services of its class (the chart's loadBalancerClass), none but
  // classless ones where it has none; another class's provider is not judged.
  const metallbClass = metallbValues.map((v) => dig(v, ['loadBalancerClass']))[0] ?? '';
  const served = services
    .filter((s) => {
      const own = dig(s.object, ['spec', 'loadBalancerClass']) ?? '';
      if (own === metallbClass) return true;
      if (own !== '')
        ctx.notJudged(
          { resource: s, path: ['spec', 'loadBalancerClass'] },
          `Service ${s.name}: its loadBalancerClass ${JSON.stringify(own)} is not MetalLB's, and its provider is not judged`,
        );
      return false;
    })
    .map((resource) => {
      const namespace = namespaceOrDestination(ctx.repo, resource) ?? 'default';
      const spec = obj(resource.object.spec);
      const family = list(spec.ipFamilies)[0] === 'IPv6' ? 'IPv6' : list(spec.ipFamilies)[0] === 'IPv4' ? 'IPv4' : clusterFamily;
      const svc: LBService = {
        key: `${namespace}/${resource.name}`,
        namespace,
        labels: stringMap(dig(resource.object, ['metadata', 'labels'])),
        annotations: stringMap(dig(resource.object, ['metadata', 'annotations'])),
        spec,
        family,
      };
      return { key: svc.key, svc, resource };
    })
    .sort(byKey);
  const given: Given[] = [];
  for (const { svc, resource } of served) {
    const got = allocator.allocate(svc);
    if ('error' in got) {
      ctx.fail({ resource, path: got.path }, `Service ${resource.name}: MetalLB gives it no address (${got.error}), and it stays <pending>`);
      continue;
    }
    given.push({ resource, svc, got });
    const pool = pools.find((p) => p.name === got.pool);
    const picking = advertisements.filter((a) => picks(a, pool, svc));
    if (picking.length === 0)
      ctx.fail(
        { resource, path: ['spec', 'type'] },
        `Service ${resource.name} gets ${got.ips.join(', ')} from pool ${got.pool}, which no L2Advertisement or BGPAdvertisement announces to it: nothing answers for the address`,
      );
    else if (!picking.some((a) => hasPeer(a, peers)))
      ctx.fail(
        { resource, path: ['spec', 'type'] },
        `Service ${resource.name} gets ${got.ips.join(', ')} from pool ${got.pool}, which only ${picking.map((a) => `${a.kind} ${a.name}`).join(' and ')} announces, to BGP peers the repository does not declare: no router learns the address`,
      );
    else if (speakers.length === 0 && kinds.length > 0)
      ctx.fail(
        { resource, path: ['spec', 'type'] },
        `Service ${resource.name} gets ${got.ips.join(', ')} from pool ${got.pool}, and every node of the cluster facts carries ${EXCLUDED} (Talos gives it to control-plane nodes), from which MetalLB's speakers announce nothing while the chart's speaker.ignoreExcludeLB is off: nothing answers for the address`,
      );
    else if (!picking.some((a) => hasPeer(a, peers) && onSomeNode(a, speakers)))
      ctx.fail(
        { resource, path: ['spec', 'type'] },
        `Service ${resource.name} gets ${got.ips.join(', ')} from pool ${got.pool}, which ${picking.map((a) => `${a.kind} ${a.name}`).join(' and ')} announces only from nodes its nodeSelectors match, and no node of the cluster facts does: nothing answers for the address`,
      );
  }
  routerForward(ctx, given);
}

/** A Service MetalLB gives an address. */
interface Given {
  resource: Resource;
  svc: LBService;
  got: Extract<Allocation, { ips: string[] }>;
}

/**
 * The router's port forward (the cluster facts' nodeNetwork.forwards) lands on the public proxy: a LoadBalancer
 * Service the public class's Traefik renders asks MetalLB for the forwarded address, is given it, and serves each
 * forwarded port there. An address it does not ask for is the allocator's pick of the moment: a Service created
 * before it, or its own Service created again, takes another, and the internet reaches nothing. Judged where the
 * proxy's chart is rendered.
 */
function routerForward(ctx: CheckContext, given: readonly Given[]): void {
  const forwards = ctx.repo.facts?.nodeNetwork?.forwards;
  const proxy = traefikProxiesByClass(ctx.repo).get(PUBLIC_GATEWAY);
  if (!forwards || !proxy) return;
  const renders = ctx.renders.filter((x) => x.app.name === proxy.appName);
  if (renders.length === 0 || renders.some((x) => x.status !== 'rendered'))
    return ctx.notJudged(
      { data: proxy.source, path: ['service'] },
      `the router forwards ${forwards.ports.join(', ')} to ${forwards.address} (nodeNetwork.forwards); whether the public proxy's Service (${proxy.appName}) holds it is judged where its chart renders`,
    );
  const own = given.filter((g) => g.resource.rendered?.app === proxy.appName);
  // A render of no LoadBalancer Service at all, where the app declares one, is the declaration's finding.
  const app = applicationsByName(ctx.repo).get(proxy.appName);
  if (own.length === 0 && app && requiresLoadBalancer(app)) return;
  const holder = own.find((g) => g.got.asked && g.got.ips.includes(forwards.address));
  const fix = `ask for it in service.annotations (metallb.io/loadBalancerIPs: ${forwards.address})`;
  if (!holder) {
    const gets = own.map((g) => `${g.resource.name} gets ${g.got.ips.join(', ')}${g.got.asked ? '' : ", the allocator's pick of the moment"}`);
    return ctx.fail(
      { data: proxy.source, path: ['service', 'annotations'] },
      `the router forwards ${forwards.ports.join(', ')} to ${forwards.address} (nodeNetwork.forwards), and no LoadBalancer Service of the public proxy (${proxy.appName}) asks MetalLB for it (${gets.join('; ') || 'it renders none MetalLB serves'}): the internet reaches nothing, or whatever holds the address`,
      fix,
    );
  }
  const served = new Set(portsOf(holder.svc));
  const missing = forwards.ports.filter((port) => !served.has(`TCP/${port}`));
  if (missing.length)
    ctx.fail(
      { data: proxy.source, path: ['ports'] },
      `the router forwards ${forwards.ports.join(', ')} to ${forwards.address}, and the public proxy's Service ${holder.resource.name} serves no TCP port ${missing.join(', ')} there: what the router forwards to it is refused`,
      `expose ${missing.join(', ')} on the Service (ports.<name>.exposedPort)`,
    );
}
