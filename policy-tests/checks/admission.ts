/**
 * The API server's admission chain, as checks: its built-in validation, Pod
 * Security admission, and the CRDs' validation rules (CEL), judged on every
 * plain and rendered object as on a create through Argo CD; and what makes
 * Argo CD itself refuse or never apply an object.
 */
import { rulesOf, ruleViolations, type JsonSchemaNode } from '../admission/cel/crd-rules.ts';
import { crdSchemas } from '../admission/crd-schemas.ts';
import { levelsFor, LABEL_PREFIX, MODES, podSecurityViolations, isLevel, type Level } from '../admission/pod-security.ts';
import { validateBuiltin } from '../admission/validation/kinds.ts';
import { validateObjectMeta } from '../admission/validation/metadata.ts';
import { applications, owningApplication, type ArgoApp } from '../model/argocd.ts';
import { dig } from '../model/dig.ts';
import { groupOf, type Resource } from '../model/manifest.ts';
import type { Repo } from '../model/repo.ts';
import { perRepo } from '../model/per-repo.ts';
import { podSpecOf } from '../model/workloads.ts';
import type { PolicyCheck } from './kit.ts';
import type { ScopeLookup } from './repository.ts';
import { builtinResourceName, policyDecisions } from '../admission/cel/admission-policies.ts';

/** The annotation a namespace whose Pod Security level is below the cluster's default must carry, saying why. */
export const POD_SECURITY_REASON = 'gate.homelab-gitops/pod-security-reason';

const LEVEL_ORDER: Record<Level, number> = { privileged: 0, baseline: 1, restricted: 2 };

function namespaceOf(repo: Repo, r: Resource): string | undefined {
  return r.namespace ?? owningApplication(repo, r)?.destinationNamespace;
}

function syncOptions(app: ArgoApp | undefined): string[] {
  const raw = dig(app?.resource.object, ['spec', 'syncPolicy', 'syncOptions']);
  return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
}

function resourceSyncOptions(r: Resource): string[] {
  const raw = dig(r.object, ['metadata', 'annotations', 'argocd.argoproj.io/sync-options']);
  return typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : [];
}

/**
 * Each namespace's labels, by name: its Namespace object's, else those Argo CD
 * sets when an Application creates it (managedNamespaceMetadata).
 */
const namespaceLabels = perRepo((repo: Repo): Map<string, Record<string, unknown>> => {
  const out = new Map<string, Record<string, unknown>>();
  for (const app of applications(repo)) {
    if (!app.destinationNamespace || out.has(app.destinationNamespace) || !syncOptions(app).includes('CreateNamespace=true')) continue;
    out.set(app.destinationNamespace, (dig(app.resource.object, ['spec', 'syncPolicy', 'managedNamespaceMetadata', 'labels']) ?? {}) as Record<string, unknown>);
  }
  for (const ns of repo.resources) if (ns.kind === 'Namespace') out.set(ns.name, (dig(ns.object, ['metadata', 'labels']) ?? {}) as Record<string, unknown>);
  return out;
});

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
  { groups: ['kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io'], kinds: ['PolicyReport', 'ClusterPolicyReport', 'EphemeralReport', 'ClusterEphemeralReport', 'AdmissionReport', 'ClusterAdmissionReport', 'BackgroundScanReport', 'ClusterBackgroundScanReport', 'UpdateRequest'] },
];

/** kubectl's client-side apply keeps the whole object in one annotation; all annotations together may hold 256 KiB. */
const LAST_APPLIED_LIMIT = 256 * 1024;

const withRules = new WeakMap<JsonSchemaNode, boolean>();
/** Whether a CRD schema holds any validation rule, computed once per schema. */
function hasRules(schema: JsonSchemaNode): boolean {
  let has = withRules.get(schema);
  if (has === undefined) withRules.set(schema, (has = rulesOf(schema).length > 0));
  return has;
}

/** The ids of the admission layer's checks (for the benchmark's share). */
export const ADMISSION_CHECK_IDS: readonly string[] = ['api-validation', 'pod-security', 'crd-validation-rule', 'admission-policy', 'argocd-will-sync'];

