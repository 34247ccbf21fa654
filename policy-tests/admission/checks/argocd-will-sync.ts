/**
 * What makes Argo CD itself refuse or never apply an object: an annotation
 * over the limit, a kind its resource filter leaves out (model/controller/resource-filter.ts),
 * a namespace with two owners.
 */
import {
  annotationSyncOptions,
  applications,
  IN_CLUSTER_NAME,
  IN_CLUSTER_SERVER,
  owningApplication,
  syncOptions,
  type ArgoApp,
} from '../../model/argocd/argocd.ts';
import { isHookOrSkipped } from '../../model/controller/hooks.ts';
import { onRefusedUpdate, syncMethodOf } from '../../model/controller/sync-method.ts';
import { ARGOCD_CM_PATCH, argocdSettings, resourcesFilter, verdictsOf } from '../../model/controller/resource-filter.ts';
import { dig } from '../../model/core/dig.ts';
import { groupOf, type Resource } from '../../model/core/manifest.ts';
import { perObject } from '../../model/core/per-object.ts';
import { applyListDuplicates } from '../validation/apply-lists.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** The cluster an object is applied to, as the resource filter matches it: its Application's destination server. */
function clusterOf(app: ArgoApp | undefined): string {
  const destination = (dig(app?.resource.object, ['spec', 'destination']) ?? {}) as { server?: unknown; name?: unknown };
  if (typeof destination.server === 'string') return destination.server;
  return destination.name === IN_CLUSTER_NAME ? IN_CLUSTER_SERVER : '';
}

/**
 * The generateName of an object that has no name and is no hook (Argo CD's own, or Helm's, which it runs as hooks):
 * gitops-engine names a hook from its generateName itself, and applies every other object with kubectl apply.
 */
function generatedName(r: Resource): string | undefined {
  const metadata = (r.object.metadata ?? {}) as { name?: unknown; generateName?: unknown };
  if ((typeof metadata.name === 'string' && metadata.name !== '') || typeof metadata.generateName !== 'string' || metadata.generateName === '')
    return undefined;
  return isHookOrSkipped(r.object) ? undefined : metadata.generateName;
}

/** An object's size as JSON, once per object: a parsed object is shared by every view of its unchanged file. */
const jsonBytes = perObject((object: object) => Buffer.byteLength(JSON.stringify(object)));

/** kubectl's client-side apply keeps the whole object in one annotation; all annotations together may hold 256 KiB. */
const LAST_APPLIED_LIMIT = 256 * 1024;

