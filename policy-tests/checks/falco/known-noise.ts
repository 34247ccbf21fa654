/**
 * Known noise is tuned where it is known (S2, S8). An image whose facts say its
 * normal work trips an upstream rule (`trips`: a speaker answering ARP opens a
 * packet socket at every start) posts that rule to the chat channel each time,
 * and a channel that speaks at every restart is one nobody reads when it
 * matters. So every container of such an image is covered by an exemption of
 * that rule scoped to it: its image, its process, its namespace. And a fact
 * can only name a rule the pinned ruleset has.
 */
import { exemptionsOf, namedBy, namesExe, tunedRule, type Exemption, type Named } from '../../model/falco/exemptions.ts';
import { loadFalcoPolicy } from '../../model/falco/policy.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { tuningFiles } from '../../model/falco/tuning.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { dig } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { workloadContainers } from '../../model/core/workloads.ts';
import { IMAGE_FACTS_GLOB, imageKey, repoImageNeeds, tripsAt, type FalcoTrip, type ImageNeeds } from '../../model/repository/image-facts.ts';

/**
 * The exemptions Falco holds once every file is loaded: a macro's `condition: replace` takes the place of every
 * earlier one, so only the last replacement of each hook counts (the README: keep every earlier alternative).
 */
function inForce(exemptions: Exemption[]): Exemption[] {
  const lastReplace = new Map<string, Exemption>();
  for (const e of exemptions) if (e.item.type === 'macro') lastReplace.set(e.item.name, e);
  return exemptions.filter((e) => e.item.type !== 'macro' || lastReplace.get(e.item.name) === e);
}

type Covered = (image: string, namespace: string, trip: FalcoTrip) => boolean;

/**
 * Containers an operator starts at run time (its facts' startedFrom: the CSI sidecars of Rook's image set, the Ceph
 * image of the CephCluster) are held as a workload's are, in the namespace of the resource that names the image; and
 * the resource must still name the image the facts describe, or what they say it trips is about another image.
 */
function startedAtRunTime(ctx: CheckContext, facts: ImageNeeds, covered: Covered): void {
  const { kind, name, path } = facts.startedFrom!;
  const at = path.split('.');
  for (const resource of ctx.resources.filter((r) => r.kind === kind && r.name === name)) {
    const named = scalarText(dig(resource.object, at) ?? '');
    if (imageKey(named) !== facts.image) {
      ctx.fail(
        { resource, path: at },
        `${kind} ${name} names ${named || 'no image'} at ${path}, where the image facts (${facts.file}) say ${facts.image} is started: what they say it trips is about another image, so read the new image's build and move the facts`,
      );
      continue;
    }
    const namespace = namespaceOrDestination(ctx.repo, resource) ?? '';
    for (const trip of facts.trips ?? []) {
      if (tripsAt(trip, named) === false || covered(facts.image, namespace, trip)) continue;
      ctx.fail(
        { resource, path: at },
        `an operator starts ${facts.image} in ${namespace} at run time (${kind} ${name}, ${path}), whose normal work trips "${trip.rule}" as ${trip.process} (${trip.exe}; ${facts.file}), and no exemption of that rule covers it: every start of it posts the rule to the chat channel`,
      );
    }
  }
}

/** Whether an alternative exempts this trip of this image in this namespace. */
function covers(named: Named, image: string, namespace: string, trip: FalcoTrip): boolean {
  return (
    named.images.some((i) => imageKey(i) === image) &&
    (named.processes.length === 0 || named.processes.includes(trip.process)) &&
    (named.exes.length === 0 || named.exes.some((x) => namesExe(x, trip.exe))) &&
    (named.namespaces.length === 0 || named.namespaces.includes(namespace))
  );
}

export const knownNoiseCheck: PolicyCheck = {
  id: 'falco-known-noise-tuned',
  description: `Every container of an image whose facts say its normal work trips an upstream Falco rule (trips, in ${IMAGE_FACTS_GLOB}: the rule, the process, the executable) is covered by an exemption of that rule scoped to its image, process and namespace (of a hook, only its last replacement counts, as Falco loads them); otherwise each start of it posts the rule to the chat channel, and real alerts drown in what is known. Containers an operator starts at run time are held alike, in the namespace of the resource it reads their image from (startedFrom), and that resource still names the image the facts describe. The rule each fact names is one the pinned ruleset has (S2, S8).`,
  invariants: ['S2', 'S8'],
  remediation:
    'add an exemption of the rule for that image, process, executable and namespace to the tuning file, through the rule’s hook (README "Adding an exemption the right way"); or correct the image’s facts',
  reads: {
    kinds: ['*'],
    everyKind:
      'an image’s facts may name any resource an operator reads the image from when it starts its containers at run time (startedFrom: a ConfigMap, a CephCluster)',
    files: ['security/falco/facts/*', IMAGE_FACTS_GLOB],
  },
  exemptible: false,
  run(ctx) {
    const { policy } = loadFalcoPolicy(ctx.repo);
    // Without the policy the tuning checks already fail, each at its cause.
    if (!policy) return;
    const { needs } = repoImageNeeds(ctx.repo);
    const alternatives = inForce(tuningFiles(ctx.repo).flatMap((tuning) => exemptionsOf(tuning, policy))).flatMap((e) =>
      e.clauses.map((clause) => ({ rule: tunedRule(e.item, policy), named: namedBy(clause) })),
    );
    for (const facts of needs.values())
      (facts.trips ?? []).forEach((trip, n) => {
        if (policy.upstream.rules.has(trip.rule)) return;
        ctx.fail(
          { data: ctx.repo.dataFiles.get(facts.file)!, path: ['images', facts.entry, 'trips', n, 'rule'] },
          `${facts.image}: trips ${n + 1} names rule "${trip.rule}", which falco-rules ${policy.upstream.version} does not have: no exemption can be held to it`,
        );
      });
    const covered: Covered = (image, namespace, trip) => alternatives.some((a) => a.rule === trip.rule && covers(a.named, image, namespace, trip));
    for (const facts of needs.values()) if (facts.startedFrom) startedAtRunTime(ctx, facts, covered);
    for (const { resource, c } of workloadContainers(ctx.resources)) {
      const image = imageKey(scalarText(c.container.image ?? ''));
      const namespace = namespaceOrDestination(ctx.repo, resource) ?? '';
      for (const trip of needs.get(image)?.trips ?? []) {
        const trips = tripsAt(trip, scalarText(c.container.image ?? ''));
        if (trips === undefined) {
          ctx.notJudged(
            { resource, path: [...c.at, 'image'] },
            `${image} names no release, so whether it trips "${trip.rule}" (before ${trip.before}) is not known`,
          );
          continue;
        }
        if (!trips) continue;
        if (covered(image, namespace, trip)) continue;
        ctx.fail(
          { resource, path: [...c.at, 'image'] },
          `container ${c.name} runs ${image}, whose normal work trips "${trip.rule}" as ${trip.process} (${trip.exe}; ${needs.get(image)!.file}), and no exemption of that rule covers it in ${namespace}: every start of it posts the rule to the chat channel`,
        );
      }
    }
  },
};
