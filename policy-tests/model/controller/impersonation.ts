/**
 * Argo CD's sync impersonation (argo-cd v3.5.1 controller/sync.go, util/settings/impersonation.go): with argocd-cm's
 * `application.sync.impersonation.enabled: "true"`, an Application syncs as the ServiceAccount its AppProject's
 * `destinationServiceAccounts` names for its destination, with that account's RBAC, not the controller's. Where no
 * entry matches, the sync fails while `application.sync.impersonation.enforced` is on (its default), and runs as the
 * controller otherwise.
 */
import { argoGlobError, argoGlobMatch } from '../core/glob.ts';
import { isMap, type Obj } from '../core/dig.ts';
import type { ArgoApp } from '../argocd/argocd.ts';

export const IMPERSONATION_ENABLED = 'application.sync.impersonation.enabled';
export const IMPERSONATION_ENFORCED = 'application.sync.impersonation.enforced';

/** IsImpersonationEnabled (only "true") and IsImpersonationEnforced (anything but "false", and on where unset). */
export function impersonationSettings(argocdCm: Record<string, unknown> | undefined): { enabled: boolean; enforced: boolean } {
  const enforced = argocdCm?.[IMPERSONATION_ENFORCED];
  return { enabled: argocdCm?.[IMPERSONATION_ENABLED] === 'true', enforced: enforced !== 'false' };
}

/** serviceAccountDisallowedCharSet: what a defaultServiceAccount may not hold. */
const DISALLOWED = /[!*[\]{}\\/]/;

/** The account an Application syncs as: its namespace and name (the user system:serviceaccount:<namespace>:<name>), none, or DeriveServiceAccountToImpersonate's error. */
export type ImpersonatedAccount = { namespace: string; name: string; user: string } | { none: true } | { error: string };

/**
 * DeriveServiceAccountToImpersonate: the first destinationServiceAccounts entry whose server and namespace globs match
 * the destination names its account; one without a namespace is in the destination's namespace, else the
 * Application's own.
 */
export function impersonatedAccount(projectSpec: unknown, app: ArgoApp, server: string): ImpersonatedAccount {
  const entries = isMap(projectSpec) && Array.isArray(projectSpec.destinationServiceAccounts) ? projectSpec.destinationServiceAccounts.filter(isMap) : [];
  const appNamespace = typeof app.resource.namespace === 'string' ? app.resource.namespace : '';
  const destinationNamespace = app.destinationNamespace ?? '';
  for (const entry of entries as Obj[]) {
    const text = (key: string) => (typeof entry[key] === 'string' ? entry[key] : '');
    // glob.MatchWithError: a pattern that does not compile fails the derivation, server first.
    for (const [key, what] of [
      ['server', 'destination server'],
      ['namespace', 'destination namespace'],
    ] as const) {
      const problem = argoGlobError(text(key));
      if (problem) return { error: `invalid glob pattern for ${what}: ${text(key)}: ${problem}` };
      if (key === 'server' && !argoGlobMatch(text(key), server)) break;
    }
    if (!argoGlobMatch(text('server'), server) || !argoGlobMatch(text('namespace'), destinationNamespace)) continue;
    const account = text('defaultServiceAccount');
    if (account.trim() === '' || DISALLOWED.test(account)) return { error: `default service account contains invalid chars '${account}'` };
    const [namespace, name] = account.includes(':')
      ? [account.slice(0, account.indexOf(':')), account.slice(account.indexOf(':') + 1)]
      : [destinationNamespace || appNamespace, account];
    return { namespace, name, user: `system:serviceaccount:${namespace}:${name}` };
  }
  return { none: true };
}
