/**
 * The closure model: every reference a resource makes to a class, a store,
 * an issuer or a namespace resolves to something the repository renders
 * (plain or through a chart), to what Kubernetes itself creates, or to an
 * entry of `providedOutsideGit` in the cluster facts, which says why.
 */
import { applications, applicationsByName, owningApplication, ownersByFile, type ArgoApp } from '../model/argocd.ts';
import { before, placeOf, skipsDryRunOnMissingResource, type SyncPosition } from '../model/waves.ts';
import { dig } from '../model/dig.ts';
import { groupOf, type Resource } from '../model/manifest.ts';
import type { Path } from '../model/positions.ts';
import { perRepo } from '../model/per-repo.ts';
import type { Repo } from '../model/repo.ts';
import type { CheckContext, PolicyCheck } from './kit.ts';
import type { ScopeLookup } from './repository.ts';

/** What Kubernetes creates by itself, whatever the distribution. */
const KUBERNETES_PROVIDES: Record<string, readonly string[]> = {
  Namespace: ['default', 'kube-system', 'kube-public', 'kube-node-lease'],
  PriorityClass: ['system-cluster-critical', 'system-node-critical'],
};

const FACTS_FIX = 'or, when something outside git provides it, list it under providedOutsideGit in clusters/home/cluster-facts.yaml with the reason';

/** Names of `kind` (in `namespace`, for namespaced kinds) the cluster will have. */
function provided(repo: Repo, kind: string, namespace?: string): Set<string> {
  const names = new Set<string>(KUBERNETES_PROVIDES[kind] ?? []);
  for (const r of repo.resources) if (r.kind === kind && (namespace === undefined || r.namespace === namespace)) names.add(r.name);
  for (const e of repo.facts?.providedOutsideGit ?? []) if (e.kind === kind && (namespace === undefined || e.namespace === namespace)) names.add(e.name);
  if (kind === 'Namespace') {
    // An Application with CreateNamespace=true creates its destination namespace.
    for (const app of applications(repo)) {
      const options = (dig(app.resource.object, ['spec', 'syncPolicy', 'syncOptions']) ?? []) as unknown[];
      if (options.includes('CreateNamespace=true') && app.destinationNamespace) names.add(app.destinationNamespace);
    }
  }
  return names;
}

interface Reference {
  resource: Resource;
  path: Path;
  kind: string;
  name: string;
  namespace?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function podSpecs(r: Resource): { spec: Record<string, unknown>; at: Path }[] {
  const o = r.object as Record<string, unknown>;
  if (r.kind === 'Pod') return [{ spec: (o.spec ?? {}) as Record<string, unknown>, at: ['spec'] }];
  if (r.kind === 'CronJob') return [{ spec: (dig(o, ['spec', 'jobTemplate', 'spec', 'template', 'spec']) ?? {}) as Record<string, unknown>, at: ['spec', 'jobTemplate', 'spec', 'template', 'spec'] }];
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job'].includes(r.kind)) return [{ spec: (dig(o, ['spec', 'template', 'spec']) ?? {}) as Record<string, unknown>, at: ['spec', 'template', 'spec'] }];
  return [];
}

/** Runs one reference family: each unresolved reference is a finding at the field that names it. */
function closure(ctx: CheckContext, refs: Iterable<Reference>, what: string): void {
  const cache = new Map<string, Set<string>>();
  for (const ref of refs) {
    const key = `${ref.kind}/${ref.namespace ?? ''}`;
    let names = cache.get(key);
    if (!names) cache.set(key, (names = provided(ctx.repo, ref.kind, ref.namespace)));
    if (!names.has(ref.name)) ctx.fail({ resource: ref.resource, path: ref.path }, `${ref.resource.kind} ${ref.resource.name} uses ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}, which nothing in the repository provides${what}`);
  }
}

/** The namespace a namespaced resource lands in: its own, or (from the maps a caller built once) its Application's destination. */
function namespaceFromMaps(r: Resource, byFile: Map<string, string | undefined>, byApp: Map<string, string | undefined>): string | undefined {
  return r.namespace ?? (r.rendered ? byApp.get(r.rendered.app) : byFile.get(r.file));
}

/** The annotation by which an Application says which API groups' CRDs it installs, so the gate knows offline. */
export const PROVIDES_CRDS = 'gate.homelab-gitops/provides-crds';


/** The annotation by which an Application says which API groups its chart's objects use, so the gate knows offline. */
export const REQUIRES_CRDS = 'gate.homelab-gitops/requires-crds';
/** The annotation by which an Application says its chart renders a LoadBalancer Service. */
export const REQUIRES_LOAD_BALANCER = 'gate.homelab-gitops/requires-load-balancer';

/** An Application's declared CRDs (provided, or with `annotation`, required), comma-separated: an API group (all its kinds) or `group/Kind`. */
function declaredEntries(app: { resource: Resource }, annotation: string = PROVIDES_CRDS): string[] {
  const raw = str(dig(app.resource.object, ['metadata', 'annotations', annotation]));
  return raw ? raw.split(',').map((g) => g.trim()).filter(Boolean) : [];
}

/** The API groups of an Application's declaration. */
function declaredGroups(app: { resource: Resource }, annotation: string = PROVIDES_CRDS): string[] {
  return [...new Set(declaredEntries(app, annotation).map((e) => e.split('/')[0]!))];
}

function storageRefs(resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources) {
    if (r.kind === 'PersistentVolumeClaim') {
      const name = str(dig(r.object, ['spec', 'storageClassName']));
      if (name) refs.push({ resource: r, path: ['spec', 'storageClassName'], kind: 'StorageClass', name });
    } else if (r.kind === 'StatefulSet') {
      ((dig(r.object, ['spec', 'volumeClaimTemplates']) ?? []) as unknown[]).forEach((t, i) => {
        const name = str(dig(t, ['spec', 'storageClassName']));
        if (name) refs.push({ resource: r, path: ['spec', 'volumeClaimTemplates', i, 'spec', 'storageClassName'], kind: 'StorageClass', name });
      });
    } else if (r.kind === 'ReplicationSource') {
      for (const mover of ['restic', 'rclone', 'rsync', 'rsyncTLS']) {
        const snapshot = str(dig(r.object, ['spec', mover, 'volumeSnapshotClassName']));
        if (snapshot) refs.push({ resource: r, path: ['spec', mover, 'volumeSnapshotClassName'], kind: 'VolumeSnapshotClass', name: snapshot });
        const storage = str(dig(r.object, ['spec', mover, 'storageClassName']));
        if (storage) refs.push({ resource: r, path: ['spec', mover, 'storageClassName'], kind: 'StorageClass', name: storage });
      }
    }
  }
  return refs;
}

