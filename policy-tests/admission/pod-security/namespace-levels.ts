/**
 * The levels Pod Security admission judges a namespace's pods at: the namespace's own labels over the cluster's
 * defaults (the podSecurity fact), or exempt when the facts exempt it. The admission check and the gate's coverage
 * line both ask it, so they cannot tell two stories.
 */
import { namespaceLabels } from '../../model/cluster/namespaces.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { levelsFor, type PodSecurityConfig } from './pod-security.ts';

/** A namespace's levels, or 'exempt'; undefined when the facts set no Pod Security defaults (nothing is judged). */
export function namespaceLevels(repo: Repo): ((namespace: string) => PodSecurityConfig | 'exempt') | undefined {
  const facts = repo.facts?.podSecurity;
  if (!facts) return undefined;
  const exempt = new Set(facts.exemptNamespaces);
  const labels = namespaceLabels(repo);
  return (namespace) => (exempt.has(namespace) ? 'exempt' : levelsFor(labels.get(namespace), facts.defaults));
}
