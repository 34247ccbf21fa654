/** What the repository says about namespaces the checks share. */
import { applications, syncOptions } from '../argocd/argocd.ts';
import { dig } from '../core/dig.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';

/**
 * Each namespace's labels, by name: its Namespace object's, else those Argo CD
 * sets when an Application creates it (managedNamespaceMetadata).
 */
export const namespaceLabels = perRepo((repo: Repo): Map<string, Record<string, unknown>> => {
  const out = new Map<string, Record<string, unknown>>();
  for (const app of applications(repo)) {
    if (!app.destinationNamespace || out.has(app.destinationNamespace) || !syncOptions(app).includes('CreateNamespace=true')) continue;
    out.set(
      app.destinationNamespace,
      (dig(app.resource.object, ['spec', 'syncPolicy', 'managedNamespaceMetadata', 'labels']) ?? {}) as Record<string, unknown>,
    );
  }
  for (const ns of repo.resources) if (ns.kind === 'Namespace') out.set(ns.name, (dig(ns.object, ['metadata', 'labels']) ?? {}) as Record<string, unknown>);
  return out;
});
