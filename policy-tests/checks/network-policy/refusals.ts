/**
 * How the network-policy checks name the policies that refuse a connection, and where a finding on a blanket policy
 * goes: one wording for every path, so a reader meets the same words from each check.
 */
import type { Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { FailurePlace } from '../../model/checks/kit.ts';

/** The policies, for a message: `NetworkPolicy a, CiliumNetworkPolicy b`. */
export const policyNames = (policies: readonly Resource[]): string => policies.map((p) => `${p.kind} ${p.name}`).join(', ');

/** The field that says which pods a policy is for: a NetworkPolicy's podSelector, a Cilium policy's endpointSelector. */
const selectorField = (policy: Resource): string => (policy.kind === 'NetworkPolicy' ? 'podSelector' : 'endpointSelector');

/** Whether a policy selects every pod of its namespace (an empty selector): a default deny. */
export const selectsAll = (policy: Resource): boolean => {
  const selector = (policy.object.spec as Obj | undefined)?.[selectorField(policy)];
  return selector !== null && typeof selector === 'object' && Object.keys(selector).length === 0;
};

/** Where a finding on a policy that shuts many pods goes: its selector. */
export const selectorAt = (policy: Resource): FailurePlace => ({ resource: policy, path: ['spec', selectorField(policy)] });

/** Names in a message: the first four, and how many more. */
export const firstNames = (names: readonly string[]): string => `${names.slice(0, 4).join(', ')}${names.length > 4 ? `, and ${names.length - 4} more` : ''}`;
