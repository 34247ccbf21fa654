/**
 * What Argo CD removes (P1): an object the repository stops declaring is pruned, and an Application's objects go
 * with it, unless a sync option holds them back. gitops-engine reads `Prune` on the object's
 * argocd.argoproj.io/sync-options, else on its Application's syncOptions (isPruningDisabled,
 * objRequiresPruneConfirmation), and the controller reads `Delete` the same way when an Application is deleted
 * (isObjRequiresDeletionConfirmation): `false` keeps the object running, `confirm` waits for a person. And an
 * Application deleted without a resources finalizer leaves all its objects behind (CascadedDeletion).
 */
import { annotationSyncOptions, applications, ROOT_APP_FILE, SYNC_OPTIONS_ANNOTATION, syncOptionValue, syncOptions } from '../../model/argocd/argocd.ts';
import { dig } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { APP_KINDS } from './argocd.ts';
import { CASCADE_FINALIZERS } from '../../model/controller/sync-method.ts';

const HELD = { false: 'keeps {it} running', confirm: 'waits for a person before deleting {it}' } as const;

const held = (value: string | undefined): value is keyof typeof HELD => value === 'false' || value === 'confirm';

/**
 * The controller's prune propagation (controller/sync.go): foreground unless a syncOptions entry says otherwise,
 * background and foreground read before orphan. Orphan deletes the object alone, and the garbage collector leaves
 * what it owns.
 */
const orphansDependents = (options: readonly string[]): boolean =>
  options.includes('PrunePropagationPolicy=orphan') &&
  !options.includes('PrunePropagationPolicy=background') &&
  !options.includes('PrunePropagationPolicy=foreground');

/**
 * Kinds whose deletion takes data with it: gitops-engine's Force=true (an object's sync-options) has kubectl delete
 * and recreate the object where a patch conflicts, and replace it whole under Replace=true (sync_context.go; only a
 * CRD and a Namespace are updated in place of a replace, and a forced apply spares neither).
 */
const FORCE_LOSES: Readonly<Record<string, string>> = {
  PersistentVolumeClaim: 'the volume it bound (its data, under a Delete reclaim policy)',
  CustomResourceDefinition: 'every custom resource of its kind',
  Namespace: 'everything in it',
};
const HOLDS_DATA = new Set(Object.keys(FORCE_LOSES));

export const argocdPruneCheck: PolicyCheck = {
  id: 'argocd-prune',
  description:
    "Argo CD removes what the repository stops declaring: no object holds its pruning back, nor an Application its objects' pruning or deletion (Prune=false or confirm, Delete=false or confirm, in argocd.argoproj.io/sync-options or an Application's syncOptions), nor prunes leaving what an object owns (PrunePropagationPolicy=orphan), so a deleted manifest is deleted from the cluster with all it made; and nothing the repository still declares is deleted by a sync: no claim, CRD or Namespace is forced (Force=true), which deletes and recreates it with its data (invariants P1).",
  invariants: ['P1'],
  remediation: 'remove the option; an object that must outlive its manifest (a volume that holds data) takes an exemption that says why',
  reads: { kinds: ['*'], everyKind: 'any object can carry the sync-options annotation, and every Application its syncOptions' },
  exemptible: true,
  run(ctx) {
    for (const app of applications(ctx.repo)) {
      const options = syncOptions(app);
      if (orphansDependents(options))
        ctx.fail(
          { resource: app.resource, path: ['spec', 'syncPolicy', 'syncOptions', options.indexOf('PrunePropagationPolicy=orphan')] },
          `Application ${app.name} prunes with PrunePropagationPolicy=orphan: what a pruned object owns stays (a deleted Deployment's ReplicaSets and pods keep running, managed by nothing)`,
        );
      for (const key of ['Prune', 'Delete'] as const) {
        const value = syncOptionValue(options, key);
        if (held(value))
          ctx.fail(
            { resource: app.resource, path: ['spec', 'syncPolicy', 'syncOptions', options.indexOf(`${key}=${value}`)] },
            `Application ${app.name} sets ${key}=${value} for all its objects: Argo CD ${HELD[value].replace('{it}', 'each')} ${key === 'Prune' ? 'when its manifest leaves the repository' : 'when the Application is deleted'}`,
          );
      }
    }
    for (const r of ctx.resources) {
      const options = annotationSyncOptions(r.object);
      if (HOLDS_DATA.has(r.kind) && options.includes('Force=true'))
        ctx.fail(
          { resource: r, path: ['metadata', 'annotations', SYNC_OPTIONS_ANNOTATION] },
          `${r.kind} ${r.name} sets Force=true: a sync that cannot patch it (an immutable field changed${options.includes('Replace=true') ? ', or any change under Replace=true' : ''}) deletes and recreates it, and ${FORCE_LOSES[r.kind]} with it`,
        );
      for (const key of ['Prune', 'Delete'] as const) {
        const value = syncOptionValue(options, key);
        if (held(value))
          ctx.fail(
            { resource: r, path: ['metadata', 'annotations', SYNC_OPTIONS_ANNOTATION] },
            `${r.kind} ${r.name} sets ${key}=${value}: Argo CD ${HELD[value].replace('{it}', 'it')} ${key === 'Prune' ? 'when its manifest leaves the repository' : 'when its Application is deleted'}`,
          );
      }
    }
  },
};

export const argocdCascadeCheck: PolicyCheck = {
  id: 'argocd-cascade',
  description:
    'Deleting an application.yaml deletes what its Application ran: every Application the root app applies carries resources-finalizer.argocd.argoproj.io (or its /foreground or /background form), without which Argo CD removes the Application and leaves its objects running, managed by nothing; the root app carries none, so deleting it by hand does not take the whole cluster with it (invariants P1).',
  invariants: ['P1'],
  remediation: 'add metadata.finalizers: [resources-finalizer.argocd.argoproj.io] to the Application (and none to the root app)',
  reads: { kinds: APP_KINDS },
  exemptible: false,
  run(ctx) {
    for (const app of applications(ctx.repo)) {
      const raw = dig(app.resource.object, ['metadata', 'finalizers']);
      const finalizers = Array.isArray(raw) ? raw : [];
      const cascades = finalizers.findIndex((f) => typeof f === 'string' && CASCADE_FINALIZERS.includes(f));
      if (app.resource.file === ROOT_APP_FILE) {
        if (cascades >= 0)
          ctx.fail(
            { resource: app.resource, path: ['metadata', 'finalizers', cascades] },
            `the root app carries ${String(finalizers[cascades])}: deleting it, even by mistake, would delete every Application and all they run`,
          );
      } else if (cascades < 0)
        ctx.fail(
          { resource: app.resource, path: ['metadata', ...(raw === undefined ? [] : ['finalizers'])] },
          `Application ${app.name} carries no resources-finalizer.argocd.argoproj.io: when its application.yaml is deleted, Argo CD removes the Application and leaves what it runs in the cluster, managed by nothing`,
        );
    }
  },
};
