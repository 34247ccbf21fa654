/**
 * Privilege a change hands out, for the rendered diff: what a workload's pods gain (model/cluster/privileges.ts), and a
 * namespace whose pods Pod Security guards less than before.
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
