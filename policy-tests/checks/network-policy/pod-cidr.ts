/**
 * Where Cilium takes pods' addresses from, as its agent and operator read cilium-config (the `ipam` key the chart
 * writes from `ipam.mode`): `kubernetes` takes each node's podCIDR, which the controller manager carves from Talos'
 * podSubnets, the cluster facts' `pods`; `cluster-pool`, the chart's default, takes them from its own list
 * (`cluster-pool-ipv4-cidr`, from `ipam.operator.clusterPoolIPv4PodCIDRList`: 10.0.0.0/8 by default). A pool outside
 * the facts' pod network gives pods addresses nothing in the repository expects: the VPN pod lets the facts' pod and
 * Service networks past its tunnel (FIREWALL_OUTBOUND_SUBNETS), and a pod elsewhere is cut off from it. A pool over
 * the Service network (10.0.0.0/8 holds 10.96.0.0/12) gives a pod an address of a Service. Another mode (multi-pool,
 * a cloud's) is said not judged. Judged on the rendered ConfigMap: offline the chart is not rendered, and counted so.
 */
import { cidrWithin } from '../../model/repository/node-network.ts';
import { cniOf } from '../../model/repository/cni.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { dig, obj } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';

const FIX = "set ipam.mode: kubernetes in apps/platform/cilium/values.yaml (Talos' podSubnets, the facts' pods), or a cluster-pool list inside the facts' pods";

/** Where to point: the values' ipam setting that chose the pool, or the Application that renders the chart with its default. */
function ipamPlace(ctx: CheckContext, config: Resource): FailurePlace {
  const values = chartValues(ctx.repo, 'cilium').find((v) => v.appName === config.rendered?.app);
  const ipam = obj(values?.values).ipam;
  if (values && ipam !== undefined)
    return {
      data: values.source,
      path: dig(ipam, ['operator', 'clusterPoolIPv4PodCIDRList']) !== undefined ? ['ipam', 'operator', 'clusterPoolIPv4PodCIDRList'] : ['ipam'],
    };
  const render = ctx.renders.find((r) => r.app.name === config.rendered?.app && r.source.chart === 'cilium');
  return render ? { resource: render.app.resource, path: [...render.source.at, 'chart'] } : { resource: config, path: ['data', 'ipam'] };
}

export const podCidrCheck: PolicyCheck = {
  id: 'network-policy-pod-cidr',
  description:
    "Cilium gives pods addresses of the cluster facts' pod network (nodeNetwork.pods, Talos' podSubnets): its IPAM, as the rendered cilium-config says it, is kubernetes (each node's podCIDR) or a cluster pool inside that network; the chart's default pool, 10.0.0.0/8, is neither, and holds the Service network too: the VPN pod's firewall and every rule held to the pod network miss the pods, and a pod may take a Service's address. Another IPAM mode is not judged (invariants P1).",
  invariants: ['P1'],
  remediation: FIX,
  reads: { kinds: ['ConfigMap', 'Application'], charts: ['cilium'], renders: true },
  exemptible: false,
  run(ctx) {
    const network = ctx.repo.facts?.nodeNetwork;
    if (cniOf(ctx.repo).name !== 'cilium' || !network) return;
    const { pods, services } = network;
    for (const config of ctx.resources.filter((r) => r.kind === 'ConfigMap' && r.name === 'cilium-config' && r.rendered)) {
      const data = obj(config.object.data);
      const mode = scalarText(data.ipam ?? '');
      if (mode === 'kubernetes') continue;
      if (mode !== 'cluster-pool') {
        ctx.notJudged(
          { resource: config, path: ['data', 'ipam'] },
          `Cilium's IPAM mode ${JSON.stringify(mode)} takes pods' addresses from where the gate does not read`,
        );
        continue;
      }
      const pool = scalarText(data['cluster-pool-ipv4-cidr'] ?? '')
        .split(/[\s,]+/)
        .filter(Boolean);
      for (const cidr of pool.filter((c) => !cidrWithin(c, pods)))
        ctx.fail(
          ipamPlace(ctx, config),
          `Cilium gives pods addresses from ${cidr} (its cluster-pool IPAM${pool.length === 1 && cidr === '10.0.0.0/8' ? ', the chart default' : ''}), outside the cluster facts' pod network ${pods}, which the nodes' podCIDRs come from: the VPN pod's firewall and every rule held to the pod network miss those pods${cidrWithin(services, cidr) ? `, and ${cidr} holds the Service network ${services}, so a pod may take a Service's address` : ''}`,
          FIX,
        );
    }
  },
};
