/**
 * Who may write the share (M1, M2, M6). The apps reach it over NFS, which
 * checks each folder's mode bits against the user and groups the client
 * sends: a library root the apps' user may not write is refused at the first
 * import, and the API server never sees it.
 */
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { podSpecOf, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import { IMAGE_FACTS_GLOB, imageKey, repoImageNeeds } from '../../model/repository/image-facts.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { containerEnvironment, fromSecret } from '../../model/cluster/environment.ts';
import { appRunAs, mayWriteIn, type Ownership, type RunAs } from '../../model/repository/run-as.ts';
import { folderTable, foldersList, MEDIA_FACTS, MEDIA_NAMESPACES, mountsOf, withFacts } from './media.ts';

/** One container that mounts the share writable, with the folders of the table it sees. */
interface Writer {
  resource: Resource;
  name: string;
  at: (string | number)[];
  runAs: RunAs;
  sees: string[];
}

/** The table's folders a mount of the share shows: all of them, or those under its subPath. */
const seenThrough = (folders: readonly string[], mountPath: string, subPath: string | undefined): string[] =>
  subPath ? folders.filter((f) => f === `${mountPath}/${subPath}` || f.startsWith(`${mountPath}/${subPath}/`)) : [...folders];

function writersOf(ctx: CheckContext, share: { claim: string; mountPath: string }, folders: readonly string[]): Writer[] {
  const { needs } = repoImageNeeds(ctx.repo);
  const writers: Writer[] = [];
  for (const resource of ctx.resources.filter((r) => MEDIA_NAMESPACES.has(r.namespace ?? ''))) {
    const pod = podSpecOf(resource);
    if (!pod) continue;
    for (const m of mountsOf(resource).filter((m) => m.claim === share.claim && !m.readOnly)) {
      const image = scalarText(m.container.container.image ?? '');
      const environment = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, resource), m.container.container, { secretText: true });
      const answer = appRunAs(pod, m.container, {
        image,
        need: needs.get(imageKey(image)),
        variable: environment.text,
        fromSecret: (name) => fromSecret(environment.setting(name)),
      });
      const at = [...m.container.at, 'volumeMounts', m.index];
      if ('unknown' in answer) ctx.notJudged({ resource, path: at }, `whether ${m.container.name} may write the share: ${answer.unknown}`);
      else writers.push({ resource, name: m.container.name, at, runAs: answer.runAs, sees: seenThrough(folders, share.mountPath, m.subPath) });
    }
  }
  return writers;
}

/** The user a writer runs as, for a message: never ids a Secret holds. */
const uidShown = (r: RunAs): string => (r.secret ? 'the uid its Secret holds' : `uid ${r.uid}`);
const described = (r: RunAs): string => (r.secret ? `${r.by}` : `uid ${r.uid}${r.gids.length ? `, groups ${r.gids.join(',')}` : ''}, by ${r.by}`);
const ownership = (o: Ownership): string => `${o.mode} ${o.owner}`;

export const shareAccessCheck: PolicyCheck = {
  id: 'media-share-writable',
  description:
    'Every app that mounts the share writable may create entries in each folder of the storage table it sees, by the mode and owner the PreSync job gives it, as the user it runs as (its runAsUser and groups, or the PUID/PGID its image’s init drops to, from its env or the Secrets and ConfigMaps its envFrom names; NFS checks the mode against them); and every such app but root runs as one user, since each writes into what another made, under the 755 and 644 of a umask 022: a hardlinked import of a download, a subtitle beside a film, a transcode in place of the original, an archive unpacked beside its torrent (M1, M2, M6).',
  invariants: ['M1', 'M2', 'M6'],
  remediation:
    'give the folder in the media-folders ConfigMap an owner or a group the apps run as, with write for it (775), or run the app as the share’s other writers run; a folder only the operator fills is listed under filledByHand in apps/media/facts/media.yaml',
  reads: { kinds: withKeyProviders(...WORKLOAD_KINDS), files: [MEDIA_FACTS, IMAGE_FACTS_GLOB] },
  exemptible: false,
  run(ctx) {
    withFacts(ctx, ({ share, folders, filledByHand }) => {
      const list = foldersList(ctx.resources);
      if (!list) return; // media-folders-prepared reports the missing table
      const table = folderTable(list);
      const byHand = new Set(filledByHand ?? []);
      const written = folders.filter((f) => !byHand.has(f) && table.has(f));
      const writers = writersOf(ctx, share, written);
      for (const w of writers) {
        const verdicts = new Map(w.sees.map((folder) => [folder, mayWriteIn(w.runAs, table.get(folder)!)]));
        const refused = w.sees.filter((folder) => verdicts.get(folder) === false);
        if (refused.length > 0)
          ctx.fail(
            { resource: w.resource, path: w.at },
            `${w.name} runs as ${described(w.runAs)}, and may not write ${refused.map((f) => `${f} (${ownership(table.get(f)!)})`).join(', ')}, as media-folders makes them: every file it must put there is refused`,
          );
        for (const folder of w.sees.filter((f) => verdicts.get(f) === undefined))
          ctx.notJudged(
            { resource: w.resource, path: w.at },
            `whether ${w.name} may write ${folder} (${ownership(table.get(folder)!)}) turns on the primary group its image gives ${uidShown(w.runAs)}, which the repository does not state`,
          );
      }
      // The user most writers run as is the share's; each other one is named where it is set.
      const users = writers.filter((w) => w.runAs.uid !== 0).map((w) => w.runAs.uid);
      const common = users.toSorted((a, b) => users.filter((u) => u === b).length - users.filter((u) => u === a).length)[0];
      for (const w of writers.filter((w) => w.runAs.uid !== 0 && w.runAs.uid !== common))
        ctx.fail(
          { resource: w.resource, path: w.at },
          `${w.name} runs as ${uidShown(w.runAs)} (${w.runAs.by}), and the share's other writers as ${writers.some((o) => o.runAs.uid === common && !o.runAs.secret) ? common : 'another uid'}: what they make (755, 644) it cannot change, and what it makes they cannot`,
        );
    });
  },
};