function ingressRefs(resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources.filter((x) => x.kind === 'Ingress')) {
    const name = str(dig(r.object, ['spec', 'ingressClassName']));
    const annotation = str(dig(r.object, ['metadata', 'annotations', 'kubernetes.io/ingress.class']));
    if (name) refs.push({ resource: r, path: ['spec', 'ingressClassName'], kind: 'IngressClass', name });
    else if (annotation) refs.push({ resource: r, path: ['metadata', 'annotations', 'kubernetes.io/ingress.class'], kind: 'IngressClass', name: annotation });
    else refs.push({ resource: r, path: ['spec'], kind: 'IngressClass', name: '(none named; no class is the default)' });
  }
  return refs;
}

function storeRefs(resources: readonly Resource[]): Reference[] {
  return resources.filter((x) => x.kind === 'ExternalSecret').map((r) => {
    const kind = str(dig(r.object, ['spec', 'secretStoreRef', 'kind'])) ?? 'SecretStore';
    const name = str(dig(r.object, ['spec', 'secretStoreRef', 'name'])) ?? '';
    return { resource: r, path: ['spec', 'secretStoreRef', 'name'], kind, name, ...(kind === 'SecretStore' ? { namespace: r.namespace } : {}) };
  });
}

function issuerRefs(resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources) {
    if (r.kind === 'Certificate') {
      const kind = str(dig(r.object, ['spec', 'issuerRef', 'kind'])) ?? 'Issuer';
      const name = str(dig(r.object, ['spec', 'issuerRef', 'name'])) ?? '';
      refs.push({ resource: r, path: ['spec', 'issuerRef', 'name'], kind, name, ...(kind === 'Issuer' ? { namespace: r.namespace } : {}) });
    } else if (r.kind === 'Ingress') {
      for (const [annotation, kind] of [['cert-manager.io/cluster-issuer', 'ClusterIssuer'], ['cert-manager.io/issuer', 'Issuer']] as const) {
        const name = str(dig(r.object, ['metadata', 'annotations', annotation]));
        if (name) refs.push({ resource: r, path: ['metadata', 'annotations', annotation], kind, name, ...(kind === 'Issuer' ? { namespace: r.namespace } : {}) });
      }
    }
  }
  return refs;
}

function priorityRefs(resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources) {
    for (const { spec, at } of podSpecs(r)) {
      const name = str(spec.priorityClassName);
      if (name) refs.push({ resource: r, path: [...at, 'priorityClassName'], kind: 'PriorityClass', name });
    }
  }
  return refs;
}

function namespaceRefs(repo: Repo, resources: readonly Resource[], isClusterScoped: ScopeLookup): Reference[] {
  const apps = applications(repo);
  const byApp = new Map(apps.map((a) => [a.name, a.sources.find((s) => s.helm?.namespace)?.helm?.namespace ?? a.destinationNamespace]));
  const byFile = new Map([...ownersByFile(repo)].map(([file, owners]) => [file, owners[0]?.destinationNamespace]));
  const refs: Reference[] = [];
  for (const r of resources) {
    if (r.kind === 'Namespace' || isClusterScoped(r.apiVersion, r.kind)) continue;
    const namespace = namespaceFromMaps(r, byFile, byApp);
    if (namespace) refs.push({ resource: r, path: r.namespace ? ['metadata', 'namespace'] : ['metadata', 'name'], kind: 'Namespace', name: namespace });
  }
  return refs;
}

