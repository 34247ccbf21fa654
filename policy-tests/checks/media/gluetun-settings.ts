/**
 * media-gluetun-settings: the VPN container starts with the settings its environment gives it (model/apps/gluetun.ts,
 * against the reference the repository keeps of what gluetun reads). A value gluetun cannot parse, a VPN type or a
 * provider it does not take, port forwarding for a provider it runs none for (Mullvad), a firewall port 0 or an
 * outbound subnet of every address: it exits at start, and the
 * indexer manager and the torrent client in its pod have no network. A variable it never reads (a misspelt
 * FIREWALL_INPUT_PORTS) does nothing: the setting meant is not made. Its server selection and its keys are not judged.
 *
 * Its variables are its env and the keys of the Secrets and ConfigMaps its envFrom names, as the repository writes
 * them (containerEnvironment): a value of a source is judged as an env value is; a key gluetun does not read is held
 * against it only where gluetun's containers alone take the source, by envFrom (one that another container or a
 * volume reads may hold keys for them), and a source whose keys are unknown is said not judged. And the variables the
 * kubelet adds for each Service of the pod's namespace (its service links, unless the pod turns them off) where
 * gluetun reads their names: gosettings reads an old name before the new one, so a Service named openvpn
 * (OPENVPN_PORT=udp://…) overrides even an OPENVPN_ENDPOINT_PORT the container sets. Said at the Service.
 */
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { serviceIndex } from '../../model/cluster/service-addresses.ts';
import { dig, obj, objects, str, type Obj } from '../../model/core/dig.ts';
import { podRefs, type PodRef } from '../../model/cluster/references.ts';
import { programContainers, runsImage } from '../../model/checks/program-containers.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment, serviceLinkVariables, type GivenVariable } from '../../model/cluster/environment.ts';
import {
  GLUETUN_IMAGE,
  GLUETUN_REFERENCE,
  gluetunNames,
  gluetunProblems,
  gluetunReads,
  gluetunReference,
  type GluetunEnv,
  type GluetunProblem,
  type GluetunReference,
} from '../../model/apps/gluetun.ts';

const REFRESH = 'npm run gluetun:reference -- --from <clone of qdm12/gluetun> --ref <the image tag>';

export const gluetunSettingsCheck: PolicyCheck = {
  id: 'media-gluetun-settings',
  description:
    "The VPN container starts with the settings its environment gives it (its env, the keys of the Secrets and ConfigMaps its envFrom names, and the variables the kubelet links in for each Service of its namespace, which gluetun reads where a Service's name makes one of its settings: a Service named openvpn gives OPENVPN_PORT=udp://<its cluster IP>:1194, read before OPENVPN_ENDPOINT_PORT, unless the pod sets enableServiceLinks to false), as gluetun reads them at the version it runs (the reference apps/media/gluetun/facts/settings-reference.yaml keeps): each variable one gluetun reads, each value one its reader parses (a boolean word, ports, subnets, durations), a VPN type and a provider it takes for that type, port forwarding (VPN_PORT_FORWARDING) only for a provider whose forwarding it runs, no firewall port 0 and no outbound subnet of every address; otherwise gluetun exits at start and the apps in its pod have no network, or the setting meant does nothing (M31).",
  invariants: ['M31'],
  remediation: `set the variable the finding names as gluetun documents it at the version the image runs; after a gluetun upgrade, refresh ${GLUETUN_REFERENCE} (${REFRESH})`,
  reads: { kinds: withKeyProviders('Deployment', 'StatefulSet', 'DaemonSet', 'Service'), files: [GLUETUN_REFERENCE] },
  exemptible: false,
  run(ctx) {
    const takesOnlyGluetun = onlyGluetunTakes(ctx);
    const program = { name: 'gluetun', image: GLUETUN_IMAGE, file: GLUETUN_REFERENCE, refresh: REFRESH, what: "gluetun's settings" };
    for (const { workload: w, container, at, name, reference } of programContainers(ctx, program, gluetunReference(ctx.repo))) {
      const { entries, unread } = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, w), container);
      const links = linkedSettings(ctx, { workload: w, at, entries, reference });
      // gluetun reads variables of no common prefix: a source whose keys are unknown may set any of its settings.
      for (const u of unread)
        ctx.notJudged(
          { resource: w, path: [...at, 'envFrom', u.source] },
          `container ${name} takes variables from an envFrom source whose keys the repository does not say: the settings it may set, and the defaults it may override, are not judged`,
        );
      const given = [...entries, ...links];
      const problems = gluetunProblems(given, reference, { whole: unread.length === 0 });
      reportLinks(ctx, { given, links, problems, reference, who: `container ${name} of ${w.kind} ${w.name}` });
      for (const p of problems) {
        if (p.index !== undefined && p.index >= entries.length) continue;
        // The entry gluetun reads, else the image where its default is at fault.
        const entry = p.index === undefined ? undefined : entries[p.index]!;
        // A key gluetun does not read may be there for another container the same source serves.
        const source = entry?.at[0] === 'envFrom' ? objects(container.envFrom)[entry.at[1]]! : undefined;
        if (source && p.on === 'name' && !takesOnlyGluetun(namespaceOrDestination(ctx.repo, w), source)) continue;
        const path = !entry ? [...at, 'image'] : [...at, ...givenVariablePath(entry, p.on === 'name' || entry.value === undefined ? 'name' : 'value')];
        const from = source && p.on === 'name' ? ` (a key of ${sourceName(source)}, which only gluetun takes)` : '';
        ctx.fail({ resource: w, path }, `container ${name}: ${p.message}${from}`);
      }
    }
  },
};

