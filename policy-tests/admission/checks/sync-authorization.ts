/**
 * What the API server authorizes when Argo CD syncs as another account: with argocd-cm's
 * `application.sync.impersonation.enabled`, every object of an Application is applied as the ServiceAccount its
 * AppProject names for the destination (model/controller/impersonation.ts), and the RBAC authorizer judges each request
 * by that account's roles (authorization/rbac.ts). A request it refuses fails the sync: forbidden.
 */
import { applications, owningApplication, syncOptions, annotationSyncOptions, type ArgoApp } from '../../model/argocd/argocd.ts';
import { impersonatedAccount, impersonationSettings, IMPERSONATION_ENABLED } from '../../model/controller/impersonation.ts';
import { destinationCluster, knownClusters } from '../../model/argocd/clusters.ts';
import { virtualProject } from '../../model/controller/projects.ts';
import { ARGOCD_CM_PATCH, argocdSettings } from '../../model/controller/resource-filter.ts';
import { groupOf, type Resource, type ScopeLookup } from '../../model/core/manifest.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { builtinResourceName } from '../cel/admission-policies.ts';
import { crdPlurals } from '../crd-schemas.ts';
import { rbacAuthorizer, serviceAccountUser, type Decision, type ResourceRequest } from '../authorization/rbac.ts';

/**
 * The verbs a sync asks for on an object: kubectl apply reads it, then creates it or patches it (server-side apply
 * patches, and creates through the patch); a replace updates it instead of patching.
 */
function verbsFor(app: ArgoApp, r: Resource): string[] {
  const replace = [...syncOptions(app), ...annotationSyncOptions(r.object)].includes('Replace=true');
  return ['get', 'create', replace ? 'update' : 'patch'];
}

interface Scope {
  isBuiltin: (r: Resource) => boolean;
  isClusterScoped: ScopeLookup;
}

/** How the API names a custom kind's resources: its CRD's plural, where the repository holds the CRD. */
type Plurals = ReadonlyMap<string, string>;

/**
 * The request for each verb on an object: a create names no object, every other verb names it. A custom kind whose
 * CRD the repository does not hold has no resource name here (''), which only a rule on every resource (`*`) grants.
 */
function requestsOf({ isBuiltin, isClusterScoped }: Scope, plurals: Plurals, app: ArgoApp, r: Resource): ResourceRequest[] {
  const group = groupOf(r.apiVersion);
  const resource = (isBuiltin(r) ? builtinResourceName(r.kind) : plurals.get(`${group}/${r.kind}`)) ?? '';
  const namespace = isClusterScoped(r.apiVersion, r.kind) ? '' : (r.namespace ?? app.destinationNamespace ?? '');
  return verbsFor(app, r).map((verb) => ({ verb, group, resource, namespace, name: verb === 'create' ? '' : r.name }));
}

export function syncAuthorizationCheck(scope: Scope): PolicyCheck {
  return {
    id: 'argocd-sync-authorized',
    description:
      "Where argocd-cm turns sync impersonation on, every Application syncs as a ServiceAccount its AppProject's destinationServiceAccounts names for its destination (or, with impersonation not enforced, as the controller), and the roles the repository binds to that account let it get, create and patch (update, with Replace=true) every object the Application applies, in its namespace, as the API server's RBAC authorizer judges; a role bound to it that the repository does not declare is not judged (invariants P1).",
    invariants: ['P1'],
    remediation:
      "add a destinationServiceAccounts entry for the Application's destination to its AppProject, or bind the account to a Role or ClusterRole that grants the verbs on those resources (or turn application.sync.impersonation.enforced off to sync the rest as the controller)",
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
      const { clusters } = knownClusters(ctx.resources);
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
          );
          continue;
        }
        if ('none' in account) {
          if (enforced)
            ctx.fail(
              { resource: app.resource, path: ['spec', 'destination'] },
              `Application ${app.name}: no matching service account found for destination server ${server} and namespace ${app.destinationNamespace ?? ''}: argocd-cm's ${IMPERSONATION_ENABLED} is on and AppProject ${app.project} names no destinationServiceAccounts entry for it, so the sync fails`,
            );
          continue;
        }
        const user = serviceAccountUser(account.namespace, account.name);
        let unknown: string | undefined;
        for (const r of objectsOf.get(app.name) ?? []) {
          const requests = requestsOf(scope, plurals, app, r);
          const decisions = requests.map((q) => [q, authorize(user, q)] as [ResourceRequest, Decision]);
          if (requests[0]!.resource === '' && decisions.some(([, d]) => d !== 'allowed')) {
            unknown ??= `${r.kind} ${r.name} is a kind whose resource name no CRD of the repository gives, so only a rule on every resource is known to grant it`;
            continue;
          }
          const denied = decisions.filter(([, d]) => d === 'denied').map(([q]) => q);
          if (denied.length > 0) {
            const q = denied[0]!;
            const where = q.namespace ? ` in the namespace "${q.namespace}"` : ' at the cluster scope';
            ctx.fail(
              { resource: r, path: ['kind'] },
              `Argo CD syncs Application ${app.name} as ${account.user} (AppProject ${app.project}'s destinationServiceAccounts), and ${r.kind} ${r.name} is forbidden: User "${account.user}" cannot ${denied.map((d) => d.verb).join(', ')} resource "${q.resource}" in API group "${q.group}"${where}: the sync fails`,
            );
          } else if (decisions.some(([, d]) => d === 'unknown'))
            unknown ??= `a role bound to it is not declared in the repository (Kubernetes' own, or made outside git), so whether it may write ${r.kind} ${r.name} is not known`;
        }
        if (unknown) ctx.notJudged({ resource: app.resource, path: ['spec', 'project'] }, `Application ${app.name} syncs as ${account.user}: ${unknown}`);
      }
    },
  };
}
