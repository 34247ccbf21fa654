/**
 * Argo CD's order: the root app applies the Application objects (and the
 * namespaces, projects and facts in clusters/home) wave by wave, and with the
 * Application health customization each wave waits until its apps are
 * Healthy. So a resource's place is its app's wave in the root app, then its
 * own wave inside its app; a resource of the root app itself has only its own.
 */
import { applications, owningApplication, ROOT_APP_FILE, type ArgoApp } from './argocd.ts';
import type { Resource } from './manifest.ts';
import { perRepo } from './per-repo.ts';
import type { Repo } from './repo.ts';

export const WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';
export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';

const annotations = (r: Resource) => (r.object.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations ?? {};

/** A resource's own sync wave (0 when it names none). */
export function waveOf(r: Resource): number {
  const raw = annotations(r)[WAVE_ANNOTATION];
  const n = typeof raw === 'string' ? Number(raw.trim()) : 0;
  return Number.isFinite(n) ? n : 0;
}

/** Whether a resource asks Argo CD to skip its dry run while its CRD does not exist yet. */
export function skipsDryRunOnMissingResource(r: Resource): boolean {
  const raw = annotations(r)[SYNC_OPTIONS_ANNOTATION];
  return (
    typeof raw === 'string' &&
    raw
      .split(',')
      .map((s) => s.trim())
      .includes('SkipDryRunOnMissingResource=true')
  );
}

export interface SyncPosition {
  /** The Application that applies the resource; the root app for clusters/home. */
  app: ArgoApp | undefined;
  /** [wave of the app in the root app, wave inside the app]; a root-app resource has [its wave]. */
  order: number[];
}

/** Where each Application sits in the root app's sync. */
/** The root app-of-apps, when the repository has one. */
const rootApplication = perRepo((repo: Repo): ArgoApp | undefined => applications(repo).find((a) => a.resource.file === ROOT_APP_FILE));

export const appWaves = perRepo((repo: Repo): Map<string, number> => new Map(applications(repo).map((a) => [a.name, waveOf(a.resource)])));

export function placeOf(repo: Repo, r: Resource): SyncPosition {
  const app = owningApplication(repo, r);
  const root = rootApplication(repo);
  if (!app || app === root) return { app: root, order: [waveOf(r)] };
  return { app, order: [appWaves(repo).get(app.name) ?? 0, waveOf(r)] };
}

/** Strictly before in the sync: compares the wave lists left to right (a root-app resource before the apps of a later wave). */
export function before(a: SyncPosition, b: SyncPosition): boolean {
  if (a.app !== undefined && a.app === b.app) return (a.order.at(-1) ?? 0) < (b.order.at(-1) ?? 0);
  return (a.order[0] ?? 0) < (b.order[0] ?? 0);
}
