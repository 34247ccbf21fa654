/**
 * What makes Argo CD itself refuse or never apply an object: an annotation
 * over the limit, a kind in its default exclusions, a namespace with two owners.
 */
import { annotationSyncOptions, applications, owningApplication, syncOptions } from '../../model/argocd/argocd.ts';
import { groupOf } from '../../model/core/manifest.ts';
import { perObject } from '../../model/core/per-object.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/**
 * Argo CD's default `resource.exclusions` (the argocd-cm of its install
 * manifests): kinds it never applies, so a manifest of one is silently inert.
 */
export const ARGOCD_EXCLUDED: readonly { groups: readonly string[]; kinds: readonly string[] }[] = [
  { groups: ['', 'discovery.k8s.io'], kinds: ['Endpoints', 'EndpointSlice'] },
  { groups: ['apiregistration.k8s.io'], kinds: ['APIService'] },
  { groups: ['coordination.k8s.io'], kinds: ['Lease'] },
  { groups: ['authentication.k8s.io', 'authorization.k8s.io'], kinds: ['*'] },
  { groups: ['certificates.k8s.io'], kinds: ['CertificateSigningRequest'] },
  { groups: ['cert-manager.io'], kinds: ['CertificateRequest'] },
  { groups: ['cilium.io'], kinds: ['CiliumIdentity', 'CiliumEndpoint', 'CiliumEndpointSlice'] },
  {
    groups: ['kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io'],
    kinds: [
      'PolicyReport',
      'ClusterPolicyReport',
      'EphemeralReport',
      'ClusterEphemeralReport',
      'AdmissionReport',
      'ClusterAdmissionReport',
      'BackgroundScanReport',
      'ClusterBackgroundScanReport',
      'UpdateRequest',
    ],
  },
];

/** An object's size as JSON, once per object: a parsed object is shared by every view of its unchanged file. */
const jsonBytes = perObject((object: object) => Buffer.byteLength(JSON.stringify(object)));

/** kubectl's client-side apply keeps the whole object in one annotation; all annotations together may hold 256 KiB. */
const LAST_APPLIED_LIMIT = 256 * 1024;

export const argocdWillSyncCheck: PolicyCheck = {
  id: 'argocd-will-sync',
  description:
    "Argo CD can apply the object: a client-side apply whose last-applied-configuration would pass 256 KiB needs ServerSideApply=true or Replace=true; a kind in Argo CD's default resource.exclusions is never applied; a namespace is created by one owner only (a Namespace object, or one Application's CreateNamespace=true) (invariants P1).",
  invariants: ['P1'],
  remediation:
    "add ServerSideApply=true to the Application syncOptions (or the object's argocd.argoproj.io/sync-options), drop the excluded object, or leave the namespace to one owner",
  reads: { kinds: ['*'], everyKind: 'Argo CD applies every resource, and its exclusions and size limit apply to any kind' },
  exemptible: false,
  run(ctx) {
    const { repo } = ctx;
    for (const r of ctx.resources) {
      const group = groupOf(r.apiVersion);
      if (ARGOCD_EXCLUDED.some((e) => e.groups.includes(group) && (e.kinds.includes('*') || e.kinds.includes(r.kind)))) {
        ctx.fail(
          { resource: r, path: ['kind'] },
          `${r.kind} ${r.name}: Argo CD's default resource.exclusions leave ${group || 'core'}/${r.kind} out, so it is never applied`,
        );
        continue;
      }
      const app = owningApplication(repo, r);
      const options = [...syncOptions(app), ...annotationSyncOptions(r.object)];
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
