/** Which Application deploys the cluster's CNI (kept apart from model/repository/cni.ts, which the cluster facts read before any Application exists). */
import { applications, type ArgoApp } from '../argocd/argocd.ts';
import { KNOWN_CNIS, NO_CNI } from '../repository/cni.ts';
import type { Repo } from '../repository/repo.ts';

/** The Application that deploys the cluster's CNI, when git deploys it (Cilium); undefined when the distribution brings it (Flannel on Talos). */
export function cniApplication(repo: Repo): { name: string; app?: ArgoApp } {
  const name = repo.facts?.cni.name ?? NO_CNI.name;
  const chart = KNOWN_CNIS[name]?.chart;
  return { name, app: chart ? appDeployingChart(repo, chart) : undefined };
}

/** The Application with a source of this chart, if any. */
export function appDeployingChart(repo: Repo, chart: string): ArgoApp | undefined {
  return applications(repo).find((a) => a.sources.some((s) => s.chart === chart));
}
