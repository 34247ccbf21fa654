/**
 * What the API server authorizes when Argo CD syncs as another account: with argocd-cm's
 * `application.sync.impersonation.enabled`, every object of an Application is applied as the ServiceAccount its
 * AppProject names for the destination (model/controller/impersonation.ts), and the RBAC authorizer judges each request
 * by that account's roles (authorization/rbac.ts). A request it refuses fails the sync: forbidden.
 */
import { applications, owningApplication, syncOptions, annotationSyncOptions, type ArgoApp } from '../../model/argocd/argocd.ts';
import { deletePolicies, syncLifecycle } from '../../model/controller/hooks.ts';
import { cascadesDeletion, deletedWithApplication, pruneOutcome } from '../../model/controller/sync-method.ts';
import { impersonatedAccount, impersonationSettings, IMPERSONATION_ENABLED } from '../../model/controller/impersonation.ts';
import { destinationCluster, knownClusters } from '../../model/argocd/clusters.ts';
import { virtualProject } from '../../model/controller/projects.ts';
import { ARGOCD_CM_PATCH, argocdSettings } from '../../model/controller/resource-filter.ts';
import { groupOf, type Resource, type ScopeLookup } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { builtinResourceName } from '../cel/admission-policies.ts';
import { crdPlurals } from '../crd-schemas.ts';
import { rbacAuthorizer, serviceAccountUser, type Decision, type ResourceRequest } from '../authorization/rbac.ts';

/** What mends each cause, printed with its finding (the remediation lists them all). */
const FIX = {
  account:
    "add a destinationServiceAccounts entry for the Application's destination to its AppProject, naming a service account as <namespace>:<name> or <name> (or turn application.sync.impersonation.enforced off to sync the rest as the controller)",
  verbs: 'bind the account to a Role or ClusterRole that grants the verbs the finding names on those resources',
} as const;

/**
 * The verbs a sync asks for on an object, each with why (gitops-engine sync_context.go at Argo CD v3.5.1, every request
 * made with the impersonated config): kubectl apply reads it, then creates it or patches it (server-side apply
 * patches, and creates through the patch), a replace updates it instead of patching; a sync hook is also updated, to
 * take off the finalizer Argo CD puts on it (removeHookFinalizer), and deleted by its delete policy (BeforeHookCreation
 * when it names none: the hook of the sync before, at the next); an object the automated sync prunes is deleted
 * once the repository stops declaring it (pruneObject), as after a person confirms it under Prune=confirm. And the
 * app controller deletes an Application with the same account (finalizeApplicationDeletion, applyImpersonationConfig):
 * it creates and then removes its delete hooks, and where a resources finalizer cascades the deletion, deletes each
 * object it manages (shouldBeDeleted).
 */
function verbsFor(app: ArgoApp, r: Resource): Map<string, Asked> {
  const lifecycle = syncLifecycle(r.object);
  // A delete hook is applied by no sync: the app controller creates it when the Application is deleted, and removes it once it has run.
  if (lifecycle.deleteHook)
    return new Map<string, Asked>([
      ['create', { why: `to run it when Application ${app.name} is deleted (a delete hook)`, fails: 'deletion' }],
      ['delete', { why: 'to remove it once it has run', fails: 'deletion' }],
    ]);
  const appOptions = syncOptions(app);
  const replace = [...appOptions, ...annotationSyncOptions(r.object)].includes('Replace=true');
  const verbs = new Map<string, Asked>([
    ['get', { why: 'to apply it' }],
    ['create', { why: 'to apply it' }],
    [replace ? 'update' : 'patch', { why: replace ? 'to replace it (Replace=true)' : 'to apply it' }],
  ]);
  if (lifecycle.hook) {
    verbs.set('update', { why: 'to take its hook finalizer off once it has run' });
    verbs.set('delete', { why: `by its delete policy (${deletePolicies(r.object).join(', ')}), as a hook` });
    return verbs;
  }
  if (['deleted', 'waits for confirmation'].includes(pruneOutcome(r.object, appOptions, app.automated?.enabled === true && app.automated.prune === true)))
    verbs.set('delete', { why: 'to prune it once the repository no longer declares it (the automated sync prunes)' });
  else if (cascadesDeletion(app) && deletedWithApplication(r.object, appOptions, { kind: r.kind, name: r.name, app: app.name }))
    verbs.set('delete', { why: `to delete it with Application ${app.name} (its resources finalizer)`, fails: 'deletion' });
  return verbs;
}

