/**
 * metallb-webhook: what MetalLB's validating webhooks refuse when Argo CD applies an IPAddressPool or an
 * L2Advertisement. The repository deploys MetalLB with its webhooks (the chart's default: webhookMode enabled,
 * failurePolicy Fail), which parse the configuration the object makes with the rest of the cluster's and refuse it
 * where the parse fails (admission/webhooks/metallb.ts): the sync fails, and no Service gets an address from the pool.
 * Its BGP kinds' rules are not ported: a BGPPeer, BGPAdvertisement, BFDProfile or Community is said not judged.
 */
import { applicationsByName, namespaceOrDestination } from '../../model/argocd/argocd.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { waveOf } from '../../model/controller/waves.ts';
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { METALLB_WEBHOOKS, metallbRefusals, type MetalLBObject } from '../webhooks/metallb.ts';
import { reachesWebhooks } from '../webhooks/reached.ts';

const BGP_KINDS = new Set(['BGPPeer', 'BGPAdvertisement', 'BFDProfile', 'Community']);
const isPorted = (kind: string): kind is MetalLBObject['kind'] => kind in METALLB_WEBHOOKS;

export const metallbWebhookCheck: PolicyCheck = {
  id: 'metallb-webhook',
  description:
    "Every IPAddressPool and L2Advertisement is one MetalLB's validating webhooks admit, where the repository deploys MetalLB with them (v0.16.1): it lies in MetalLB's own namespace, and the configuration it makes with the cluster's other pools and advertisements parses as the controller parses it: a pool has addresses, each a CIDR Go parses or a range of two addresses whose start is not after its end, none of its CIDRs overlapping one of a pool applied before it, namespaces and selectors to allocate to written once each and each selector one Kubernetes builds; an advertisement names each pool once and writes each pool, node and service selector once and buildable; otherwise the sync fails and no Service gets an address from the pool (invariants P1).",
  invariants: ['P1'],
  remediation: 'fix the field the finding names, as MetalLB documents IPAddressPool and L2Advertisement (metallb.io/v1beta1)',
  reads: { kinds: ['IPAddressPool', 'L2Advertisement', ...BGP_KINDS, 'Application'], charts: ['metallb'] },
  exemptible: false,
  run(ctx) {
    // No MetalLB, or its webhooks turned off: nothing refuses these (a pool is then closure-crd's).
    const deployed = chartValues(ctx.repo, 'metallb').find((c) => dig(c.values, ['controller', 'webhookMode']) !== 'disabled');
    const namespace = deployed && applicationsByName(ctx.repo).get(deployed.appName)?.destinationNamespace;
    if (!namespace) return;
    const reached = reachesWebhooks(ctx.repo.resources);
    const metallb = ctx.resources.filter((r) => r.apiVersion.startsWith('metallb.io/') && reached(r));
    for (const r of metallb.filter((m) => BGP_KINDS.has(m.kind)))
      ctx.notJudged({ resource: r, path: ['spec'] }, `${r.kind} ${r.name}: MetalLB's validation of a ${r.kind} is not ported`);
    const ported = metallb.filter((r) => r.apiVersion === 'metallb.io/v1beta1' && isPorted(r.kind));
    const inSyncOrder = [...ported].sort((a, b) => waveOf(a) - waveOf(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const asObject = new Map<MetalLBObject, Resource>();
    const applied = inSyncOrder.map((r) => {
      const o: MetalLBObject = {
        kind: r.kind as MetalLBObject['kind'],
        name: r.name,
        namespace: namespaceOrDestination(ctx.repo, r),
        labels: dig(r.object, ['metadata', 'labels']) as Record<string, string> | undefined,
        spec: (dig(r.object, ['spec']) ?? {}) as Record<string, unknown>,
      };
      asObject.set(o, r);
      return o;
    });
    for (const refusal of metallbRefusals(applied, namespace)) {
      const r = asObject.get(refusal.object)!;
      const message = refusal.message.replaceAll('\n', '; ');
      ctx.fail(
        { resource: r, path: refusal.path },
        `${r.kind} ${r.name}: admission webhook "${METALLB_WEBHOOKS[refusal.object.kind]}" denied the request: ${message}`,
      );
    }
  },
};