/** Namespaces the offline gate cannot see whole: an app deploying there has a source it could not render. */
function opaqueNamespaces(ctx: CheckContext): Set<string> {
  return new Set(ctx.renders.filter((r) => r.status !== 'rendered').map((r) => r.app.destinationNamespace ?? ''));
}

/** Runs a family of references inside namespaces: a missing provider in a namespace the gate cannot see whole is not judged. */
function namespacedClosure(ctx: CheckContext, refs: readonly Reference[], provides: (ref: Reference) => boolean, what: string): void {
  const opaque = opaqueNamespaces(ctx);
  for (const ref of refs) {
    if (provides(ref) || opaque.has(ref.namespace ?? '')) continue;
    ctx.fail({ resource: ref.resource, path: ref.path }, `${ref.resource.kind} ${ref.resource.name} uses ${ref.kind} ${ref.namespace}/${ref.name}, which nothing in the repository provides${what}`);
  }
}

interface PodRef extends Reference {
  optional: boolean;
}

/** Every Secret, ConfigMap, ServiceAccount and claim a pod template names, with the field that names it. */
function podRefs(repo: Repo, resources: readonly Resource[]): PodRef[] {
  const out: PodRef[] = [];
  for (const r of resources) {
    const namespace = effectiveNamespace(repo, r);
    for (const { spec, at } of podSpecs(r)) {
      const push = (kind: string, name: unknown, path: Path, optional: unknown) => {
        if (typeof name === 'string' && name !== '') out.push({ resource: r, path, kind, name, namespace, optional: optional === true });
      };
      push('ServiceAccount', spec.serviceAccountName, [...at, 'serviceAccountName'], false);
      ((spec.volumes ?? []) as Record<string, any>[]).forEach((v, i) => {
        push('Secret', v.secret?.secretName, [...at, 'volumes', i, 'secret', 'secretName'], v.secret?.optional);
        push('ConfigMap', v.configMap?.name, [...at, 'volumes', i, 'configMap', 'name'], v.configMap?.optional);
        push('PersistentVolumeClaim', v.persistentVolumeClaim?.claimName, [...at, 'volumes', i, 'persistentVolumeClaim', 'claimName'], false);
        ((v.projected?.sources ?? []) as Record<string, any>[]).forEach((src, j) => {
          push('Secret', src.secret?.name, [...at, 'volumes', i, 'projected', 'sources', j, 'secret', 'name'], src.secret?.optional);
          push('ConfigMap', src.configMap?.name, [...at, 'volumes', i, 'projected', 'sources', j, 'configMap', 'name'], src.configMap?.optional);
        });
      });
      for (const list of ['containers', 'initContainers'] as const) {
        ((spec[list] ?? []) as Record<string, any>[]).forEach((c, i) => {
          ((c.env ?? []) as Record<string, any>[]).forEach((e, j) => {
            push('Secret', e.valueFrom?.secretKeyRef?.name, [...at, list, i, 'env', j, 'valueFrom', 'secretKeyRef', 'name'], e.valueFrom?.secretKeyRef?.optional);
            push('ConfigMap', e.valueFrom?.configMapKeyRef?.name, [...at, list, i, 'env', j, 'valueFrom', 'configMapKeyRef', 'name'], e.valueFrom?.configMapKeyRef?.optional);
          });
          ((c.envFrom ?? []) as Record<string, any>[]).forEach((e, j) => {
            push('Secret', e.secretRef?.name, [...at, list, i, 'envFrom', j, 'secretRef', 'name'], e.secretRef?.optional);
            push('ConfigMap', e.configMapRef?.name, [...at, list, i, 'envFrom', j, 'configMapRef', 'name'], e.configMapRef?.optional);
          });
        });
      }
    }
  }
  return out;
}

/** The annotation by which an Application lists what its controllers create at run time ("Secret ns/name, Service ns/name"). */
export const CREATES_AT_RUNTIME = 'gate.homelab-gitops/creates-at-runtime';

/** Objects Applications say their controllers create at run time, as `Kind namespace/name`. */
export function createdAtRuntime(repo: Repo): { kind: string; namespace: string; name: string }[] {
  const out: { kind: string; namespace: string; name: string }[] = [];
  for (const app of applications(repo)) {
    const raw = str(dig(app.resource.object, ['metadata', 'annotations', CREATES_AT_RUNTIME]));
    for (const entry of raw?.split(',') ?? []) {
      const m = /^\s*(\w+)\s+([^/\s]+)\/(\S+)\s*$/.exec(entry);
      if (m) out.push({ kind: m[1]!, namespace: m[2]!, name: m[3]! });
    }
  }
  return out;
}

/** The namespace a resource lands in: its own, or its Application's destination. */
function effectiveNamespace(repo: Repo, r: Resource): string | undefined {
  return r.namespace ?? owningApplication(repo, r)?.destinationNamespace;
}