/** The denied verbs by why the sync asks them: `get, create, patch to apply it; delete to prune it ...`. */
const reasons = (denied: readonly SyncRequest[]): string =>
  [...Map.groupBy(denied, (d) => d.why)].map(([why, ds]) => `${ds.map((d) => d.verb).join(', ')} ${why}`).join('; ');

/** What the authorizer makes of a sync's requests: how many it allows, those it denies, and whether any it cannot tell. */
function judged(requests: readonly SyncRequest[], decide: (q: SyncRequest) => Decision): { allowed: number; denied: SyncRequest[]; unknown: boolean } {
  const decisions = requests.map((q) => [q, decide(q)] as const);
  return {
    allowed: decisions.filter(([, d]) => d === 'allowed').length,
    denied: decisions.filter(([, d]) => d === 'denied').map(([q]) => q),
    unknown: decisions.some(([, d]) => d === 'unknown'),
  };
}

interface Scope {
  isBuiltin: (r: Resource) => boolean;
  isClusterScoped: ScopeLookup;
}

/** Why Argo CD asks a verb, and what fails if it is refused: a sync, or (`deletion`) the Application's deletion, the app controller's. */
interface Asked {
  why: string;
  fails?: 'deletion';
}

/** A request Argo CD makes as the account, and why. */
type SyncRequest = ResourceRequest & Asked;

/** How the API names a custom kind's resources: its CRD's plural, where the repository holds the CRD. */
type Plurals = ReadonlyMap<string, string>;

/**
 * The request for each verb on an object: a create names no object, every other verb names it. A custom kind whose
 * CRD the repository does not hold has no resource name here (''), which only a rule on every resource (`*`) grants.
 */
function requestsOf({ isBuiltin, isClusterScoped }: Scope, plurals: Plurals, app: ArgoApp, r: Resource): SyncRequest[] {
  const group = groupOf(r.apiVersion);
  const resource = (isBuiltin(r) ? builtinResourceName(r.kind) : plurals.get(`${group}/${r.kind}`)) ?? '';
  const namespace = isClusterScoped(r.apiVersion, r.kind) ? '' : (r.namespace ?? app.destinationNamespace ?? '');
  return [...verbsFor(app, r)].map(([verb, asked]) => ({ verb, ...asked, group, resource, namespace, name: verb === 'create' ? '' : r.name }));
}

export function syncAuthorizationCheck(scope: Scope): PolicyCheck {
  return {
    id: 'argocd-sync-authorized',
    description:
      "Where argocd-cm turns sync impersonation on, every Application syncs as a ServiceAccount its AppProject's destinationServiceAccounts names for its destination (or, with impersonation not enforced, as the controller), and the roles the repository binds to that account let it get, create and patch (update, with Replace=true) every object the Application applies, in its namespace, update and delete each sync hook (the finalizer Argo CD puts on it, its delete policy), delete each object the automated sync prunes once the repository drops it or the Application's resources finalizer deletes with it, create and delete its delete hooks, and get, create and patch the namespace CreateNamespace=true makes, as the API server's RBAC authorizer judges; a role bound to it that the repository does not declare is not judged (invariants P1).",
    invariants: ['P1'],
    remediation: Object.values(FIX).join('; '),
    reads: {
      kinds: ['*'],
      everyKind: 'an impersonated sync writes every kind an Application applies, with the RBAC the repository grants',
      files: [ARGOCD_CM_PATCH],
    },
    exemptible: false,
    run(ctx) {
      const settings = argocdSettings(ctx.resources, ctx.repo);
      const { enabled, enforced } = impersonationSettings(settings?.data);
      if (!enabled) return;
      const authorize = rbacAuthorizer(ctx.resources);
      const plurals = crdPlurals(ctx.repo.resources);
      const allProjects = ctx.resources.filter((r) => r.kind === 'AppProject');
      const { clusters } = knownClusters(ctx.repo, ctx.resources);
      const projects = new Map(allProjects.map((p) => [p.name, p]));
      const objectsOf = new Map<string, Resource[]>();
      for (const r of ctx.resources) {
        const owner = owningApplication(ctx.repo, r)?.name;
        if (owner === undefined) continue;
        const list = objectsOf.get(owner);
        if (list) list.push(r);
        else objectsOf.set(owner, [r]);
      }
      for (const app of applications(ctx.repo)) {
        const server = destinationCluster(app, clusters)?.server;
        const project = projects.get(app.project);
        // A project the repository does not declare is another check's to report; Argo CD's own default has no accounts.
        if (server === undefined || (!project && app.project !== 'default')) continue;
        // The project's accounts, its global projects' after them (GetAppVirtualProject, Argo CD 3.5).
        const accounts = project ? virtualProject(project, allProjects, settings?.data).destinationServiceAccounts : [];
        const account = impersonatedAccount({ destinationServiceAccounts: accounts }, app, server);
        if ('error' in account) {
          ctx.fail(
            { resource: app.resource, path: ['spec', 'project'] },
            `Application ${app.name}: failed to derive service account to impersonate: ${account.error} (AppProject ${app.project}'s destinationServiceAccounts): the sync fails`,
            FIX.account,
          );
          continue;
        }
        if ('none' in account) {
          if (enforced)
            ctx.fail(
              { resource: app.resource, path: ['spec', 'destination'] },
              `Application ${app.name}: no matching service account found for destination server ${server} and namespace ${app.destinationNamespace ?? ''}: argocd-cm's ${IMPERSONATION_ENABLED} is on and AppProject ${app.project} names no destinationServiceAccounts entry for it, so the sync fails`,
              FIX.account,
            );
          continue;
        }
        const user = serviceAccountUser(account.namespace, account.name);
        const requestsFor = (r: Resource) => requestsOf(scope, plurals, app, r);
        const unknown = judgeAs(ctx, { app, account, authorize: (q) => authorize(user, q), requestsFor }, objectsOf.get(app.name) ?? []);
        if (unknown) ctx.notJudged({ resource: app.resource, path: ['spec', 'project'] }, `Application ${app.name} syncs as ${account.user}: ${unknown}`);
      }
    },
  };
}

