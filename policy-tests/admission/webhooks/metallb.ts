/**
 * MetalLB's validating webhooks for IPAddressPools and L2Advertisements (v0.16.1, internal/k8s/webhooks/webhookv1beta1:
 * `validateIPAddressPoolCreate`, `validateL2AdvCreate`). An object outside the namespace MetalLB runs in is refused;
 * one inside it joins the list of its kind the API server holds there (listed in name order, a namesake replaced, a
 * new one appended), and the configuration those lists make is parsed as the controller parses it
 * (metallb-config.ts): an advertisement with every pool, a pool with the pools alone. What the parse refuses, the
 * webhook refuses, so of two pools that overlap the one applied second is refused. The repository's objects are taken
 * in the order a sync applies them (its wave, then its name), each one admitted joining the cluster for the next.
 */
import type { Path } from '../../model/core/positions.ts';
import { parseConfig, type MetalLBObject } from './metallb-config.ts';

export type { MetalLBObject } from './metallb-config.ts';

/** The webhook each kind is sent to (charts/metallb/templates/webhooks.yaml). */
export const METALLB_WEBHOOKS: Readonly<Record<MetalLBObject['kind'], string>> = {
  IPAddressPool: 'ipaddresspoolvalidationwebhook.metallb.io',
  L2Advertisement: 'l2advertisementvalidationwebhook.metallb.io',
};

export interface MetalLBRefusal {
  object: MetalLBObject;
  path: Path;
  message: string;
}

/** `ipAddressListWithUpdate` / `l2AdvListWithUpdate`: the list with the object in its namesake's place, or appended. */
function withUpdate(held: readonly MetalLBObject[], o: MetalLBObject): MetalLBObject[] {
  const at = held.findIndex((h) => h.name === o.name);
  return at === -1 ? [...held, o] : held.map((h, i) => (i === at ? o : h));
}

const byName = (a: MetalLBObject, b: MetalLBObject) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** What the webhooks refuse of `applied`, given in the order a sync applies them, into a cluster that held none. */
export function metallbRefusals(applied: readonly MetalLBObject[], metallbNamespace: string): MetalLBRefusal[] {
  const held: Record<MetalLBObject['kind'], MetalLBObject[]> = { IPAddressPool: [], L2Advertisement: [] };
  const out: MetalLBRefusal[] = [];
  for (const o of applied) {
    if (o.namespace !== metallbNamespace) {
      out.push({ object: o, path: ['metadata', 'namespace'], message: `resource must be created in ${metallbNamespace} namespace` });
      continue;
    }
    const candidate = withUpdate(held[o.kind], o);
    const error = o.kind === 'IPAddressPool' ? parseConfig({ pools: candidate, l2Advs: [] }) : parseConfig({ pools: held.IPAddressPool, l2Advs: candidate });
    if (error) out.push({ object: o, path: error.object === o ? error.path : [], message: error.message });
    else held[o.kind] = candidate.sort(byName);
  }
  return out;
}
