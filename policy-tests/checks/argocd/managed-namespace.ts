/**
 * managedNamespaceMetadata does what it says (P1). Argo CD writes it on the destination namespace only with
 * CreateNamespace=true and only when the app's own manifests hold no Namespace of that name; anywhere else it is
 * silently nothing, and the labels its author meant (a Pod Security level, a label a network policy selects) are not
 * there. What Argo CD writes, and how a namespace's labels come out, is model/cluster/namespaces.ts; a namespace with a
 * second owner, where the writers would fight, is argocd-will-sync's.
 */
import type { Resource } from '../../model/core/manifest.ts';
import { createsNamespace, isCoreNamespace, MANAGED_METADATA_PATH, managedNamespaces, type ManagedNamespace } from '../../model/cluster/namespaces.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** Why Argo CD writes none of an Application's managedNamespaceMetadata, or undefined when it writes it. */
function unwritten(m: ManagedNamespace, rendered: readonly Resource[]): string | undefined {
  if (!createsNamespace(m.app)) return 'Argo CD writes it only with the sync option CreateNamespace=true, which the Application lacks';
  if (!m.namespace) return 'the Application names no destination namespace, so Argo CD creates none';
  const own = m.ownNamespace ?? rendered.find((r) => r.rendered?.app === m.app.name && r.name === m.namespace);
  const where = own?.rendered ? `rendered from ${own.rendered.source}${own.rendered.template ? `, ${own.rendered.template}` : ''}` : own?.file;
  if (own) return `its own manifests hold Namespace ${m.namespace} (${where}), so Argo CD creates none and writes none of it: set these on that Namespace`;
  return undefined;
}

export const argocdManagedNamespaceCheck: PolicyCheck = {
  id: 'argocd-managed-namespace',
  description:
    "An Application's managedNamespaceMetadata is one Argo CD writes: only with CreateNamespace=true, a destination namespace, and no Namespace of that name in the app's own manifests (rendered ones too); anywhere else it is silently nothing, and the labels it meant (a Pod Security level, a label a network policy selects) are not on the namespace (invariants P1).",
  invariants: ['P1'],
  remediation: 'add CreateNamespace=true and a destination namespace, or move the labels and annotations onto the Namespace the app applies',
  reads: { kinds: ['Application', 'Namespace'] },
  exemptible: false,
  run(ctx) {
    const namespaces = ctx.resources.filter(isCoreNamespace);
    for (const m of managedNamespaces(ctx.repo)) {
      if (!m.metadata) continue;
      const why = unwritten(m, namespaces);
      if (why)
        ctx.fail(
          { resource: m.app.resource, path: [...MANAGED_METADATA_PATH] },
          `Application ${m.app.name}: managedNamespaceMetadata is never written: ${why}`,
        );
    }
  },
};