export const argocdWillSyncCheck: PolicyCheck = {
  id: 'argocd-will-sync',
  description:
    "Argo CD can apply the object: a client-side apply whose last-applied-configuration would pass 256 KiB needs ServerSideApply=true or Replace=true; a kind Argo CD's resource filter leaves out (its core exclusions, argocd-cm's resource.exclusions, which a patch replaces whole, and resource.inclusions) is never applied, and argocd-cm's filter keys must be readable; an object that is no hook has a name (kubectl apply cannot use generateName); no claim is synced with Replace=true (a replace of a bound claim is refused), nor a Job without Force=true (its generated selector is sent as null); one synced with ServerSideApply=true carries no managedFields and has no two env vars of one name or container ports of one port and protocol in a container (server-side apply cannot build it); a namespace is created by one owner only (a Namespace object, or one Application's CreateNamespace=true) (invariants P1).",
  invariants: ['P1'],
  remediation:
    "add ServerSideApply=true to the Application syncOptions (or the object's argocd.argoproj.io/sync-options), drop the excluded object or narrow argocd-cm's resource filter, give an object that is no hook a name, set each env var and container port once in a container synced server-side, sync claims without Replace=true and Jobs without it (or with Force=true beside it), or leave the namespace to one owner",
  reads: { kinds: ['*'], everyKind: 'Argo CD applies every resource, and its resource filter and size limit apply to any kind', files: [ARGOCD_CM_PATCH] },
  exemptible: false,
  run(ctx) {
    const { repo } = ctx;
    const settings = argocdSettings(ctx.resources, repo);
    const { filter, problems } = resourcesFilter(settings);
    const verdict = verdictsOf(filter);
    for (const { key, problem } of problems) {
      const message = `argocd-cm's ${key} cannot be read (${problem}): Argo CD fails to load its resource filter, and with it the settings every sync needs`;
      if (settings?.rendered) ctx.fail({ resource: settings.rendered, path: ['data', key] }, message);
      else if (settings?.patch) ctx.fail({ data: settings.patch, path: ['data', key] }, message);
    }
    for (const r of ctx.resources) {
      const group = groupOf(r.apiVersion);
      const app = owningApplication(repo, r);
      const cluster = clusterOf(app);
      const managed = verdict(group, r.kind, cluster);
      if (managed !== 'managed') {
        const why = managed === 'excluded' ? 'resource.exclusions (or its core list) leave' : `resource.inclusions name kinds for ${cluster} and leave`;
        ctx.fail({ resource: r, path: ['kind'] }, `${r.kind} ${r.name}: Argo CD's ${why} ${group || 'core'}/${r.kind} out, so it is never applied`);
        continue;
      }
      const generated = generatedName(r);
      if (generated) {
        ctx.fail(
          { resource: r, path: ['metadata', 'generateName'] },
          `${r.kind} with generateName ${generated}: Argo CD applies what is not a hook with kubectl apply, which refuses it: "from ${generated}: cannot use generate name with apply"`,
        );
        continue;
      }
      const options = [...syncOptions(app), ...annotationSyncOptions(r.object)];
      if (options.includes('ServerSideApply=true') && dig(r.object, ['metadata', 'managedFields']) !== undefined)
        ctx.fail(
          { resource: r, path: ['metadata', 'managedFields'] },
          `${r.kind} ${r.name} is synced with ServerSideApply=true and carries managedFields, which the API server refuses in an apply: metadata.managedFields must be nil`,
        );
      if (options.includes('ServerSideApply=true'))
        for (const { path, message } of applyListDuplicates(r))
          ctx.fail(
            { resource: r, path },
            `${r.kind} ${r.name} is synced with ServerSideApply=true, which cannot build it: failed to create typed patch object: ${message}`,
          );
      if (r.kind === 'PersistentVolumeClaim' && options.includes('Replace=true') && !r.rendered?.hook)
        ctx.fail(
          { resource: r, path: ['spec'] },
          `PersistentVolumeClaim ${r.name} is synced with Replace=true: a replace sends the claim as written, without the volume it is bound to, and the API server refuses it once the claim is bound: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims`,
        );
      // A replace sends a Job without the selector and pod labels the API server generated at its creation, which its
      // update then refuses; Force=true makes it `kubectl replace --force`, a delete and a create (sync-method.ts).
      const method = r.kind === 'Job' && options.includes('Replace=true') ? syncMethodOf(r.object, undefined, syncOptions(app)) : undefined;
      if (method && onRefusedUpdate(method, r.kind) === 'fails' && !r.rendered?.hook)
        ctx.fail(
          { resource: r, path: ['spec'] },
          `Job ${r.name} is synced with Replace=true: a replace sends it without the selector and pod template labels the API server generated at its creation, so once its manifest changes every sync fails: spec.selector: Invalid value: null: field is immutable`,
        );
      if (options.includes('ServerSideApply=true') || options.includes('Replace=true')) continue;
      const size = jsonBytes(r.object);
      if (size > LAST_APPLIED_LIMIT)
        ctx.fail(
          { resource: r, path: ['metadata'] },
          `${r.kind} ${r.name}: a client-side apply stores the object (${size.toLocaleString('en-US')} bytes) in kubectl.kubernetes.io/last-applied-configuration, over the 262,144-byte annotation limit: "metadata.annotations: Too long"`,
        );
    }
    for (const app of applications(repo)) {
      if (!app.destinationNamespace || !syncOptions(app).includes('CreateNamespace=true')) continue;
      const declared = repo.resources.find((r) => r.kind === 'Namespace' && r.name === app.destinationNamespace);
      const other = applications(repo).find(
        (a) => a !== app && a.destinationNamespace === app.destinationNamespace && syncOptions(a).includes('CreateNamespace=true'),
      );
      if (declared || (other && other.name < app.name))
        ctx.fail(
          { resource: app.resource, path: ['spec', 'syncPolicy', 'syncOptions'] },
          `Application ${app.name} creates namespace ${app.destinationNamespace} (CreateNamespace=true), which ${declared ? `${declared.file} also declares` : `Application ${other!.name} also creates`}: two owners fight over its labels`,
        );
    }
  },
};
