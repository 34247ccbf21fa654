/**
 * When Argo CD syncs (P1): an AppProject's sync windows decide the moments at which the controller may sync each
 * of its apps on its own (model/controller/sync-windows.ts). A window Argo CD cannot parse stops every app it matches
 * from syncing; windows that leave an app no moment stop it for good; a window that matches no app does nothing
 * its author meant. An app the windows only hold back for part of the time is a choice, said as a warning with
 * its share of the year, since what the gate judged then reaches the cluster at the next moment they allow. A
 * project that syncs signed commits only is said not judged.
 */
import { applications, type ArgoApp } from '../../model/argocd/argocd.ts';
import {
  breaksCanSync,
  describeWindow,
  heldBack,
  percent,
  syncWindowsOf,
  whenAllowed,
  windowMatches,
  windowProblems,
  windowTarget,
  type HeldBack,
  type SyncWindow,
} from '../../model/controller/sync-windows.ts';
import { globalProjectsOf } from '../../model/controller/projects.ts';
import { ARGOCD_CM_PATCH, argocdSettings } from '../../model/controller/resource-filter.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';

const listed = (names: readonly string[]): string => (names.length === 1 ? `Application ${names[0]}` : `Applications ${names.join(', ')}`);
/** `Application a syncs on its own`, `Applications a, b sync on their own`. */
const syncing = (names: readonly string[], adverb = ''): string => `${listed(names)}${adverb} ${names.length === 1 ? 'syncs on its own' : 'sync on their own'}`;

/** Each window once: what Argo CD cannot read in it, and whether it matches any app of the project. */
function judgeWindow(ctx: CheckContext, project: Resource, w: SyncWindow, members: readonly ArgoApp[]): void {
  const matched = members.filter((a) => windowMatches(w, windowTarget(a.resource))).map((a) => a.name);
  const stops = breaksCanSync(w) && matched.length > 0 ? `; CanSync then fails, and ${syncing(matched, ' never')}` : '';
  for (const { field, problem, stopsSync } of windowProblems(w))
    ctx.fail({ resource: project, path: [...w.at, field] }, `AppProject ${project.name} ${describeWindow(w)}: ${problem}${stopsSync ? stops : ''}`);
  if (matched.length > 0) return;
  const hint = [
    ...w.applications.map((a) =>
      didYouMean(
        a,
        members.map((m) => m.name),
      ),
    ),
    ...w.namespaces.map((n) =>
      didYouMean(
        n,
        members.map((m) => m.destinationNamespace ?? ''),
      ),
    ),
  ].find((h) => h !== '');
  const says = w.applications.length + w.namespaces.length + w.clusters.length === 0 ? 'it names no application, namespace or cluster, so it' : 'it';
  ctx.fail(
    { resource: project, path: w.at },
    `AppProject ${project.name} ${describeWindow(w)} matches no Application of the project: ${says} holds nothing back${hint ?? ''}`,
  );
}

/** The apps under the same windows, judged together: never syncing fails, syncing part of the time is said. */
function judgeApps(ctx: CheckContext, project: Resource, windows: readonly SyncWindow[], members: readonly ArgoApp[]): void {
  const groups = new Map<string, { names: string[]; held: HeldBack }>();
  for (const app of members) {
    const held = heldBack(windows, app.resource);
    if (!held) continue;
    const key = held.matched.map((w) => `${w.project.name}#${w.index}`).join(',');
    const group = groups.get(key) ?? { names: [], held };
    group.names.push(app.name);
    groups.set(key, group);
  }
  for (const { names, held } of groups.values()) {
    const { matched, share } = held;
    if (share === 'broken') continue; // failed at the window, which names these apps
    const place = matched.length === 1 ? { resource: matched[0]!.project, path: matched[0]!.at } : { resource: project, path: ['spec', 'syncWindows'] };
    const which = matched.map(describeWindow).join(' and ');
    if (share === 'unknown') ctx.notJudged(place, `when ${listed(names)} may sync under ${which}: a TZ= prefix on a schedule is not worked out`);
    else if (share === 0) ctx.fail(place, `${syncing(names, ' never')}: ${which} leave the controller no moment to sync in`);
    else
      ctx.warn(
        place,
        `${syncing(names)} only ${whenAllowed(matched)}, ${percent(share)} of the time: a change merged while the windows hold it back reaches the cluster at the next moment they allow`,
      );
  }
}

/**
 * A project that asks for signed commits (signatureKeys, or sourceIntegrity in Argo CD 3.5) has the repo-server
 * verify each commit's GPG signature before it renders: an unsigned or foreign-signed main is never synced. The gate
 * reads a working tree, and a signature is not in it.
 */
function signedCommitsOnly(ctx: CheckContext, project: Resource): void {
  for (const field of ['signatureKeys', 'sourceIntegrity']) {
    const value = dig(project.object, ['spec', field]);
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    ctx.notJudged(
      { resource: project, path: ['spec', field] },
      `AppProject ${project.name} has Argo CD sync only commits signed by the keys its ${field} names; whether main's commits are signed so is not judged`,
    );
  }
}

export const argocdSyncWindowsCheck: PolicyCheck = {
  id: 'argocd-sync-windows',
  description:
    "Argo CD's controller gets to sync every app on its own: each sync window of an AppProject (and of the global projects argocd-cm's globalProjects gives it, which hold its apps too) is one Argo CD reads (allow or deny, a five-field schedule, a Go duration, a zone Go's time.LoadLocation finds) and matches an Application of the project, and the windows over an app leave it time to sync, judged over a leap year; an app they hold back part of the time is said, with its share; a project that syncs signed commits only is not judged (invariants P1).",
  invariants: ['P1'],
  remediation:
    'write the window as Argo CD reads it (kind allow or deny, schedule "0 22 * * *", duration "8h"; no days, no @daily), name the applications, namespaces or clusters it is for, and leave each app time to sync',
  reads: { kinds: ['AppProject', 'Application', 'ConfigMap'], files: [ARGOCD_CM_PATCH] },
  exemptible: false,
  run(ctx) {
    const apps = applications(ctx.repo);
    const projects = ctx.resources.filter((r) => r.kind === 'AppProject');
    const argocdCm = argocdSettings(ctx.resources, ctx.repo)?.data;
    // The controller asks the virtual project: a global project's windows hold the apps of every project it is given to.
    const globals = new Map(projects.map((p) => [p, globalProjectsOf(p, projects, argocdCm)]));
    for (const project of projects) {
      signedCommitsOnly(ctx, project);
      const own = syncWindowsOf(project);
      const windows = [...own, ...globals.get(project)!.flatMap(syncWindowsOf)];
      if (windows.length === 0) continue;
      const members = apps.filter((a) => a.project === project.name);
      const heldBy = projects.filter((p) => p === project || globals.get(p)!.includes(project)).map((p) => p.name);
      for (const w of own)
        judgeWindow(
          ctx,
          project,
          w,
          apps.filter((a) => heldBy.includes(a.project)),
        );
      judgeApps(ctx, project, windows, members);
    }
  },
};
