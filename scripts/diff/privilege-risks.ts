/**
 * Privilege a change hands out, for the rendered diff: what a workload's pods gain (model/cluster/privileges.ts), a
 * namespace whose pods Pod Security guards less than before, and who Argo CD itself lets in, and with what role (its
 * RBAC is a cluster-admin's reach: every Application syncs as its controller).
 */
import { facts } from '../../policy-tests/index.ts';
import { listed } from './policy-risks.ts';

type Obj = Record<string, unknown> | undefined;

/** Pod Security's levels, least guarded first. */
const LEVELS = ['privileged', 'baseline', 'restricted'];
const ENFORCE = 'pod-security.kubernetes.io/enforce';

/**
 * Why one object, as `before` (absent when added) and `after`, hands out privilege: a new or changed pod that is
 * privileged, adds a capability, joins a host namespace, mounts a hostPath, runs as root or may escalate where the
 * base's did not; a Namespace, or the managedNamespaceMetadata an Application writes on the namespace it creates,
 * setting an enforce level below the one it had, or `privileged` where it set none.
 */
export function privilegeReasons(kind: string, label: string, before: Obj, after: Record<string, unknown>): string[] {
  const reasons: string[] = [];
  const held = new Set(before ? facts.privilegesOf({ kind, object: before }).map(facts.privilegeLabel) : []);
  const added = [...new Set(facts.privilegesOf({ kind, object: after }).map(facts.privilegeLabel))].filter((p) => !held.has(p));
  if (added.length) reasons.push(`${label} gains ${listed(added)}`);
  const now = facts.podSecurityLabelsOf(kind, after);
  const level = now?.labels[ENFORCE];
  const was = facts.podSecurityLabelsOf(kind, before)?.labels[ENFORCE];
  if (now && level !== undefined && (was === undefined ? level === 'privileged' : LEVELS.indexOf(level) < LEVELS.indexOf(was))) {
    const where = kind === 'Namespace' ? label : `${label} (managedNamespaceMetadata) on namespace ${now.namespace}`;
    reasons.push(`${where} lowers Pod Security enforce to "${level}"${was === undefined ? '' : ` from "${was}"`}: its pods are admitted at that level`);
  }
  return reasons;
}

/** Argo CD's RBAC policy lines (util/rbac PolicyCSV: policy.csv, then every policy.<name>.csv), trimmed, comments left out. */
function policyLines(data: Record<string, unknown>): Set<string> {
  const keys = Object.keys(data).filter((k) => k === 'policy.csv' || (k.startsWith('policy.') && k.endsWith('.csv')));
  const lines = keys.flatMap((k) => (typeof data[k] === 'string' ? (data[k] as string).split('\n') : []));
  return new Set(lines.map((l) => l.trim().replace(/\s*,\s*/g, ', ')).filter((l) => l !== '' && !l.startsWith('#')));
}

const dataOf = (object: Obj): Record<string, unknown> => (object?.data ?? {}) as Record<string, unknown>;
const on = (data: Record<string, unknown>, key: string): boolean => facts.goParseBool(data[key]) === true;

/**
 * Who Argo CD lets in, where its settings grow it: argocd-rbac-cm's policy lines added or its default role changed;
 * argocd-cm letting anonymous users in (with the default role), turning the admin user or a web terminal on, or adding
 * a local account or a capability of one (util/settings: users.anonymous.enabled, admin.enabled, exec.enabled,
 * accounts.<name>).
 */
export function argocdAccessReasons(label: string, before: Obj, after: Obj): string[] {
  if (after?.kind !== 'ConfigMap') return [];
  const name = (after.metadata as { name?: unknown } | undefined)?.name;
  const [was, now] = [dataOf(before), dataOf(after)];
  const reasons: string[] = [];
  if (name === 'argocd-rbac-cm') {
    const held = policyLines(was);
    const added = [...policyLines(now)].filter((l) => !held.has(l));
    if (added.length) reasons.push(`${label} grants in Argo CD: ${listed(added)}`);
    if (typeof now['policy.default'] === 'string' && now['policy.default'] !== '' && now['policy.default'] !== was['policy.default'])
      reasons.push(`${label} gives every user Argo CD lets in the role ${now['policy.default']} (policy.default)`);
  }
  if (name === 'argocd-cm') {
    if (on(now, 'users.anonymous.enabled') && !on(was, 'users.anonymous.enabled'))
      reasons.push(`${label} lets anyone who reaches Argo CD's server in without logging in, with argocd-rbac-cm's policy.default (users.anonymous.enabled)`);
    // The admin user is on unless admin.enabled parses as false (util/settings/accounts.go).
    const adminOff = (data: Record<string, unknown>) => facts.goParseBool(data['admin.enabled']) === false;
    if (!adminOff(now) && adminOff(was)) reasons.push(`${label} turns Argo CD's admin user back on (admin.enabled)`);
    if (on(now, 'exec.enabled') && !on(was, 'exec.enabled'))
      reasons.push(`${label} turns on a web terminal into pods, for whom Argo CD's RBAC lets exec (exec.enabled)`);
    for (const key of Object.keys(now).filter((k) => /^accounts\.[^.]+$/.test(k))) {
      const caps = (v: unknown) =>
        new Set(
          typeof v === 'string'
            ? v
                .split(',')
                .map((c) => c.trim())
                .filter(Boolean)
            : [],
        );
      const gained = [...caps(now[key])].filter((c) => !caps(was[key]).has(c));
      if (gained.length) reasons.push(`${label} gives Argo CD's local account ${key.slice('accounts.'.length)} ${gained.join(', ')}`);
    }
  }
  return reasons;
}
