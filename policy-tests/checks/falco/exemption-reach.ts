/**
 * An exemption must be able to act (S8): it names what its image does, where
 * the rule looks.
 *
 * What the image does: an alternative that names an image exempts only what
 * that image's facts say its normal work trips (`trips`: the rule, the process
 * and its executable, read from the image's build). One that names a process
 * the image never runs, or a rule it never trips, exempts nothing today and
 * reads as if something noisy were known and tamed; worse, it would silently
 * exempt whatever later runs under that name.
 *
 * Where the rule looks: "Drop and execute new binary in container" and any
 * rule like it fire only for an executable in the container's overlay upper
 * layer, a file written into the container's own filesystem. A binary on a
 * volume never trips them, so an exemption by a path that lies on a volume in
 * every container of the image exempts nothing.
 */
import type { Expr } from '../../model/falco/expr.ts';
import { exemptionsOf, namedBy, namesExe, tunedRule, type Named } from '../../model/falco/exemptions.ts';
import type { TuningItem } from '../../model/falco/tuning.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { scalarText } from '../../model/core/text.ts';
import { WORKLOAD_KINDS, workloadContainers } from '../../model/core/workloads.ts';
import { mountedFile } from '../../model/cluster/mounted-files.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { IMAGE_FACTS_GLOB, imageKey, repoImageNeeds, tripsAt } from '../../model/repository/image-facts.ts';
import { forEachTuning, type Fail } from './tuning-checks.ts';
import type { TuningFile } from '../../model/falco/tuning.ts';

/** One alternative of one exemption, with what it names and how a finding points at it. */
interface Alternative {
  item: TuningItem;
  named: Named;
  /** The upstream rule it tunes, when the tuning policy knows it. */
  rule: string | undefined;
  /** " (alternative 2)" where the exemption has several. */
  where: string;
  fail: (message: string) => void;
  /** Where the alternative stands, for what is not judged. */
  place: FailurePlace;
}

function alternativesOf(tuning: TuningFile, exemption: { item: TuningItem; clauses: Expr[] }, rule: string | undefined, fail: Fail): Alternative[] {
  const { item, clauses } = exemption;
  return clauses.map((clause, n) => ({
    item,
    named: namedBy(clause),
    rule,
    where: clauses.length > 1 ? ` (alternative ${n + 1})` : '',
    fail: (message) => fail(tuning, [item.index, 'condition'], message),
    place: { file: tuning.file, ...tuning.at([item.index, 'condition']) },
  }));
}

type Running = ReturnType<typeof workloadContainers> extends Iterable<infer R> ? R : never;

/** Every workload container by the image it runs (imageKey): one pass over the resources for all alternatives. */
function containersByImage(ctx: CheckContext): Map<string, Running[]> {
  const byImage = new Map<string, Running[]>();
  for (const running of workloadContainers(ctx.resources)) {
    const key = imageKey(scalarText(running.c.container.image ?? ''));
    const list = byImage.get(key);
    if (list) list.push(running);
    else byImage.set(key, [running]);
  }
  return byImage;
}

/** The containers that run an image the alternative names, in the namespaces it names (any, if none). */
function runningIt(ctx: CheckContext, byImage: Map<string, Running[]>, alt: Alternative, image: string): Running[] {
  return (byImage.get(imageKey(image)) ?? []).filter(
    ({ resource }) => alt.named.namespaces.length === 0 || alt.named.namespaces.includes(namespaceOrDestination(ctx.repo, resource) ?? ''),
  );
}

/**
 * An image the alternative names is exempted only of a process and executable its facts say trip the rule, in a
 * release some container of it runs.
 */
function heldToFacts(ctx: CheckContext, alt: Alternative, image: string, running: Running[]): void {
  const label = `${alt.item.type} "${alt.item.name}"${alt.where}`;
  if (alt.rule === undefined)
    return ctx.notJudged(
      alt.place,
      `${label} names ${image}, but which rule that hook tunes is not in the tuning policy, so whether ${image} trips it is not read`,
    );
  const facts = repoImageNeeds(ctx.repo).needs.get(imageKey(image));
  const trips = (facts?.trips ?? []).filter((t) => t.rule === alt.rule);
  const said = facts ? `its image facts (${facts.file}) say it trips no "${alt.rule}"` : `no image facts (${IMAGE_FACTS_GLOB}) say it trips "${alt.rule}"`;
  if (trips.length === 0) return alt.fail(`${label} exempts ${image}, but ${said}: the alternative exempts what nothing has read the image to do`);
  const images = running.map(({ c }) => scalarText(c.container.image ?? ''));
  if (running.length > 0 && !trips.some((t) => images.some((i) => tripsAt(t, i) !== false)))
    return alt.fail(
      `${label} exempts ${image}, whose facts (${facts!.file}) say it trips "${alt.rule}" only before ${trips.map((t) => t.before).join(', ')}, and every container that runs it runs a later release (${[...new Set(images)].join(', ')}): the alternative exempts nothing`,
    );
  const known = trips.map((t) => `${t.process} (${t.exe})`).join(', ');
  for (const process of alt.named.processes.filter((p) => !trips.some((t) => t.process === p)))
    alt.fail(`${label} exempts process ${process} in ${image}, which trips "${alt.rule}" only as ${known} (${facts!.file}): the alternative exempts nothing`);
  for (const exe of alt.named.exes.filter((x) => !trips.some((t) => namesExe(x, t.exe))))
    alt.fail(
      `${label} exempts ${exe.prefix ? 'executables under ' : ''}${exe.value} in ${image}, which trips "${alt.rule}" only as ${known} (${facts!.file}): the alternative exempts nothing`,
    );
}

