/**
 * closure-role: the role a binding grants exists. The API server stores a
 * RoleBinding or ClusterRoleBinding whatever its roleRef names, and the
 * authorizer finds no rules through it: the binding grants nothing, and every
 * call it was meant to allow is forbidden (the backup's sentinel write, the
 * status writer's reads). A Role must be in the binding's own namespace.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { namespacedProviders, opaqueNamespaces, provided } from '../../model/cluster/providers.ts';
import { roleRefs } from '../../model/cluster/references.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { FACTS_FIX, unrenderedSources } from './closing.ts';

/** The ClusterRoles Kubernetes' RBAC bootstrap makes on every cluster: the four user-facing ones, and every `system:` role. */
const USER_FACING_CLUSTER_ROLES: ReadonlySet<string> = new Set(['cluster-admin', 'admin', 'edit', 'view']);
const isBootstrapClusterRole = (name: string) => USER_FACING_CLUSTER_ROLES.has(name) || name.startsWith('system:');

export const roleClosureCheck: PolicyCheck = {
  id: 'closure-role',
  description: `Every Role a RoleBinding grants exists in the binding's namespace, and every ClusterRole a binding grants exists (the repository's, plain or rendered, Kubernetes' own: cluster-admin, admin, edit, view and the system: roles, or providedOutsideGit); the API server stores a binding to a role that does not exist, and it grants nothing (invariants P1).`,
  invariants: ['P1'],
  remediation: `name the Role or ClusterRole the repository declares (a Role in the binding's own namespace), ${FACTS_FIX}`,
  reads: { kinds: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'], renders: true },
  exemptible: false,
  run(ctx) {
    const roles = namespacedProviders(ctx.repo, 'Role');
    const clusterRoles = provided(ctx.repo, 'ClusterRole');
    const opaque = opaqueNamespaces(ctx.renders);
    // A ClusterRole may come from any source; with one not rendered, a name not found here may still be its.
    const unrendered = unrenderedSources(ctx);
    for (const ref of roleRefs(ctx.repo, ctx.resources)) {
      const where = { resource: ref.resource, path: ref.path };
      if (ref.kind === 'Role') {
        if (roles.has(`${ref.namespace}/${ref.name}`) || opaque.has(ref.namespace ?? '')) continue;
        const near = didYouMean(ref.name, new Set([...roles].filter((k) => k.startsWith(`${ref.namespace}/`)).map((k) => k.slice(k.indexOf('/') + 1))));
        ctx.fail(
          where,
          `${ref.resource.kind} ${ref.resource.name} grants Role ${ref.namespace}/${ref.name}, which nothing in the repository provides in that namespace: the binding grants nothing, and every call it was meant to allow is forbidden${near}`,
        );
        continue;
      }
      if (clusterRoles.has(ref.name) || isBootstrapClusterRole(ref.name)) continue;
      if (unrendered.count > 0) {
        ctx.notJudged(where, `ClusterRole ${ref.name} is not in what the gate sees, and ${unrendered.text}, any of which may provide it`);
        continue;
      }
      ctx.fail(
        where,
        `${ref.resource.kind} ${ref.resource.name} grants ClusterRole ${ref.name}, which nothing in the repository provides: the binding grants nothing, and every call it was meant to allow is forbidden${didYouMean(ref.name, clusterRoles)}`,
      );
    }
  },
};
