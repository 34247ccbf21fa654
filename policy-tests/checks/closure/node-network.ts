/**
 * closure-node-network: what the repository puts on the nodes' network is on
 * it, as the cluster facts' nodeNetwork states it.
 *
 * - MetalLB in layer-2 mode answers ARP for its pool's addresses from a node,
 *   and ARP never crosses the segment: a pool an L2Advertisement announces
 *   must lie in the nodes' subnet, or the router never finds the address the
 *   Service gets. It must also give out no address the segment already uses
 *   (a node, the gateway, the VIP): two hosts answering for one address.
 * - A workload that names a node by its address (TALOS_NODE) names one of the
 *   nodes, with the role the call needs: etcd runs on control-plane nodes only.
 * - A CNI told to reach the API server on the node itself (Cilium's
 *   k8sServiceHost localhost, as Talos documents it) reaches KubePrism, which
 *   listens there only where the machine config turns it on, on its port: else
 *   no agent reaches the API server, and no pod gets a network.
 * - Where Talos runs no kube-proxy, the CNI replaces it, or no Service's
 *   address leads anywhere; and Talos deploys no CNI of its own beside the
 *   one the repository deploys.
 */
import { dig, list } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { cniApplication } from '../../model/cluster/cni-application.ts';
import { scalarText } from '../../model/core/text.ts';
import { addressBlock, advertisedPools, heldBy, parsePoolEntry } from '../../model/cluster/address-pools.ts';
import { ipNetPrefix, ipString } from '../../model/go/net.ts';
import { WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { containerEnvironment } from '../../model/cluster/environment.ts';
import { CLUSTER_FACTS_FILE } from '../../model/repository/cluster-facts.ts';
import { lanHostFindings, LAN_HOST_FIX } from './lan-hosts.ts';
import { namedNodes, NODE_ADDRESS_ENV, nodeRoles, onSegment, reservedAddresses, type NodeNetwork } from '../../model/repository/node-network.ts';

/**
 * Why a pool entry does not fit the segment, or undefined when it does: each CIDR MetalLB reads the entry as lies
 * inside the nodes' subnet and holds no reserved address. An entry MetalLB cannot read is its webhook's to refuse
 * (metallb-webhook), not a place on the network.
 */
function misfit(entry: string, network: NodeNetwork): string | undefined {
  const nets = parsePoolEntry(entry);
  if ('error' in nets) return undefined;
  const subnetBits = Number(network.subnet.split('/')[1]);
  if (!nets.every((n) => onSegment(network, ipString(n.ip)) && ipNetPrefix(n) >= subnetBits))
    return `lies outside the nodes' subnet ${network.subnet}: MetalLB announces it by ARP, which only the nodes' own segment hears, so the router never finds a Service given one of its addresses`;
  const block = addressBlock([entry]);
  for (const [address, what] of reservedAddresses(network))
    if (heldBy(block, address) === 'held') return `holds ${address}, ${what}: MetalLB would hand it to a Service, and two hosts would answer for it`;
  return undefined;
}

/** The hosts a chart may name for the API server that are the node itself, where KubePrism listens. */
const ON_THE_NODE = new Set(['localhost', '127.0.0.1']);

/** Cilium's values that send its agents to the API server on the node, against the machine config's KubePrism. */
function kubePrismFindings(ctx: CheckContext, cilium: readonly ChartValues[]): void {
  const prism = ctx.repo.facts?.machineConfig.kubePrism;
  if (!prism) return;
  for (const v of cilium) {
    const host = v.values.k8sServiceHost;
    if (typeof host !== 'string' || !ON_THE_NODE.has(host)) continue;
    // The chart takes the port as a number or a string; what is left out is no port.
    const port = v.values.k8sServicePort === undefined ? '' : scalarText(v.values.k8sServicePort);
    const at = (key: string) => ({ file: v.file, ...v.source.positions.at([key], 'value') });
    if (!prism.enabled)
      ctx.fail(
        at('k8sServiceHost'),
        `Cilium (${v.appName}) reaches the API server at ${host}:${port} on each node, which is KubePrism, and the cluster facts' machineConfig does not turn it on (machine.features.kubePrism.enabled): nothing listens there, no agent reaches the API server, and no pod gets a network`,
        FIX.kubePrism,
      );
    else if (port !== String(prism.port))
      ctx.fail(
        at(port === '' ? 'k8sServiceHost' : 'k8sServicePort'),
        `Cilium (${v.appName}) reaches the API server at ${host}:${port || '(no port)'} on each node, and KubePrism listens on ${prism.port} (machine.features.kubePrism.port): no agent reaches the API server, and no pod gets a network`,
        FIX.kubePrism,
      );
  }
}

/**
 * Who routes a Service's address where Talos runs no kube-proxy (cluster.proxy.disabled): only a CNI that replaces it,
 * Cilium with kubeProxyReplacement on. Without one, no ClusterIP, NodePort or LoadBalancer address reaches a pod.
 */
function serviceRoutingFindings(ctx: CheckContext, cilium: readonly ChartValues[]): void {
  const facts = ctx.repo.facts;
  if (!facts?.machineConfig.proxyDisabled || !ctx.repo.factsResource) return;
  if (cilium.some((v) => v.values.kubeProxyReplacement === true || v.values.kubeProxyReplacement === 'true')) return;
  const told = cilium.find((v) => v.values.kubeProxyReplacement !== undefined);
  ctx.fail(
    told
      ? { file: told.file, ...told.source.positions.at(['kubeProxyReplacement'], 'value') }
      : { resource: ctx.repo.factsResource, path: ['data', 'machineConfig'] },
    `the cluster facts' machineConfig runs no kube-proxy (cluster.proxy.disabled: true), and ${cilium.length ? "Cilium's kubeProxyReplacement is not on" : 'no Cilium deployed here replaces it'}: nothing routes a Service's address to its pods, so every ClusterIP, NodePort and LoadBalancer address reaches nothing`,
    FIX.proxy,
  );
}

/**
 * One CNI on the nodes: Talos deploys its own (cluster.network.cni.name: Flannel by default, or a custom one's
 * manifests) unless told `none`, which a CNI this repository deploys needs (Talos' Deploying Cilium CNI).
 */
function cniFindings(ctx: CheckContext): void {
  const facts = ctx.repo.facts;
  const resource = ctx.repo.factsResource;
  if (!facts || !resource) return;
  const talos = facts.machineConfig.cni;
  const { name, app } = cniApplication(ctx.repo);
  const at = { resource, path: ['data', 'machineConfig'] };
  // Where the cni fact's CNI is Talos' own, `none` would leave the nodes without any: that contradiction is the cni
  // fact's to answer for (network-policy-enforced holds the fact to the CNI that runs), not judged here.
  if (app && talos !== 'none')
    ctx.fail(
      at,
      `the cluster facts' machineConfig has Talos deploy its own CNI (cluster.network.cni.name: ${talos}${talos === 'flannel' ? ', the default where it names none' : ''}) beside the ${name} Application ${app.name} deploys: two CNIs install their configuration on every node, and which one wires a pod is not decided by git`,
      FIX.cni,
    );
}

/** What mends each cause, printed with its finding (the remediation lists them all). */
const FIX = {
  cni: `tell Talos to deploy no CNI (cluster.network.cni.name: none) where the repository deploys one, and say so in machineConfig in ${CLUSTER_FACTS_FILE}`,
  proxy: `keep kube-proxy (cluster.proxy.disabled: false, Talos' default) or turn on Cilium's kubeProxyReplacement, and say which in machineConfig in ${CLUSTER_FACTS_FILE}`,
  kubePrism: `point k8sServiceHost and k8sServicePort at KubePrism as the machine config runs it (localhost and machine.features.kubePrism.port), and say so in machineConfig in ${CLUSTER_FACTS_FILE}`,
  pool: `keep MetalLB's layer-2 pool (apps/platform/metallb/addresses.yaml) inside nodeNetwork's subnet and clear of its addresses; a fork on another LAN changes nodeNetwork in ${CLUSTER_FACTS_FILE} first`,
  node: `name a node address of nodeNetwork in ${CLUSTER_FACTS_FILE} as TALOS_NODE, a control-plane one where the call needs etcd`,
  host: LAN_HOST_FIX,
} as const;

export const nodeNetworkClosureCheck: PolicyCheck = {
  id: 'closure-node-network',
  description: `What the repository puts on the nodes' network is on it, as nodeNetwork in ${CLUSTER_FACTS_FILE} states it: every IPAddressPool an L2Advertisement announces lies in the nodes' subnet (ARP never leaves the segment) and holds no node, gateway or VIP address; an address a workload names as a node (TALOS_NODE) is a node of the facts, a control-plane node where it asks for etcd; and a CNI sent to the API server on the node itself (Cilium's k8sServiceHost localhost) finds KubePrism there, on, at its port, as machineConfig states it (machine.features.kubePrism); and where machineConfig runs no kube-proxy (cluster.proxy.disabled), Cilium replaces it (kubeProxyReplacement), or no Service address reaches a pod; and Talos deploys no CNI of its own beside one the repository deploys (cluster.network.cni.name: none); and an NFS server a volume names by host name is one of the LAN machines nodeNetwork lists (hosts), or the node cannot resolve it and the mount fails, and so is a machine of the LAN an exporter is sent to probe (a ServiceMonitor target, a Probe target, in the LAN domain or one slip from a listed host), or every scrape of it fails, and so is the host of a URL a container's variable is written with (unpoller's controller URL), or every call there fails (invariants P1, P2, B1).`,
  invariants: ['P1', 'P2', 'B1'],
  remediation: Object.values(FIX).join('; '),
  reads: {
    kinds: withKeyProviders('IPAddressPool', 'L2Advertisement', 'PersistentVolume', 'ServiceMonitor', 'Probe', 'Ingress', ...WORKLOAD_KINDS),
    charts: ['cilium'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    // Cilium's values, merged once for the two rules that read them.
    const cilium = chartValues(ctx.repo, 'cilium');
    kubePrismFindings(ctx, cilium);
    serviceRoutingFindings(ctx, cilium);
    cniFindings(ctx);
    const network = ctx.repo.facts?.nodeNetwork;
    // A missing or malformed fact is the cluster-facts check's finding; nothing here can be judged against it.
    if (!network) return;
    lanHostFindings(ctx, network.hosts);
    const pools = ctx.resources.filter((r) => r.kind === 'IPAddressPool');
    const told = new Set<Resource>();
    for (const advertisement of ctx.resources.filter((r) => r.kind === 'L2Advertisement'))
      for (const pool of advertisedPools(
        advertisement.object.spec,
        pools.filter((p) => p.namespace === advertisement.namespace),
        (p) => dig(p.object, ['metadata', 'labels']),
      )) {
        if (told.has(pool)) continue;
        told.add(pool);
        list(dig(pool.object, ['spec', 'addresses'])).forEach((entry, i) => {
          const why = typeof entry === 'string' ? misfit(entry, network) : undefined;
          if (why)
            ctx.fail(
              { resource: pool, path: ['spec', 'addresses', i] },
              `IPAddressPool ${pool.name}, announced over layer 2 by L2Advertisement ${advertisement.name}: ${String(entry)} ${why}`,
              FIX.pool,
            );
        });
      }
    const roles = nodeRoles(network);
    // Each container's variables as the kubelet sets them: the keys of the Secrets and ConfigMaps its envFrom names too.
    for (const named of namedNodes(ctx.resources, (r, c) => containerEnvironment(ctx, namespaceOrDestination(ctx.repo, r), c.container).entries)) {
      const role = roles.get(named.address);
      const need = NODE_ADDRESS_ENV.get(named.env)!;
      if (role === undefined)
        ctx.fail(
          { resource: named.resource, path: named.at },
          `${named.resource.kind} ${named.resource.name} names ${named.address} as ${named.env}, and no node of nodeNetwork has that address (control plane ${network.controlPlane.join(', ')}; workers ${network.workers.join(', ')}): the call reaches no node`,
          FIX.node,
        );
      else if (role !== need.role)
        ctx.fail(
          { resource: named.resource, path: named.at },
          `${named.resource.kind} ${named.resource.name} names ${named.address} as ${named.env}, which is a ${role} node: ${need.why}`,
          FIX.node,
        );
    }
  },
};
