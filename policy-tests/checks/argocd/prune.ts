/**
 * What Argo CD removes (P1): an object the repository stops declaring is pruned, and an Application's objects go
 * with it, unless a sync option holds them back. gitops-engine reads `Prune` on the object's
 * argocd.argoproj.io/sync-options, else on its Application's syncOptions (isPruningDisabled,
 * objRequiresPruneConfirmation), and the controller reads `Delete` the same way when an Application is deleted
 * (isObjRequiresDeletionConfirmation): `false` keeps the object running, `confirm` waits for a person.
 */
import { annotationSyncOptions, applications, SYNC_OPTIONS_ANNOTATION, syncOptionValue, syncOptions } from '../../model/argocd/argocd.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

const HELD = { false: 'keeps it running after its manifest is gone', confirm: 'waits for a person to confirm' } as const;

const held = (value: string | undefined): value is keyof typeof HELD => value === 'false' || value === 'confirm';

export const argocdPruneCheck: PolicyCheck = {
  id: 'argocd-prune',
  description:
    "Argo CD removes what the repository stops declaring: no object holds its pruning back, nor an Application its objects' pruning or deletion (Prune=false or confirm, Delete=false or confirm, in argocd.argoproj.io/sync-options or an Application's syncOptions), so a deleted manifest is deleted from the cluster (invariants P1).",
  invariants: ['P1'],
  remediation: 'remove the option; an object that must outlive its manifest (a volume that holds data) takes an exemption that says why',
  reads: { kinds: ['*'], everyKind: 'any object can carry the sync-options annotation, and every Application its syncOptions' },
  exemptible: true,
  run(ctx) {
    for (const app of applications(ctx.repo)) {
      const options = syncOptions(app);
      for (const key of ['Prune', 'Delete'] as const) {
        const value = syncOptionValue(options, key);
        if (held(value))
          ctx.fail(
            { resource: app.resource, path: ['spec', 'syncPolicy', 'syncOptions', options.indexOf(`${key}=${value}`)] },
            `Application ${app.name} sets ${key}=${value} for all its objects: Argo CD ${HELD[value]} ${key === 'Prune' ? 'when one leaves the repository' : 'when the Application is deleted'}`,
          );
      }
    }
    for (const r of ctx.resources) {
      const options = annotationSyncOptions(r.object);
      for (const key of ['Prune', 'Delete'] as const) {
        const value = syncOptionValue(options, key);
        if (held(value))
          ctx.fail(
            { resource: r, path: ['metadata', 'annotations', SYNC_OPTIONS_ANNOTATION] },
            `${r.kind} ${r.name} sets ${key}=${value}: Argo CD ${HELD[value]} ${key === 'Prune' ? 'when its manifest leaves the repository' : 'when its Application is deleted'}`,
          );
      }
    }
  },
};
