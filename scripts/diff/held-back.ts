/**
 * What of a change does not reach the cluster as soon as it lands: an Application its AppProject's sync windows hold
 * back, or one an ApplicationSet makes whose policy keeps the controller from applying it.
 */
import { facts } from '../../policy-tests/index.ts';
import type { ResourceChange, Snapshot } from './changes.ts';

/**
 * The Applications with changes that do not reach the cluster as soon as they land: those the head's sync windows
 * hold back, and when they sync on their own; and an Application an ApplicationSet makes whose controller policy keeps
 * it from applying the change to the Application itself (an update under create-only or create-delete, a removal
 * under create-only or create-update).
 */
export function heldBack(changes: readonly ResourceChange[], base: Snapshot, head: Snapshot): { app: string; when: string }[] {
  const changed = new Set(changes.map((c) => c.app));
  const windows = [...(head.heldBack ?? [])].filter(([app]) => changed.has(app)).map(([app, when]) => ({ app, when }));
  const restrained = changes.flatMap((c) => {
    if (c.kind !== 'argoproj.io/v1alpha1/Application' || c.change === 'added') return [];
    const policy = (c.change === 'removed' ? base : head).restrained?.get(c.name);
    if (c.change === 'changed' && !facts.policyAllows(policy).update)
      return [
        {
          app: c.name,
          when: `never updated: its ApplicationSet's policy (${policy}) leaves the Application as it made it, so this change and what it would render do not reach the cluster`,
        },
      ];
    if (c.change === 'removed' && !facts.policyAllows(policy).delete)
      return [{ app: c.name, when: `never deleted: its ApplicationSet's policy (${policy}) leaves the Application, and what it runs, in the cluster` }];
    return [];
  });
  return [...windows, ...restrained];
}