export function admissionChecks(builtinGroups: ReadonlySet<string>, isClusterScoped: ScopeLookup = () => false): PolicyCheck[] {
  const isBuiltin = (r: Resource) => builtinGroups.has(groupOf(r.apiVersion));
  return [
    {
      id: 'api-validation',
      description: "The API server's built-in validation accepts the object: names by kind, labels and annotations, pod specs (unique names, mounts that name a volume, ports, probe handlers, quantities, requests within limits, environment names), selectors that match their template, Services, keys, claims, Ingresses, network policies, RBAC, budgets, autoscalers, classes and webhooks (invariants P1; docs/admission.md lists every rule).",
      invariants: ['P1'],
      remediation: 'fix the field the finding names; docs/admission.md gives the Kubernetes rule behind it',
      reads: { kinds: ['*'] },
      exemptible: false,
      run(ctx) {
        for (const r of ctx.resources) {
          const problems = isBuiltin(r) ? validateBuiltin(r.kind, r.object) : validateObjectMeta(r.kind, r.object.metadata, ['metadata']);
          for (const p of problems) ctx.fail({ resource: r, path: p.path }, `${r.kind} ${r.name}: ${p.message} [${p.fn}]`);
        }
      },
    },
    {
      id: 'pod-security',
      description: "Every pod template passes Pod Security admission at its namespace's enforce level (its pod-security.kubernetes.io/enforce label, else the cluster's default in the podSecurity fact; exempt namespaces are skipped); the warn and audit levels are reported as warnings. A namespace whose level is below the default says why (invariants P1).",
      invariants: ['P1'],
      remediation: `make the pod meet the level (drop the capability, the host namespace, the hostPath), or move it to a namespace labelled for what it needs, annotated ${POD_SECURITY_REASON}: "<why>"`,
      reads: { kinds: ['*'] },
      exemptible: false,
      run(ctx) {
        const { repo } = ctx;
        const facts = repo.facts?.podSecurity;
        if (!facts) return;
        const exempt = new Set(facts.exemptNamespaces);
        for (const r of ctx.resources) {
          const pod = podSpecOf(r);
          if (!pod || !isBuiltin(r)) continue;
          const namespace = namespaceOf(repo, r);
          if (!namespace || exempt.has(namespace)) continue;
          const levels = levelsFor(namespaceLabels(repo).get(namespace), facts.defaults);
          const meta = (r.kind === 'Pod' ? dig(r.object, ['metadata']) : dig(r.object, [...pod.at.slice(0, -1), 'metadata'])) ?? {};
          const metaAt = r.kind === 'Pod' ? [] : pod.at.slice(0, -1);
          const place = (path: (string | number)[]) => ({ resource: r, path: path[0] === 'metadata' ? [...metaAt, ...path] : [...pod.at, ...path] });
          const enforced = podSecurityViolations(levels.enforce, meta as never, pod.spec);
          for (const v of enforced) ctx.fail(place(v.path), `${r.kind} ${r.name}: its pods are refused in namespace ${namespace}: violates PodSecurity "${levels.enforce}:latest" (enforce): ${v.message} [${v.control}]`);
          const reported = new Set(enforced.map((v) => v.message));
          for (const mode of ['warn', 'audit'] as const) {
            if (LEVEL_ORDER[levels[mode]] <= LEVEL_ORDER[levels.enforce]) continue;
            for (const v of podSecurityViolations(levels[mode], meta as never, pod.spec)) {
              if (reported.has(v.message)) continue;
              reported.add(v.message);
              ctx.warn(place(v.path), `${r.kind} ${r.name}: would violate PodSecurity "${levels[mode]}:latest" (${mode}) in namespace ${namespace}: ${v.message} [${v.control}]`);
            }
          }
        }
        for (const ns of repo.resources.filter((r) => r.kind === 'Namespace')) {
          const labels = (dig(ns.object, ['metadata', 'labels']) ?? {}) as Record<string, unknown>;
          for (const mode of MODES) {
            const key = `${LABEL_PREFIX}${mode}`;
            if (labels[key] !== undefined && !isLevel(labels[key])) ctx.fail({ resource: ns, path: ['metadata', 'labels', key] }, `Namespace ${ns.name}: ${key} must be privileged, baseline or restricted, not "${String(labels[key])}"`);
          }
          const enforce = levelsFor(labels, facts.defaults).enforce;
          if (LEVEL_ORDER[enforce] >= LEVEL_ORDER[facts.defaults.enforce]) continue;
          const reason = dig(ns.object, ['metadata', 'annotations', POD_SECURITY_REASON]);
          // Whether its pods need that level cannot be judged here: operators (Rook, for one) create the privileged pods at run time.
          if (typeof reason !== 'string' || reason.trim() === '') ctx.fail({ resource: ns, path: ['metadata', 'labels', `${LABEL_PREFIX}enforce`] }, `Namespace ${ns.name} enforces only "${enforce}", below the cluster's "${facts.defaults.enforce}", without saying why: annotate it ${POD_SECURITY_REASON}`);
        }
      },
    },
    {
      id: 'crd-validation-rule',
      description: "Every custom resource passes its CRD's validation rules (x-kubernetes-validations, CEL with the Kubernetes libraries), with the CRD the repository renders or, failing that, the schema bundled with the gate; rules the evaluator cannot compile are counted as not judged in the summary (invariants P1).",
      invariants: ['P1'],
      remediation: "change the resource so the rule holds; the message is the CRD's own",
      reads: { kinds: ['*'] },
      exemptible: false,
      run(ctx) {
        const schemas = crdSchemas(ctx.repo.resources);
        for (const r of ctx.resources) {
          if (isBuiltin(r) || r.kind === 'CustomResourceDefinition') continue;
          const crd = schemas.get(`${r.apiVersion}/${r.kind}`);
          if (!crd || !hasRules(crd.schema)) continue;
          for (const v of ruleViolations(crd.schema, r.object)) ctx.fail({ resource: r, path: v.path }, `${r.kind} ${r.name}: ${v.message} (rule of ${crd.source})`);
        }
      },
    },
    {
      id: 'admission-policy',
      description: 'Every object passes the ValidatingAdmissionPolicies the repository renders, through their bindings, as on a create: a Deny action is a finding, Warn and Audit are warnings; a policy with parameters is not judged, and counted (invariants P1).',
      invariants: ['P1'],
      remediation: "change the object so the policy's validation holds; the message is the policy's own",
      reads: { kinds: ['*'] },
      exemptible: false,
      run(ctx) {
        const { repo } = ctx;
        const ofKind = (kind: string) => repo.resources.filter((r) => r.kind === kind && groupOf(r.apiVersion) === 'admissionregistration.k8s.io').map((r) => r.object);
        const [policies, bindings] = [ofKind('ValidatingAdmissionPolicy'), ofKind('ValidatingAdmissionPolicyBinding')];
        if (policies.length === 0 || bindings.length === 0) return;
        const plurals = new Map<string, string>();
        for (const crd of repo.resources.filter((r) => r.kind === 'CustomResourceDefinition')) plurals.set(`${String(dig(crd.object, ['spec', 'group']))}/${String(dig(crd.object, ['spec', 'names', 'kind']))}`, String(dig(crd.object, ['spec', 'names', 'plural'])));
        // The API server labels every namespace with its own name (kubernetes.io/metadata.name), which selectors often read.
        const namespaces = new Map(repo.resources.filter((r) => r.kind === 'Namespace').map((r) => [r.name, { ...r.object, metadata: { ...(r.object.metadata as object), labels: { ...((dig(r.object, ['metadata', 'labels']) ?? {}) as object), 'kubernetes.io/metadata.name': r.name } } }]));
        for (const r of ctx.resources) {
          const namespace = isClusterScoped(r.apiVersion, r.kind) ? undefined : namespaceOf(repo, r);
          const resource = isBuiltin(r) ? builtinResourceName(r.kind) : (plurals.get(`${groupOf(r.apiVersion)}/${r.kind}`) ?? builtinResourceName(r.kind));
          const target = { apiVersion: r.apiVersion, kind: r.kind, resource, namespace, object: r.object, namespaceObject: namespace === undefined ? undefined : namespaces.get(namespace) };
          for (const d of policyDecisions(policies, bindings, target)) {
            const message = `${r.kind} ${r.name}: ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
            if (d.actions.includes('Deny')) ctx.fail({ resource: r, path: ['metadata'] }, message);
            else if (d.actions.includes('Warn') || d.actions.includes('Audit')) ctx.warn({ resource: r, path: ['metadata'] }, message);
          }
        }
      },
    },
    {
      id: 'argocd-will-sync',
      description: "Argo CD can apply the object: a client-side apply whose last-applied-configuration would pass 256 KiB needs ServerSideApply=true or Replace=true; a kind in Argo CD's default resource.exclusions is never applied; a namespace is created by one owner only (a Namespace object, or one Application's CreateNamespace=true) (invariants P1).",
      invariants: ['P1'],
      remediation: 'add ServerSideApply=true to the Application syncOptions (or the object\'s argocd.argoproj.io/sync-options), drop the excluded object, or leave the namespace to one owner',
      reads: { kinds: ['*'] },
      exemptible: false,
      run(ctx) {
        const { repo } = ctx;
        for (const r of ctx.resources) {
          const group = groupOf(r.apiVersion);
          if (ARGOCD_EXCLUDED.some((e) => e.groups.includes(group) && (e.kinds.includes('*') || e.kinds.includes(r.kind)))) {
            ctx.fail({ resource: r, path: ['kind'] }, `${r.kind} ${r.name}: Argo CD's default resource.exclusions leave ${group || 'core'}/${r.kind} out, so it is never applied`);
            continue;
          }
          const app = owningApplication(repo, r);
          const options = [...syncOptions(app), ...resourceSyncOptions(r)];
          if (options.includes('ServerSideApply=true') || options.includes('Replace=true')) continue;
          const size = Buffer.byteLength(JSON.stringify(r.object));
          if (size > LAST_APPLIED_LIMIT) ctx.fail({ resource: r, path: ['metadata'] }, `${r.kind} ${r.name}: a client-side apply stores the object (${size.toLocaleString('en-US')} bytes) in kubectl.kubernetes.io/last-applied-configuration, over the 262,144-byte annotation limit: "metadata.annotations: Too long"`);
        }
        for (const app of applications(repo)) {
          if (!app.destinationNamespace || !syncOptions(app).includes('CreateNamespace=true')) continue;
          const declared = repo.resources.find((r) => r.kind === 'Namespace' && r.name === app.destinationNamespace);
          const other = applications(repo).find((a) => a !== app && a.destinationNamespace === app.destinationNamespace && syncOptions(a).includes('CreateNamespace=true'));
          if (declared || (other && other.name < app.name)) ctx.fail({ resource: app.resource, path: ['spec', 'syncPolicy', 'syncOptions'] }, `Application ${app.name} creates namespace ${app.destinationNamespace} (CreateNamespace=true), which ${declared ? `${declared.file} also declares` : `Application ${other!.name} also creates`}: two owners fight over its labels`);
        }
      },
    },
  ];
}
