/**
 * MetalLB's validating webhooks (v0.16.1, internal/k8s/webhooks: `validateIPAddressPoolCreate`, `validateL2AdvCreate`,
 * `validatePeerCreate`, `validateBGPAdvCreate`, `validateCommunityCreate`, `validateBFDCreate`). An object outside the
 * namespace MetalLB runs in is refused; one inside it joins the list of its kind the API server holds there (listed in
 * name order, a namesake replaced, a new one appended), and the configuration that list makes with the lists its
 * webhook reads beside it is parsed as the controller parses it (metallb-config.ts), after the BGP mode's own checks
 * (native: `DiscardFRROnly`; FRR and frr-k8s: `DiscardNativeOnly`) and with the fields that may name what is not there yet cleared
 * (`resetTransientErrorsFields`: a peer's BFD profile and password Secret, an advertisement's community aliases). What
 * the parse refuses, the webhook refuses, so of two pools that overlap the one applied second is refused. A BFD
 * profile's webhook asks only its namespace; a peer with disableMP is admitted with a warning and not parsed. The
 * repository's objects are taken in the order a sync applies them (its wave, then its name), each one admitted joining
 * the cluster for the next.
 */
import type { Path } from '../../model/core/positions.ts';
import { discardFRROnly, discardNativeOnly } from './metallb-modes.ts';
import { parseConfig, type MetalLBResources } from './metallb-config.ts';
import type { MetalLBObject } from './metallb-selectors.ts';

export type { MetalLBObject } from './metallb-selectors.ts';

type Kind = MetalLBObject['kind'];

/** The webhook each kind is sent to (charts/metallb/templates/webhooks.yaml). */
export const METALLB_WEBHOOKS: Readonly<Record<Kind, string>> = {
  IPAddressPool: 'ipaddresspoolvalidationwebhook.metallb.io',
  L2Advertisement: 'l2advertisementvalidationwebhook.metallb.io',
  BGPPeer: 'bgppeervalidationwebhook.metallb.io',
  BGPAdvertisement: 'bgpadvertisementvalidationwebhook.metallb.io',
  BFDProfile: 'bfdprofilevalidationwebhook.metallb.io',
  Community: 'communityvalidationwebhook.metallb.io',
};

/** The API version each kind's webhook is registered for. */
export const METALLB_VERSIONS: Readonly<Record<Kind, string>> = {
  IPAddressPool: 'metallb.io/v1beta1',
  L2Advertisement: 'metallb.io/v1beta1',
  BGPPeer: 'metallb.io/v1beta2',
  BGPAdvertisement: 'metallb.io/v1beta1',
  BFDProfile: 'metallb.io/v1beta1',
  Community: 'metallb.io/v1beta1',
};

/** The BGP implementation the speakers run (the chart's frr and frrk8s values), which picks the mode's own checks. */
export type BGPMode = 'native' | 'frr' | 'frr-k8s';

export interface MetalLBVerdict {
  object: MetalLBObject;
  path: Path;
  message: string;
  warning?: boolean;
}

/** `ipAddressListWithUpdate` and its kin: the list with the object in its namesake's place, or appended. */
function withUpdate(held: readonly MetalLBObject[], o: MetalLBObject): MetalLBObject[] {
  const at = held.findIndex((h) => h.name === o.name);
  return at === -1 ? [...held, o] : held.map((h, i) => (i === at ? o : h));
}

const byName = (a: MetalLBObject, b: MetalLBObject) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** resetTransientErrorsFields: what a peer or an advertisement may name before it exists, cleared. */
const reset = {
  peer: (p: MetalLBObject): MetalLBObject => ({ ...p, spec: { ...p.spec, bfdProfile: '', passwordSecret: {} } }),
  adv: (a: MetalLBObject): MetalLBObject => ({
    ...a,
    spec: { ...a.spec, communities: (Array.isArray(a.spec.communities) ? a.spec.communities : []).filter((c: unknown) => String(c).includes(':')) },
  }),
};

/** What one webhook hands the validator: the kind's list with the object, and the lists it reads beside it. */
function resourcesFor(o: MetalLBObject, held: Readonly<Record<Kind, MetalLBObject[]>>, nodes: MetalLBResources['nodes']): MetalLBResources {
  const mine = withUpdate(held[o.kind], o);
  if (o.kind === 'IPAddressPool') return { pools: mine, l2Advs: [] };
  if (o.kind === 'L2Advertisement') return { pools: held.IPAddressPool, l2Advs: mine };
  if (o.kind === 'BGPPeer') return { pools: [], l2Advs: [], peers: mine.map(reset.peer), nodes };
  if (o.kind === 'BGPAdvertisement') return { pools: held.IPAddressPool, l2Advs: [], bgpAdvs: mine.map(reset.adv), nodes };
  return { pools: [], l2Advs: [], communities: mine };
}

/** One webhook's verdict on one object, given what the cluster holds. */
function judge(o: MetalLBObject, held: Readonly<Record<Kind, MetalLBObject[]>>, mode: BGPMode, nodes: MetalLBResources['nodes']): MetalLBVerdict | undefined {
  if (o.kind === 'BGPPeer' && o.spec.disableMP === true)
    return { object: o, path: ['spec', 'disableMP'], message: "disable mp is deprecated and has no effect since it's the default behavior now", warning: true };
  if (o.kind === 'BFDProfile') return undefined;
  const resources = resourcesFor(o, held, nodes);
  const modeError = mode === 'native' ? discardFRROnly(resources) : discardNativeOnly(resources);
  const error = modeError ?? parseConfig(resources);
  if (!error) return undefined;
  return { object: o, path: error.object.name === o.name && error.object.kind === o.kind ? error.path : [], message: error.message };
}

/** What the webhooks refuse (and warn of) of `applied`, given in the order a sync applies them, into a cluster that held none. */
export function metallbVerdicts(
  applied: readonly MetalLBObject[],
  metallbNamespace: string,
  mode: BGPMode,
  nodes?: MetalLBResources['nodes'],
): MetalLBVerdict[] {
  const held: Record<Kind, MetalLBObject[]> = { IPAddressPool: [], L2Advertisement: [], BGPPeer: [], BGPAdvertisement: [], BFDProfile: [], Community: [] };
  const out: MetalLBVerdict[] = [];
  for (const o of applied) {
    if (o.namespace !== metallbNamespace && !(o.kind === 'BGPPeer' && o.spec.disableMP === true)) {
      out.push({ object: o, path: ['metadata', 'namespace'], message: `resource must be created in ${metallbNamespace} namespace` });
      continue;
    }
    const verdict = judge(o, held, mode, nodes);
    if (verdict) out.push(verdict);
    if (!verdict || verdict.warning) held[o.kind] = withUpdate(held[o.kind], o).sort(byName);
  }
  return out;
}
