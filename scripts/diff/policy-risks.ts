/**
 * What a network policy change does to reach, for the rendered diff: the peers beyond named pods it adds
 * (model/cluster/network-reach.ts), and whether it only narrows, which makes it news rather than a question.
 */
import { facts } from '../../policy-tests/index.ts';
import { valueAt } from '../lib/values.ts';

export const NETWORK_POLICY_KINDS = new Set(['NetworkPolicy', 'CiliumNetworkPolicy', 'CiliumClusterwideNetworkPolicy']);

/** A few items of a list, then how many more. */
export const listed = (items: string[]) => `${items.slice(0, 8).join(', ')}${items.length > 8 ? `, and ${items.length - 8} more` : ''}`;

type Obj = Record<string, unknown> | undefined;

/** The peers beyond named pods a policy allows, by the key a policy documents them under. */
const reachOf = (kind: string, object: Obj, namespace: string) => new Set(object ? facts.externalPeers({ kind, object }, namespace).map((r) => r.peer) : []);

/** A policy's allow rules, each as text: what it lets through. */
function allowRules(object: Obj): Set<string> {
  const spec = (object?.spec ?? {}) as Record<string, unknown>;
  return new Set(['ingress', 'egress'].flatMap((k) => (Array.isArray(spec[k]) ? (spec[k] as unknown[]).map((r) => `${k}\0${JSON.stringify(r)}`) : [])));
}

/**
 * Whether a policy only narrows: a new one that lets nothing through (a default deny), or a changed one that selects
 * the same pods, isolates every kind of traffic it isolated, keeps every rule that denied, and whose every allow rule
 * was there before. Anything else may let a pod reach another it could not.
 */
function narrowsOnly(change: 'added' | 'removed' | 'changed', a: Obj, b: Obj): boolean {
  const after = allowRules(b);
  if (change === 'added') return after.size === 0;
  const selector = (o: Obj) => JSON.stringify(valueAt(o, ['spec', 'podSelector']) ?? valueAt(o, ['spec', 'endpointSelector']) ?? null);
  if (selector(a) !== selector(b)) return false;
  const before = allowRules(a);
  const list = (o: Obj, key: string) => new Set(((valueAt(o, ['spec', key]) ?? []) as unknown[]).map((x) => JSON.stringify(x)));
  const kept = (key: string) => [...list(a, key)].every((x) => list(b, key).has(x));
  return [...after].every((r) => before.has(r)) && kept('policyTypes') && kept('ingressDeny') && kept('egressDeny');
}

/**
 * Every policy created, changed or deleted is said: who can now reach what. A deleted one, or one that widens, is for
 * a person to review; one that only narrows is a note.
 */
export function networkPolicyRisk(
  { change, kind, label, namespace }: { change: 'added' | 'removed' | 'changed'; kind: string; label: string; namespace: string },
  a: Obj,
  b: Obj,
): { reason: string; level: 'review' | 'note' } {
  if (change === 'removed') return { reason: `${label} is deleted: the pods it selected lose its limits, or what it let through`, level: 'review' };
  const [before, after] = [reachOf(kind, a, namespace), reachOf(kind, b, namespace)];
  const widened = [...after].filter((p) => !before.has(p));
  const narrowed = [...before].filter((p) => !after.has(p));
  const narrows = !widened.length && narrowsOnly(change, a, b);
  const what = widened.length
    ? `widens reach to ${listed(widened)}`
    : narrows
      ? 'narrows: every rule it holds was there before, for the same pods'
      : 'allows nothing beyond named pods that it did not before';
  return {
    reason: `${label} ${change === 'added' ? 'is new' : 'changes'}: ${what}${narrowed.length ? `; no longer ${listed(narrowed)}` : ''}`,
    level: narrows ? 'note' : 'review',
  };
}
