/**
 * How far Pod Security admission reached: the namespaces that hold a pod
 * template, each at the enforce level it is judged at (its label, else the
 * cluster's default in the podSecurity fact), and those the facts exempt.
 * The gate's summary prints it beside the CEL coverage, so a level that
 * changed, or a namespace that fell to privileged, shows in every run.
 */
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { podSpecOf } from '../../model/core/workloads.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { namespaceLevels } from './namespace-levels.ts';
import type { Level } from './pod-security.ts';

export interface PodSecurityCoverage {
  /** Namespaces holding a pod template, by the level they are enforced at. */
  enforced: Record<Level, number>;
  /** Namespaces holding a pod template that the facts exempt. */
  exempt: number;
}

/** The coverage of a repository, or undefined when its facts set no Pod Security defaults. */
export function podSecurityCoverage(repo: Repo): PodSecurityCoverage | undefined {
  const levelsOf = namespaceLevels(repo);
  if (!levelsOf) return undefined;
  const namespaces = new Set<string>();
  for (const r of repo.resources) {
    if (!podSpecOf(r)) continue;
    const namespace = namespaceOrDestination(repo, r);
    if (namespace) namespaces.add(namespace);
  }
  const coverage: PodSecurityCoverage = { enforced: { restricted: 0, baseline: 0, privileged: 0 }, exempt: 0 };
  for (const namespace of namespaces) {
    const levels = levelsOf(namespace);
    if (levels === 'exempt') coverage.exempt++;
    else coverage.enforced[levels.enforce]++;
  }
  return coverage;
}