/**
 * Falco's proc.name is the kernel's task comm: the executable's name cut to 15 characters (TASK_COMM_LEN, 16 with
 * its NUL). A longer name is never seen, so an alternative that names one never matches.
 */
export const COMM_LENGTH = 15;

function nameSeen(alt: Alternative): void {
  for (const process of alt.named.processes.filter((p) => p.length > COMM_LENGTH))
    alt.fail(
      `${alt.item.type} "${alt.item.name}"${alt.where} exempts proc.name ${process}, which Falco never sees: proc.name is the kernel's comm, cut to ${COMM_LENGTH} characters (${process.slice(0, COMM_LENGTH)}), so the alternative exempts nothing`,
    );
}

/** A rule that watches only the upper layer never sees a path that lies on a volume in every container of the image. */
function seenByTheRule(ctx: CheckContext, alt: Alternative, image: string, running: Running[]): void {
  // A path under no volume mount is the image's own filesystem (mountedFile), where the rule looks.
  const onVolume = (path: string) =>
    running.every(
      ({ resource, pod, c }) =>
        mountedFile({ repo: ctx.repo, resources: ctx.resources }, { spec: pod.spec, namespace: resource.namespace }, c.container, path).on !== 'image',
    );
  const dead = running.length === 0 ? [] : alt.named.exes.map((x) => x.value).filter(onVolume);
  if (dead.length > 0)
    alt.fail(
      `macro "${alt.item.name}"${alt.where} exempts ${dead.join(', ')} in ${image}, which lies on a volume in every container that runs it (${running.map(({ resource, c }) => `${resource.name}/${c.name}`).join(', ')}): "${alt.rule}" fires only for an executable in the container's own filesystem, so the alternative exempts nothing`,
    );
}

export const exemptionReachCheck: PolicyCheck = {
  id: 'falco-exemption-reachable',
  description:
    'An exemption can act: each alternative names a process as Falco sees it (proc.name is the kernel’s comm, 15 characters at most); each alternative that names an image exempts only a rule, a process (proc.name) and an executable (proc.exepath) that the image’s facts say its normal work trips (trips, read from its build), in a release some container of it runs, and an exemption of a rule that fires only for an executable in the container’s own filesystem (the overlay upper layer: "Drop and execute new binary in container", upperLayerRules in the tuning policy) names a path that rule can see, not one that lies on a volume in every container of the image. Otherwise it exempts nothing today, and later whatever runs under that name (S8).',
  invariants: ['S8'],
  remediation:
    'remove the alternative; or name the process and executable the alert reports (proc.name, proc.exepath), in the container’s own filesystem, and record in the image’s facts which rule its normal work trips, as which process and executable, and where in its build that is read',
  reads: { kinds: ['ConfigMap', 'Application', ...WORKLOAD_KINDS], files: ['security/falco/facts/*', IMAGE_FACTS_GLOB] },
  exemptible: false,
  run(ctx) {
    const byImage = containersByImage(ctx);
    forEachTuning(ctx, (tuning, policy, fail) => {
      for (const exemption of exemptionsOf(tuning, policy)) {
        const rule = tunedRule(exemption.item, policy);
        // An append to a rule the policy does not list is refused whole by falco-hooks-only.
        if (exemption.item.type === 'rule' && rule === undefined) continue;
        const upperLayer = exemption.item.type === 'macro' && rule !== undefined && policy.upperLayerRules.includes(rule);
        for (const alt of alternativesOf(tuning, exemption, rule, fail)) {
          nameSeen(alt);
          for (const image of alt.named.images) {
            const running = runningIt(ctx, byImage, alt, image);
            heldToFacts(ctx, alt, image, running);
            if (upperLayer) seenByTheRule(ctx, alt, image, running);
          }
        }
      }
    });
  },
};