/** Stands for a Service's cluster IP the API server allocates: any address of the Service network reads alike. */
const STAND_IN = '10.96.0.10';
/** A text that holds the stand-in, as a finding shows it. */
const shown = (text: string) => text.replaceAll(STAND_IN, '<its cluster IP>');

/**
 * The service links (model/cluster/environment.ts' serviceLinkVariables) the VPN container does not set itself whose
 * names gluetun reads (a setting, an old name of one, a default its image sets): gosettings reads an old name before
 * the new one, so a link can even override what the container sets. Each with the Service that makes it and why.
 */
function linkedSettings(
  ctx: CheckContext,
  o: { workload: Resource; at: Path; entries: readonly GivenVariable[]; reference: GluetunReference },
): { name: string; value: string; place: FailurePlace; how: string }[] {
  const namespace = namespaceOrDestination(ctx.repo, o.workload) ?? '';
  const pod = obj(dig(o.workload.object, o.at.slice(0, -2)));
  const own = new Set(o.entries.map((e) => e.name));
  const read = gluetunNames(o.reference);
  return serviceLinkVariables({ services: serviceIndex(ctx.repo, ctx.resources).services, namespace, pod, allocated: STAND_IN })
    .filter((v) => v.service && read.has(v.name) && !own.has(v.name))
    .map((v) => ({
      name: v.name,
      value: v.value,
      // The Service's name is the variable's: renaming it, or enableServiceLinks: false on the pod, ends the link.
      place: { resource: v.service!, path: ['metadata', 'name'] },
      how: `Service ${namespace}/${v.service!.name} gives it ${v.name}=${shown(v.value)} (the kubelet's service links: the pod does not set enableServiceLinks to false)`,
    }));
}

/**
 * A service link gluetun reads: refused (gluetunProblems' words), or taken as the setting, a value nothing in the
 * container sets. Either is said at the Service that makes it.
 */
function reportLinks(
  ctx: CheckContext,
  o: { given: readonly GluetunEnv[]; links: ReturnType<typeof linkedSettings>; problems: readonly GluetunProblem[]; reference: GluetunReference; who: string },
): void {
  const first = o.given.length - o.links.length;
  const say = (index: number, what: string) => ctx.fail(o.links[index - first]!.place, `${o.who}: ${o.links[index - first]!.how}, and ${what}`);
  const refused = new Set(o.problems.map((p) => p.index));
  for (const p of o.problems) if (p.index !== undefined && p.index >= first) say(p.index, shown(p.message));
  for (const [setting, read] of gluetunReads(o.given, o.reference.deprecated, (s) => o.reference.settings[s]?.keepsCase === true))
    if (read.index >= first && !refused.has(read.index))
      say(read.index, `gluetun ${o.reference.version} takes it as its ${setting}, a setting nothing in the container makes`);
}

const sourceName = (source: Obj): string =>
  source.secretRef !== undefined ? `Secret ${str(obj(source.secretRef).name)}` : `ConfigMap ${str(obj(source.configMapRef).name)}`;

/**
 * Whether the Secret or ConfigMap an envFrom entry names is taken by gluetun's containers alone, each through its
 * envFrom: every reference the repository's pods make to it (model/cluster/references.ts podRefs: a volume, another
 * container, a key by name) is one. Then every key of it is meant as one of gluetun's settings.
 */
function onlyGluetunTakes(ctx: CheckContext): (namespace: string | undefined, source: Obj) => boolean {
  // Read the first time a key gluetun does not read is met in a source: most runs meet none.
  let refs: Map<string, PodRef[]> | undefined;
  return (namespace, source) => {
    refs ??= Map.groupBy(podRefs(ctx.repo, ctx.resources), (r) => `${r.kind}/${r.namespace ?? ''}/${r.name}`);
    const [kind, name] = source.secretRef !== undefined ? ['Secret', obj(source.secretRef).name] : ['ConfigMap', obj(source.configMapRef).name];
    const takers = refs.get(`${kind}/${namespace ?? ''}/${str(name)}`) ?? [];
    return (
      takers.length > 0 &&
      takers.every((r) => {
        const cut = r.path.indexOf('envFrom');
        const container = cut > 0 ? obj(dig(r.resource.object, r.path.slice(0, cut))) : undefined;
        return container !== undefined && runsImage(container, GLUETUN_IMAGE);
      })
    );
  };
}
