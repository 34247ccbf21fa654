/**
 * media-gluetun-settings: the VPN container starts with the settings its environment gives it (model/apps/gluetun.ts,
 * against the reference the repository keeps of what gluetun reads). A value gluetun cannot parse, a VPN type or a
 * provider it does not take, a firewall port 0 or an outbound subnet of every address: it exits at start, and the
 * indexer manager and the torrent client in its pod have no network. A variable it never reads (a misspelt
 * FIREWALL_INPUT_PORTS) does nothing: the setting meant is not made. Its server selection and its keys are not judged.
 *
 * Its variables are its env and the keys of the Secrets and ConfigMaps its envFrom names, as the repository writes
 * them (containerEnvironment): a value of a source is judged as an env value is; a key gluetun does not read is held
 * against it only where gluetun's containers alone take the source, by envFrom (one that another container or a
 * volume reads may hold keys for them), and a source whose keys are unknown is said not judged.
 */
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { dig, obj, objects, str, type Obj } from '../../model/core/dig.ts';
import { podRefs, type PodRef } from '../../model/cluster/references.ts';
import { programContainers, runsImage } from '../../model/checks/program-containers.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment } from '../../model/cluster/environment.ts';
import { GLUETUN_IMAGE, GLUETUN_REFERENCE, gluetunProblems, gluetunReference } from '../../model/apps/gluetun.ts';

const REFRESH = 'npm run gluetun:reference -- --from <clone of qdm12/gluetun> --ref <the image tag>';

export const gluetunSettingsCheck: PolicyCheck = {
  id: 'media-gluetun-settings',
  description:
    'The VPN container starts with the settings its environment gives it (its env, and the keys of the Secrets and ConfigMaps its envFrom names), as gluetun reads them at the version it runs (the reference apps/media/gluetun/facts/settings-reference.yaml keeps): each variable one gluetun reads, each value one its reader parses (a boolean word, ports, subnets, durations), a VPN type and a provider it takes for that type, no firewall port 0 and no outbound subnet of every address; otherwise gluetun exits at start and the apps in its pod have no network, or the setting meant does nothing (M31).',
  invariants: ['M31'],
  remediation: `set the variable the finding names as gluetun documents it at the version the image runs; after a gluetun upgrade, refresh ${GLUETUN_REFERENCE} (${REFRESH})`,
  reads: { kinds: withKeyProviders('Deployment', 'StatefulSet', 'DaemonSet'), files: [GLUETUN_REFERENCE] },
  exemptible: false,
  run(ctx) {
    const takesOnlyGluetun = onlyGluetunTakes(ctx);
    const program = { name: 'gluetun', image: GLUETUN_IMAGE, file: GLUETUN_REFERENCE, refresh: REFRESH, what: "gluetun's settings" };
    for (const { workload: w, container, at, name, reference } of programContainers(ctx, program, gluetunReference(ctx.repo))) {
      const { entries, unread } = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, w), container);
      // gluetun reads variables of no common prefix: a source whose keys are unknown may set any of its settings.
      for (const u of unread)
        ctx.notJudged(
          { resource: w, path: [...at, 'envFrom', u.source] },
          `container ${name} takes variables from an envFrom source whose keys the repository does not say: the settings it may set, and the defaults it may override, are not judged`,
        );
      for (const p of gluetunProblems(entries, reference, { whole: unread.length === 0 })) {
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