/** Names of `kind` each namespace will hold: declared objects, and what ExternalSecrets, Certificates, controllers and Kubernetes itself create. */
function namespacedProviders(repo: Repo, kind: string): Set<string> {
  const out = new Set<string>();
  const add = (namespace: string | undefined, name: string) => out.add(`${namespace ?? ''}/${name}`);
  for (const e of createdAtRuntime(repo)) if (e.kind === kind) add(e.namespace, e.name);
  // The kinds that yield a `kind`: itself, and what writes or claims one.
  const yielding = new Set([kind, ...(kind === 'Secret' ? ['ExternalSecret', 'Certificate'] : []), ...(kind === 'PersistentVolumeClaim' ? ['StatefulSet'] : [])]);
  for (const r of repo.resources) {
    if (!yielding.has(r.kind)) continue;
    const namespace = effectiveNamespace(repo, r);
    if (r.kind === kind) add(namespace, r.name);
    if (r.kind === 'ExternalSecret') add(namespace, str(dig(r.object, ['spec', 'target', 'name'])) ?? r.name);
    if (r.kind === 'Certificate') add(namespace, str(dig(r.object, ['spec', 'secretName'])) ?? '');
    if (r.kind === 'StatefulSet') {
      // A StatefulSet's claims are <template>-<set>-<ordinal>; its pods name the template.
      for (const t of (dig(r.object, ['spec', 'volumeClaimTemplates']) ?? []) as Record<string, any>[]) if (typeof t?.metadata?.name === 'string') add(namespace, t.metadata.name);
    }
  }
  for (const e of repo.facts?.providedOutsideGit ?? []) if (e.kind === kind) add(e.namespace, e.name);
  return out;
}

/** The resource that provides a reference, when a file or a render of the repository does. */
function providerOf(repo: Repo, ref: Reference): Resource | undefined {
  return resourcesByKindAndName(repo).get(`${ref.kind}\0${ref.name}`)?.find((r) => ref.namespace === undefined || r.namespace === ref.namespace);
}

/** The repository's resources by kind and name, in their order: every reference is a lookup, not a scan. */
const resourcesByKindAndName = perRepo((repo: Repo): Map<string, Resource[]> => {
  const out = new Map<string, Resource[]>();
  for (const r of repo.resources) {
    const key = `${r.kind}\0${r.name}`;
    const list = out.get(key);
    if (list) list.push(r);
    else out.set(key, [r]);
  }
  return out;
});

