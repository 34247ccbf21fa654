/**
 * metallb-webhook: what MetalLB's validating webhooks refuse when Argo CD applies one of its kinds, and what its
 * controller then refuses of the configuration they make together. The repository deploys MetalLB with its webhooks
 * (the chart's default: webhookMode enabled, failurePolicy Fail), which parse the configuration an object makes with
 * what the cluster holds and refuse it where the parse fails (admission/webhooks/metallb.ts): the sync fails. What they
 * admit, the controller reads whole, without their allowances for what is not there yet (a peer's BFD profile, an
 * advertisement's community alias); where that parse fails it keeps its last configuration, and nothing new is given
 * out or announced.
 */
import { applicationsByName, namespaceOrDestination } from '../../model/argocd/argocd.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { waveOf } from '../../model/controller/waves.ts';
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { nodeKinds } from '../../model/scheduling/nodes.ts';
import { discardFRROnly, discardNativeOnly } from '../webhooks/metallb-modes.ts';
import { parseConfig, type MetalLBResources } from '../webhooks/metallb-config.ts';
import { METALLB_VERSIONS, METALLB_WEBHOOKS, metallbVerdicts, type BGPMode, type MetalLBObject } from '../webhooks/metallb.ts';
import { reachesWebhooks } from '../webhooks/reached.ts';

type Kind = MetalLBObject['kind'];
const isKind = (kind: string): kind is Kind => kind in METALLB_WEBHOOKS;
const byWaveThenName = (a: Resource, b: Resource) => waveOf(a) - waveOf(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The BGP implementation the chart runs (its controller's METALLB_BGP_TYPE): frr-k8s by the chart's default, FRR, or native. */
function bgpMode(values: Record<string, unknown>): BGPMode {
  if (dig(values, ['frrk8s', 'enabled']) !== false || dig(values, ['frrk8s', 'external']) === true) return 'frr-k8s';
  return dig(values, ['speaker', 'frr', 'enabled']) === true ? 'frr' : 'native';
}

/** The controller's reading of everything admitted, as it reads it (nothing cleared), in its mode. */
function controllerRefusal(admitted: readonly MetalLBObject[], mode: BGPMode, nodes: MetalLBResources['nodes']) {
  const of = (kind: Kind) => admitted.filter((o) => o.kind === kind);
  const resources: MetalLBResources = {
    pools: of('IPAddressPool'),
    l2Advs: of('L2Advertisement'),
    peers: of('BGPPeer'),
    bfdProfiles: of('BFDProfile'),
    bgpAdvs: of('BGPAdvertisement'),
    communities: of('Community'),
    nodes,
  };
  return (mode === 'native' ? discardFRROnly(resources) : discardNativeOnly(resources)) ?? parseConfig(resources);
}

function judgeAll(ctx: CheckContext, namespace: string, mode: BGPMode): void {
  const reached = reachesWebhooks(ctx.repo.resources);
  const metallb = ctx.resources.filter((r) => r.apiVersion.startsWith('metallb.io/') && isKind(r.kind) && reached(r)).sort(byWaveThenName);
  const asResource = new Map<MetalLBObject, Resource>();
  const applied: MetalLBObject[] = [];
  for (const r of metallb) {
    if (r.apiVersion !== METALLB_VERSIONS[r.kind as Kind]) {
      ctx.notJudged(
        { resource: r, path: ['apiVersion'] },
        `${r.kind} ${r.name}: MetalLB's webhooks judge ${METALLB_VERSIONS[r.kind as Kind]}; ${r.apiVersion} is converted first, which is not ported`,
      );
      continue;
    }
    const o: MetalLBObject = {
      kind: r.kind as Kind,
      name: r.name,
      namespace: namespaceOrDestination(ctx.repo, r),
      labels: dig(r.object, ['metadata', 'labels']) as Record<string, string> | undefined,
      spec: (dig(r.object, ['spec']) ?? {}) as Record<string, unknown>,
    };
    asResource.set(o, r);
    applied.push(o);
  }
  const facts = ctx.repo.facts;
  const nodes = facts ? nodeKinds(facts).map((k) => ({ name: k.name, labels: k.labels as Record<string, unknown> })) : [];
  const refused = new Set<MetalLBObject>();
  for (const v of metallbVerdicts(applied, namespace, mode, nodes)) {
    const r = asResource.get(v.object)!;
    const message = v.message.replaceAll('\n', '; ');
    if (v.warning) {
      ctx.warn({ resource: r, path: v.path }, `${r.kind} ${r.name}: Warning: ${message}`);
      continue;
    }
    refused.add(v.object);
    ctx.fail({ resource: r, path: v.path }, `${r.kind} ${r.name}: admission webhook "${METALLB_WEBHOOKS[v.object.kind]}" denied the request: ${message}`);
  }
  const whole = controllerRefusal(
    applied.filter((o) => !refused.has(o)),
    mode,
    nodes,
  );
  const blamed = whole && asResource.get(whole.object);
  if (whole && blamed)
    ctx.fail(
      { resource: blamed, path: whole.path },
      `${blamed.kind} ${blamed.name}: MetalLB's controller refuses the configuration (${whole.message.replaceAll('\n', '; ')}) and keeps its last one: no address is given out or announced anew`,
    );
}

export const metallbWebhookCheck: PolicyCheck = {
  id: 'metallb-webhook',
  description:
    "Every MetalLB object (IPAddressPool, L2Advertisement, BGPPeer, BGPAdvertisement, BFDProfile, Community) is one MetalLB's validating webhooks admit, where the repository deploys MetalLB with them (v0.16.1): it lies in MetalLB's own namespace, and the configuration it makes with the cluster's other objects parses as the controller parses it: a pool has addresses, each a CIDR Go parses or a range whose start is not after its end, none of its CIDRs overlapping one of a pool applied before it, its service allocation's namespaces and selectors written once and buildable; an advertisement names each pool, peer and community once, its selectors written once and buildable, its aggregation lengths within the family and no shorter than its pools' prefixes, one local preference per kind of update; a peer has its ASNs, one address or interface Go parses, timers that hold, one source of its password; a community parses; in the native BGP mode no FRR-only field, IPv6 pool or large community; in an FRR mode no two peers on one node with different router IDs or local ASNs, nor one peer twice. And the controller's reading of all of them together parses (a peer's BFD profile exists), or it keeps its last configuration; otherwise the sync fails (invariants P1).",
  invariants: ['P1'],
  remediation: 'fix the field the finding names, as MetalLB documents its resources (metallb.io/v1beta1, BGPPeer metallb.io/v1beta2)',
  reads: { kinds: [...Object.keys(METALLB_WEBHOOKS), 'Application'], charts: ['metallb'] },
  exemptible: false,
  run(ctx) {
    // No MetalLB, or its webhooks turned off: nothing refuses these (a pool is then closure-crd's).
    const deployed = chartValues(ctx.repo, 'metallb').find((c) => dig(c.values, ['controller', 'webhookMode']) !== 'disabled');
    const namespace = deployed && applicationsByName(ctx.repo).get(deployed.appName)?.destinationNamespace;
    if (deployed && namespace) judgeAll(ctx, namespace, bgpMode(deployed.values));
  },
};
