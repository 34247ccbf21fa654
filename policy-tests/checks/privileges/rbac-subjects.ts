/**
 * rbac-broad-subject: a binding grants its role to whom its subjects name, as the API server's authorizer matches
 * them (rbac/subject_locator: a Group by the groups the authenticator gives a request, a User by its name, a
 * ServiceAccount by system:serviceaccount:<namespace>:<name>). Some names are everyone: system:authenticated is every
 * ServiceAccount, node and person with a credential; system:unauthenticated and the user system:anonymous, anyone
 * who reaches the API; system:serviceaccounts, every pod's token in the cluster (system:serviceaccounts:<namespace>,
 * every one of that namespace). And the ServiceAccount `default` is every pod of its namespace that names no other.
 * A role granted that way is granted to each of them, and a one-file pull request that grants it passes the API
 * server, which checks only that its author holds what it grants (Argo CD, which applies it, holds everything).
 */
import { dig, list, obj } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** The groups, and the user, that stand for every identity of a kind. */
const EVERYONE: Record<string, string> = {
  'Group/system:authenticated': 'every ServiceAccount, node and user with a credential',
  'Group/system:unauthenticated': 'anyone who reaches the API server without a credential',
  'User/system:anonymous': 'anyone who reaches the API server without a credential',
  'Group/system:serviceaccounts': "every pod's ServiceAccount in the cluster",
};

/** Whom a subject stands for, where it is more than one identity; undefined for one ServiceAccount, user or group of its own. */
function broadly(subject: Record<string, unknown>, bindingNamespace: string | undefined): string | undefined {
  const kind = scalarText(subject.kind ?? '');
  const name = scalarText(subject.name ?? '');
  const everyone = EVERYONE[`${kind}/${name}`];
  if (everyone) return everyone;
  if (kind === 'Group' && name.startsWith('system:serviceaccounts:'))
    return `every ServiceAccount of namespace ${name.slice('system:serviceaccounts:'.length)}`;
  if (kind === 'ServiceAccount' && name === 'default') {
    const namespace = scalarText(subject.namespace ?? '') || bindingNamespace || '(its namespace)';
    return `every pod of namespace ${namespace} that names no ServiceAccount (each runs as default)`;
  }
  return undefined;
}

export const broadSubjectCheck: PolicyCheck = {
  id: 'rbac-broad-subject',
  description:
    "No RoleBinding or ClusterRoleBinding grants its role to a subject that stands for many identities (the groups system:authenticated, system:unauthenticated, system:serviceaccounts and system:serviceaccounts:<namespace>, the user system:anonymous, or a namespace's default ServiceAccount, which every pod naming no other runs as), unless an exemption next to the binding says why: the API server grants the role to each of them, and admits the binding from whoever holds the role, as Argo CD does (invariants P1).",
  invariants: ['P1'],
  remediation:
    'grant the role to the one ServiceAccount that needs it (serviceAccountName on its pods), or annotate the binding with gate.homelab-gitops/exempt-rbac-broad-subject: <reason>',
  reads: { kinds: ['RoleBinding', 'ClusterRoleBinding'], renders: true },
  exemptible: true,
  run(ctx) {
    for (const binding of ctx.resources.filter((r) => r.kind === 'RoleBinding' || r.kind === 'ClusterRoleBinding')) {
      const role = `${scalarText(dig(binding.object, ['roleRef', 'kind']) ?? '')} ${scalarText(dig(binding.object, ['roleRef', 'name']) ?? '')}`;
      list(dig(binding.object, ['subjects'])).forEach((subject, i) => {
        const who = broadly(obj(subject), binding.namespace);
        if (who)
          ctx.fail(
            { resource: binding, path: ['subjects', i, 'name'] },
            `${binding.kind} ${binding.name} grants ${role} to ${scalarText(obj(subject).kind ?? '')} ${scalarText(obj(subject).name ?? '')}: that is ${who}`,
          );
      });
    }
  },
};