export function closureChecks(isClusterScoped: ScopeLookup, builtinGroups: ReadonlySet<string> = new Set()): PolicyCheck[] {
  return [
    {
      id: 'closure-crd',
      description: `Every custom kind's CRD is installed by the repository: rendered or plain, or declared by the Application that installs it (${PROVIDES_CRDS}, checked against the render whenever the chart is rendered), or listed in providedOutsideGit (invariants P1).`,
      invariants: ['P1'],
      remediation: `deploy the operator that installs the CRD, and give its Application the annotation ${PROVIDES_CRDS}: "<api groups>" (the groups its render installs), ${FACTS_FIX}`,
      reads: { kinds: ['*'], renders: true },
      exemptible: false,
      run(ctx) {
        const { repo } = ctx;
        // Per kind: `group/Kind` from every CRD the repository applies or renders; `group/*` only from a
        // declaration whose chart was not rendered here (a rendered chart shows exactly which kinds it installs).
        const provided = new Set<string>();
        const providedGroups = new Set<string>();
        for (const r of repo.resources) {
          if (r.kind !== 'CustomResourceDefinition') continue;
          const group = String(dig(r.object, ['spec', 'group']) ?? '');
          provided.add(`${group}/${String(dig(r.object, ['spec', 'names', 'kind']) ?? '')}`);
          providedGroups.add(group);
        }
        const renderedApps = new Set(ctx.renders.filter((x) => x.status === 'rendered' && x.source.chart !== undefined).map((x) => x.app.name));
        for (const app of applications(repo)) {
          for (const e of declaredEntries(app)) {
            providedGroups.add(e.split('/')[0]!);
            if (!renderedApps.has(app.name)) provided.add(e.includes('/') ? e : `${e}/*`);
          }
        }
        for (const e of repo.facts?.providedOutsideGit ?? []) if (e.kind === 'CustomResourceDefinition') provided.add(`${e.name.includes('.') && e.name.split('.').length > 2 ? e.name.slice(e.name.indexOf('.') + 1) : e.name}/*`);
        const reported = new Set<string>();
        for (const r of ctx.resources) {
          const group = groupOf(r.apiVersion);
          if (builtinGroups.has(group) || provided.has(`${group}/${r.kind}`) || provided.has(`${group}/*`)) continue;
          // One finding per kind and file: a missing operator shows once where each kind is used.
          const key = `${r.file}#${r.kind}`;
          if (reported.has(key)) continue;
          reported.add(key);
          ctx.fail({ resource: r, path: ['apiVersion'] }, providedGroups.has(group)
            ? `${r.kind} is a kind of ${group}, but no CRD installed here defines ${r.kind} (the group's other kinds are there): the sync fails with "no matches for kind"`
            : `${r.kind} is a kind of ${group}, whose CRD nothing in the repository installs: the sync fails with "no matches for kind"`);
        }
        // What a chart's objects need, declared on its Application: judged offline too.
        for (const app of applications(repo)) {
          const missing = declaredGroups(app, REQUIRES_CRDS).filter((g) => !providedGroups.has(g) && !builtinGroups.has(g));
          if (missing.length) ctx.fail({ resource: app.resource, path: ['metadata', 'annotations', REQUIRES_CRDS] }, `${app.name}'s chart uses kinds of ${missing.join(', ')}, whose CRDs nothing in the repository installs`);
        }
        // A rendered chart's custom kinds must be on that word, so it stays true.
        for (const render of ctx.renders.filter((x) => x.status === 'rendered' && x.source.chart !== undefined)) {
          const own = new Set(declaredGroups(render.app));
          const required = new Set(declaredGroups(render.app, REQUIRES_CRDS));
          const used = [...new Set(render.resources.filter((r) => r.kind !== 'CustomResourceDefinition').map((r) => groupOf(r.apiVersion)))].filter((g) => !builtinGroups.has(g) && !own.has(g) && !required.has(g));
          if (used.length) ctx.fail({ resource: render.app.resource, path: ['metadata', 'annotations'], target: 'key' }, `${render.label} renders kinds of ${used.join(', ')}, which ${REQUIRES_CRDS} does not list: offline, the gate would not know the app needs them`);
        }
        // A declaration must say what the render installs, or the offline gate trusts a wrong word.
        for (const render of ctx.renders.filter((x) => x.status === 'rendered')) {
          const rendered = new Set(render.resources.filter((r) => r.kind === 'CustomResourceDefinition').map((r) => String(dig(r.object, ['spec', 'group']) ?? '')));
          const declared = new Set(declaredGroups(render.app));
          const sameApp = ctx.renders.filter((x) => x.app === render.app && x.status === 'rendered').flatMap((x) => x.resources.filter((r) => r.kind === 'CustomResourceDefinition').map((r) => String(dig(r.object, ['spec', 'group']) ?? '')));
          const missing = [...rendered].filter((g) => !declared.has(g));
          const extra = [...declared].filter((g) => !sameApp.includes(g) && !repo.resources.some((r) => r.kind === 'CustomResourceDefinition' && dig(r.object, ['spec', 'group']) === g));
          const at = { resource: render.app.resource, path: ['metadata', 'annotations'] as Path, target: 'key' as const };
          if (missing.length) ctx.fail(at, `${render.label} installs the CRDs of ${missing.join(', ')}, but ${PROVIDES_CRDS} does not say so: offline, the gate would not know`);
          if (extra.length && render === ctx.renders.find((x) => x.app === render.app && x.status === 'rendered')) ctx.fail(at, `${PROVIDES_CRDS} declares ${extra.join(', ')}, but the render installs no CRD of ${extra.length === 1 ? 'that group' : 'those groups'}`);
        }
      },
    },
    // Cluster-wide names a resource refers to: one shape, one row each.
    ...([
      {
        id: 'closure-storage-class',
        description: 'Every StorageClass a claim asks for, and every VolumeSnapshotClass VolSync snapshots with, is one the repository provides (or Kubernetes, or an entry of providedOutsideGit); otherwise the claim stays Pending (invariants P1).',
        remediation: `name a class apps/platform/rook-ceph-cluster/classes.yaml declares, ${FACTS_FIX}`,
        kinds: ['PersistentVolumeClaim', 'StatefulSet', 'ReplicationSource', 'StorageClass', 'VolumeSnapshotClass', 'Application'],
        refs: storageRefs,
        effect: ': the claim would stay Pending',
      },
      {
        id: 'closure-ingress-class',
        description: 'Every IngressClass an Ingress names is one the repository provides (each ingress proxy app declares its class); otherwise no proxy serves the route (invariants P1).',
        remediation: `name gateway (public) or private-gateway (LAN only), as apps/platform/ingress-*/ingressclass.yaml declare, ${FACTS_FIX}`,
        kinds: ['Ingress', 'IngressClass', 'Application'],
        refs: ingressRefs,
        effect: ': no proxy serves this route',
      },
      {
        id: 'closure-secret-store',
        description: 'Every ClusterSecretStore or SecretStore an ExternalSecret reads from is one the repository provides; otherwise the Secret is never written (invariants P1).',
        remediation: `name the store apps/platform/external-secrets/clustersecretstore.yaml declares (ClusterSecretStore homelab), ${FACTS_FIX}`,
        kinds: ['ExternalSecret', 'ClusterSecretStore', 'SecretStore', 'Application'],
        refs: storeRefs,
        effect: ': the Secret it targets would never be written',
      },
      {
        id: 'closure-issuer',
        description: 'Every ClusterIssuer or Issuer a Certificate (or an Ingress annotation) names is one the repository provides; otherwise no certificate is issued (invariants P1).',
        remediation: `name the issuer apps/platform/cert-manager/clusterissuer.yaml declares (ClusterIssuer letsencrypt), ${FACTS_FIX}`,
        kinds: ['Certificate', 'Ingress', 'ClusterIssuer', 'Issuer', 'Application'],
        refs: issuerRefs,
        effect: ': no certificate would be issued',
      },
      {
        id: 'closure-priority-class',
        description: 'Every PriorityClass a pod asks for exists (in the repository, Kubernetes\' own system-* classes, or providedOutsideGit); otherwise the API server refuses the pod (invariants P1).',
        remediation: `declare the PriorityClass, use system-cluster-critical or system-node-critical, ${FACTS_FIX}`,
        kinds: ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'PriorityClass', 'Application'],
        refs: priorityRefs,
        effect: ': the API server refuses the pod',
      },
    ] as const).map((c): PolicyCheck => ({
      id: c.id,
      description: c.description,
      invariants: ['P1'],
      remediation: c.remediation,
      reads: { kinds: [...c.kinds] },
      exemptible: false,
      run(ctx) {
        closure(ctx, c.refs(ctx.resources), c.effect);
      },
    })),
    ...(['ServiceAccount', 'Secret', 'ConfigMap', 'PersistentVolumeClaim'] as const).map((kind): PolicyCheck => {
      const id = { ServiceAccount: 'closure-service-account', Secret: 'closure-secret', ConfigMap: 'closure-config-map', PersistentVolumeClaim: 'closure-claim' }[kind];
      const effect = { ServiceAccount: ': the pod is never created', Secret: ': the pod does not start', ConfigMap: ': the pod does not start', PersistentVolumeClaim: ': the pod stays Pending' }[kind];
      return {
        id,
        description: `Every ${kind} a pod template names (${kind === 'ServiceAccount' ? 'serviceAccountName' : kind === 'PersistentVolumeClaim' ? 'its volumes' : 'its volumes, env and envFrom, unless optional'}) exists in its namespace: declared, ${kind === 'Secret' ? 'written by an ExternalSecret or a Certificate, ' : ''}${kind === 'ServiceAccount' ? 'the namespace\'s default, ' : kind === 'ConfigMap' ? 'kube-root-ca.crt, ' : ''}or in providedOutsideGit; judged where the gate sees the namespace whole (invariants P1).`,
        invariants: ['P1'],
        remediation: `declare the ${kind}${kind === 'Secret' ? ' as the target of an ExternalSecret' : ''} in the pod's namespace, or name the one that exists`,
        reads: { kinds: ['*'], renders: true },
        exemptible: false,
        run(ctx) {
          const have = namespacedProviders(ctx.repo, kind);
          const refs = podRefs(ctx.repo, ctx.resources).filter((r) => r.kind === kind && !r.optional);
          namespacedClosure(ctx, refs, (ref) => have.has(`${ref.namespace ?? ''}/${ref.name}`) || (kind === 'ServiceAccount' && ref.name === 'default') || (kind === 'ConfigMap' && ref.name === 'kube-root-ca.crt'), effect);
        },
      };
    }),
    {
      id: 'closure-service',
      description: 'Every Service an Ingress routes to exists in its namespace with the port it names, and every ServiceMonitor selects some Service with the port its endpoints name; judged where the gate sees the namespace whole (invariants P1).',
      invariants: ['P1'],
      remediation: 'point the route or the monitor at a Service (and port name) that exists, or add the port to the Service',
      reads: { kinds: ['*'], renders: true },
      exemptible: false,
      run(ctx) {
        const services: Resource[] = ctx.resources.filter((r) => r.kind === 'Service').map((r) => ({ ...r, namespace: effectiveNamespace(ctx.repo, r) }));
        // Kubernetes' own: the API server's Service.
        const builtin = { kind: 'Service', name: 'kubernetes', namespace: 'default', object: { metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } }, spec: { ports: [{ name: 'https', port: 443 }] } } } as unknown as Resource;
        services.push(builtin);
        const runtime = createdAtRuntime(ctx.repo).filter((e) => e.kind === 'Service');
        const portsOf = (svc: Resource) => ((dig(svc.object, ['spec', 'ports']) ?? []) as { name?: string; port?: number }[]);
        // Services by namespace and name (for routes), and by namespace and each label (for monitors): a lookup each, not a scan of every Service.
        const byName = new Map(services.map((s) => [`${s.namespace ?? ''}/${s.name}`, s] as const).reverse());
        const byLabel = new Map<string, Resource[]>();
        for (const s of services) {
          const labels = (dig(s.object, ['metadata', 'labels']) ?? {}) as Record<string, unknown>;
          for (const key of [`${s.namespace ?? ''}`, ...Object.entries(labels).map(([k, v]) => `${s.namespace ?? ''}\0${k}\0${String(v)}`)]) {
            const list = byLabel.get(key);
            if (list) list.push(s);
            else byLabel.set(key, [s]);
          }
        }
        const selectServices = (namespaces: string[], labels: Record<string, string>): Resource[] => {
          const [first, ...rest] = Object.entries(labels);
          return namespaces.flatMap((ns) => (byLabel.get(first ? `${ns}\0${first[0]}\0${first[1]}` : ns) ?? []).filter((s) => rest.every(([k, v]) => (dig(s.object, ['metadata', 'labels', k]) as unknown) === v)));
        };
        const opaque = opaqueNamespaces(ctx);
        for (const ing of ctx.resources.filter((r) => r.kind === 'Ingress')) {
          const ns = effectiveNamespace(ctx.repo, ing) ?? '';
          if (opaque.has(ns)) continue;
          ((dig(ing.object, ['spec', 'rules']) ?? []) as Record<string, any>[]).forEach((rule, i) => {
            ((rule?.http?.paths ?? []) as Record<string, any>[]).forEach((path, j) => {
              const backend = path?.backend?.service;
              if (!backend?.name) return;
              const at: Path = ['spec', 'rules', i, 'http', 'paths', j, 'backend', 'service'];
              const svc = byName.get(`${ns}/${backend.name}`);
              if (!svc && runtime.some((e) => e.namespace === ns && e.name === backend.name)) return;
              if (!svc) ctx.fail({ resource: ing, path: [...at, 'name'] }, `Ingress ${ing.name} routes to Service ${ns}/${backend.name}, which nothing in the repository provides: the route answers 503`);
              else if (!portsOf(svc).some((p) => (backend.port?.name !== undefined && p.name === backend.port.name) || (backend.port?.number !== undefined && p.port === backend.port.number))) ctx.fail({ resource: ing, path: [...at, 'port'] }, `Ingress ${ing.name} routes to port ${backend.port?.name ?? backend.port?.number} of Service ${backend.name}, which has no such port`);
            });
          });
        }
        for (const sm of ctx.resources.filter((r) => r.kind === 'ServiceMonitor')) {
          const namespaces: string[] = ((dig(sm.object, ['spec', 'namespaceSelector', 'matchNames']) ?? []) as string[]);
          const targets = namespaces.length ? namespaces : [effectiveNamespace(ctx.repo, sm) ?? ''];
          if (targets.some((n) => opaque.has(n)) || dig(sm.object, ['spec', 'namespaceSelector', 'any']) === true) continue;
          const labels = (dig(sm.object, ['spec', 'selector', 'matchLabels']) ?? {}) as Record<string, string>;
          const selected = selectServices(targets, labels);
          // A Service a controller creates at run time carries labels the gate cannot see.
          if (selected.length === 0 && runtime.some((e) => targets.includes(e.namespace))) continue;
          if (selected.length === 0) {
            ctx.fail({ resource: sm, path: ['spec', 'selector'] }, `ServiceMonitor ${sm.name} selects no Service in ${targets.join(', ')}: nothing is scraped`);
            continue;
          }
          ((dig(sm.object, ['spec', 'endpoints']) ?? []) as { port?: string }[]).forEach((e, i) => {
            if (e.port && !selected.some((s) => portsOf(s).some((p) => p.name === e.port))) ctx.fail({ resource: sm, path: ['spec', 'endpoints', i, 'port'] }, `ServiceMonitor ${sm.name} scrapes port ${e.port}, which no Service it selects has`);
          });
        }
      },
    },
    {
      id: 'closure-load-balancer',
      description: 'Every LoadBalancer Service (plain, rendered, or declared on its app with gate.homelab-gitops/requires-load-balancer) has an address provider: an IPAddressPool in the repository, or a providedOutsideGit LoadBalancer entry; otherwise it waits for an address forever (invariants P1).',
      invariants: ['P1'],
      remediation: `keep MetalLB and its pool (apps/platform/metallb), ${FACTS_FIX}; an app whose chart renders a LoadBalancer Service carries ${REQUIRES_LOAD_BALANCER}: "true"`,
      reads: { kinds: ['*'], renders: true },
      exemptible: false,
      run(ctx) {
        const { repo } = ctx;
        const pool = repo.resources.some((r) => r.kind === 'IPAddressPool') || (repo.facts?.providedOutsideGit ?? []).some((e) => e.kind === 'LoadBalancer');
        const declared = applications(repo).filter((a) => str(dig(a.resource.object, ['metadata', 'annotations', REQUIRES_LOAD_BALANCER])) === 'true');
        const services = ctx.resources.filter((r) => r.kind === 'Service' && dig(r.object, ['spec', 'type']) === 'LoadBalancer');
        if (!pool) {
          for (const app of declared) ctx.fail({ resource: app.resource, path: ['metadata', 'annotations', REQUIRES_LOAD_BALANCER] }, `${app.name}'s chart renders a LoadBalancer Service, and nothing in the repository hands out addresses: it waits forever`);
          for (const svc of services) ctx.fail({ resource: svc, path: ['spec', 'type'] }, `Service ${svc.name} is a LoadBalancer, and nothing in the repository hands out addresses: it waits forever`);
        }
        // A rendered LoadBalancer must be declared on its app, or the offline gate would not know.
        for (const svc of services.filter((s) => s.rendered)) {
          const app = applicationsByName(repo).get(svc.rendered!.app);
          if (app && !declared.includes(app)) ctx.fail({ resource: svc, path: ['spec', 'type'] }, `Service ${svc.name} is a LoadBalancer, but app ${app.name} does not carry ${REQUIRES_LOAD_BALANCER}: "true"`);
        }
      },
    },
    {
      id: 'closure-namespace',
      description: 'Every namespaced resource lands in a namespace the repository provides (clusters/home/namespaces.yaml, or an Application with CreateNamespace=true), Kubernetes creates, or providedOutsideGit lists; otherwise its sync fails (invariants P1).',
      invariants: ['P1'],
      remediation: `add the namespace to clusters/home/namespaces.yaml, ${FACTS_FIX}`,
      reads: { kinds: ['*'] },
      exemptible: false,
      run(ctx) {
        closure(ctx, namespaceRefs(ctx.repo, ctx.resources, isClusterScoped), ': its sync fails');
      }
    },
    {
      id: 'sync-order',
      description: 'A provider syncs before its consumers: the app that provides a namespace, class, store, issuer or CRD is in an earlier sync wave than every app that uses it (inside one app, an earlier resource wave); a custom resource whose CRD comes in the same sync carries SkipDryRunOnMissingResource=true (invariants P1).',
      invariants: ['P1'],
      remediation: 'give the providing app (or resource) a lower argocd.argoproj.io/sync-wave than the consumer, or, for a custom resource whose CRD arrives in the same sync, argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true',
      reads: { kinds: ['*'] },
      exemptible: false,
      run(ctx) {
        const { repo } = ctx;
        const apps = applications(repo);
        const describe = (p: SyncPosition) => (p.app ? `${p.app.name} (wave ${p.order.join(', resource wave ')})` : 'the root app');
        const refs = [...storageRefs(ctx.resources), ...ingressRefs(ctx.resources), ...storeRefs(ctx.resources), ...issuerRefs(ctx.resources), ...priorityRefs(ctx.resources), ...namespaceRefs(repo, ctx.resources, isClusterScoped)];
        for (const ref of refs) {
          const provider = providerOf(repo, ref);
          if (!provider) continue; // Kubernetes' own, providedOutsideGit, or missing (closure-* says so)
          const [p, c] = [placeOf(repo, provider), placeOf(repo, ref.resource)];
          if (!before(p, c)) ctx.fail({ resource: ref.resource, path: ref.path }, `${ref.resource.kind} ${ref.resource.name} in ${describe(c)} uses ${ref.kind} ${ref.name}, which ${describe(p)} provides no earlier: it may sync before its provider exists`);
        }
        // What apps declare their charts need: the installing app (or the pool's app) in an earlier wave.
        const appPlace = (a: ArgoApp): SyncPosition => ({ app: a, order: [Number(dig(a.resource.object, ['metadata', 'annotations', 'argocd.argoproj.io/sync-wave']) ?? 0)] });
        const poolApp = repo.resources.filter((r) => r.kind === 'IPAddressPool').map((r) => placeOf(repo, r).app).find(Boolean);
        for (const app of apps) {
          const skips = ((dig(app.resource.object, ['spec', 'syncPolicy', 'syncOptions']) ?? []) as unknown[]).includes('SkipDryRunOnMissingResource=true');
          for (const g of declaredGroups(app, REQUIRES_CRDS)) {
            const from = apps.find((a) => declaredGroups(a).includes(g));
            if (from && from !== app && !skips && !before(appPlace(from), appPlace(app))) ctx.fail({ resource: app.resource, path: ['metadata', 'annotations', REQUIRES_CRDS] }, `${app.name} (wave ${appPlace(app).order[0]}) needs the ${g} CRDs app ${from.name} (wave ${appPlace(from).order[0]}) installs, which syncs no earlier`);
          }
          if (poolApp && str(dig(app.resource.object, ['metadata', 'annotations', REQUIRES_LOAD_BALANCER])) === 'true' && !before(appPlace(poolApp), appPlace(app))) ctx.fail({ resource: app.resource, path: ['metadata', 'annotations', REQUIRES_LOAD_BALANCER] }, `${app.name} (wave ${appPlace(app).order[0]}) needs addresses from ${poolApp.name} (wave ${appPlace(poolApp).order[0]}), which syncs no earlier`);
        }
        // CRDs: the app that installs a group's CRDs, before every custom resource of that group.
        const installer = new Map<string, ArgoApp>();
        for (const app of apps) for (const g of declaredGroups(app)) installer.set(g, app);
        const reported = new Set<string>();
        for (const r of ctx.resources) {
          const group = groupOf(r.apiVersion);
          const app = installer.get(group);
          // argoproj.io comes with Argo CD itself, installed by hand before the root app exists.
          if (!app || group === 'argoproj.io' || skipsDryRunOnMissingResource(r)) continue;
          const c = placeOf(repo, r);
          const appOptions = (dig(c.app?.resource.object, ['spec', 'syncPolicy', 'syncOptions']) ?? []) as unknown[];
          if (appOptions.includes('SkipDryRunOnMissingResource=true')) continue;
          const p: SyncPosition = { app, order: [(c.app === app ? c.order[0] : undefined) ?? Number(dig(app.resource.object, ['metadata', 'annotations', 'argocd.argoproj.io/sync-wave']) ?? 0)] };
          const same = c.app === app;
          if (!same && before(p, c)) continue;
          const key = `${r.file}#${r.kind}#${group}`;
          if (reported.has(key)) continue;
          reported.add(key);
          ctx.fail({ resource: r, path: ['apiVersion'] }, same
            ? `${r.kind} ${r.name} comes in the same sync as its CRD (app ${app.name}): Argo CD's dry run fails until the CRD exists, unless the resource skips it`
            : `${r.kind} ${r.name} in ${describe(c)} needs the CRDs app ${app.name} installs, which syncs no earlier`);
        }
      },
    },
  ];
}