/** An Application, the account it syncs as, the authorizer's decision on that account's requests, and the requests each object's sync makes. */
interface SyncAs {
  app: ArgoApp;
  account: { user: string };
  authorize: (q: SyncRequest) => Decision;
  requestsFor: (r: Resource) => SyncRequest[];
}

/**
 * Judges the requests a sync of `objects` makes as the account, and those the namespace CreateNamespace=true creates:
 * each forbidden one fails at its object; returns why some could not be judged, if any could not.
 */
function judgeAs(ctx: CheckContext, { app, account, authorize, requestsFor }: SyncAs, objects: readonly Resource[]): string | undefined {
  const forbidden = (what: string, denied: readonly SyncRequest[]) => {
    const q = denied[0]!;
    const where = q.namespace ? ` in the namespace "${q.namespace}"` : ' at the cluster scope';
    return `Argo CD syncs Application ${app.name} as ${account.user} (AppProject ${app.project}'s destinationServiceAccounts), and ${what} is forbidden: User "${account.user}" cannot ${denied.map((d) => d.verb).join(', ')} resource "${q.resource}" in API group "${q.group}"${where} (${reasons(denied)}): ${denied.every((d) => d.fails === 'deletion') ? `deleting Application ${app.name} fails` : 'the sync fails'}`;
  };
  let unknown: string | undefined;
  const unknownRole = (what: string) =>
    `a role bound to it is not declared in the repository (Kubernetes' own, or made outside git), so whether it may write ${what} is not known`;
  for (const r of objects) {
    const requests = requestsFor(r);
    const verdict = judged(requests, authorize);
    if (requests[0]!.resource === '' && verdict.allowed < requests.length) {
      unknown ??= `${r.kind} ${r.name} is a kind whose resource name no CRD of the repository gives, so only a rule on every resource is known to grant it`;
      continue;
    }
    if (verdict.denied.length > 0) ctx.fail({ resource: r, path: ['kind'] }, forbidden(`${r.kind} ${r.name}`, verdict.denied), FIX.verbs);
    else if (verdict.unknown) unknown ??= unknownRole(`${r.kind} ${r.name}`);
  }
  // CreateNamespace=true: gitops-engine reads the destination namespace and applies it, with the same account (autoCreateNamespace).
  const options = syncOptions(app);
  if (options.includes('CreateNamespace=true') && app.destinationNamespace) {
    const name = app.destinationNamespace;
    const why = 'to create it (CreateNamespace=true)';
    const verdict = judged(
      ['get', 'create', 'patch'].map((verb) => ({ verb, why, group: '', resource: 'namespaces', namespace: '', name: verb === 'create' ? '' : name })),
      authorize,
    );
    const at = { resource: app.resource, path: ['spec', 'syncPolicy', 'syncOptions', options.indexOf('CreateNamespace=true')] };
    if (verdict.denied.length > 0) ctx.fail(at, forbidden(`Namespace ${name}`, verdict.denied), FIX.verbs);
    else if (verdict.unknown) unknown ??= unknownRole(`Namespace ${name}`);
  }
  return unknown;
}
