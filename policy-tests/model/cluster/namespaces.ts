/**
 * What the repository says about namespaces the checks share: the labels each
 * namespace carries once synced, from its Namespace object and from what an
 * Application with CreateNamespace=true writes on its destination namespace.
 *
 * Source: Argo CD v3.5.1, controller/sync.go (the namespace modifier only with
 * CreateNamespace=true), controller/sync_namespace.go (managedNamespaceMetadata's
 * labels and annotations, written by server-side apply) and gitops-engine's
 * sync_context.go autoCreateNamespace (nothing at all when the app's own
 * manifests hold that Namespace; otherwise applied at every sync, with
 * conflicts forced, whether or not another app applies the Namespace).
 */
import { applications, ownersByFile, syncOptions, type ArgoApp } from '../argocd/argocd.ts';
import { dig, isMap, obj, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { scalarText } from '../core/text.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';

/** The path of an Application's managedNamespaceMetadata. */
export const MANAGED_METADATA_PATH = ['spec', 'syncPolicy', 'managedNamespaceMetadata'] as const;

/** What one Application asks Argo CD to write on its destination namespace. */
export interface ManagedNamespace {
  app: ArgoApp;
  /** Its destination namespace; empty when it names none (then Argo CD creates and writes nothing). */
  namespace: string;
  /** managedNamespaceMetadata, when the Application sets it. */
  metadata?: { labels: Obj; annotations: Obj };
  /** Whether Argo CD does it: CreateNamespace=true, a destination namespace, and no Namespace of that name in the app's own files. */
  written: boolean;
  /** The app's own Namespace of that name, which makes Argo CD create and write nothing. */
  ownNamespace?: Resource;
}

/** An Application's managedNamespaceMetadata as Argo CD reads it, when it sets one. */
export function managedMetadata(app: ArgoApp): { labels: Obj; annotations: Obj } | undefined {
  const raw = dig(app.resource.object, MANAGED_METADATA_PATH);
  return isMap(raw) ? { labels: obj(raw.labels), annotations: obj(raw.annotations) } : undefined;
}

export const createsNamespace = (app: ArgoApp): boolean => syncOptions(app).includes('CreateNamespace=true');

/** A core Namespace object (group ''), the one kind Argo CD and Pod Security read a namespace's metadata from. */
export const isCoreNamespace = (r: Resource): boolean => r.kind === 'Namespace' && r.apiVersion === 'v1';

/** The core Namespace objects the repository applies: a chart's among them, in a run's view of what it rendered. */
const namespaceObjects = (repo: Repo): Resource[] => repo.resources.filter(isCoreNamespace);

/** Each Application that has a destination namespace and asks for its creation or its metadata. */
export const managedNamespaces = perRepo((repo: Repo): ManagedNamespace[] => {
  const objects = namespaceObjects(repo);
  const out: ManagedNamespace[] = [];
  for (const app of applications(repo)) {
    const metadata = managedMetadata(app);
    const namespace = app.destinationNamespace ?? '';
    if (!metadata && (!namespace || !createsNamespace(app))) continue;
    // The app's own: one it renders, or one in a file it applies (of which another app may apply a copy too).
    const own = (ns: Resource) => (ns.rendered ? ns.rendered.app === app.name : (ownersByFile(repo).get(ns.file) ?? []).includes(app));
    const ownNamespace = objects.find((ns) => ns.name === namespace && own(ns));
    const written = createsNamespace(app) && namespace !== '' && !ownNamespace;
    out.push({ app, namespace, ...(metadata ? { metadata } : {}), written, ...(ownNamespace ? { ownNamespace } : {}) });
  }
  return out;
});

/**
 * Each namespace's labels, by name: its Namespace object's, with the labels of every managedNamespaceMetadata Argo CD
 * writes on it over them (a server-side apply that forces its fields at each sync of that app); a namespace only an
 * Application creates carries only what that app writes.
 */
export const namespaceLabels = perRepo((repo: Repo): Map<string, Record<string, unknown>> => {
  const out = new Map<string, Record<string, unknown>>();
  for (const ns of namespaceObjects(repo)) out.set(ns.name, obj(dig(ns.object, ['metadata', 'labels'])));
  for (const m of managedNamespaces(repo)) {
    if (!m.written) continue;
    out.set(m.namespace, { ...(out.get(m.namespace) ?? {}), ...(m.metadata?.labels ?? {}) });
  }
  return out;
});

/** A namespace's annotations as they end up: its Namespace object's, with every written managedNamespaceMetadata's over them. */
export function namespaceAnnotations(repo: Repo, namespace: string): Obj {
  const own = namespaceObjects(repo).find((ns) => ns.name === namespace);
  const written = managedNamespaces(repo).filter((m) => m.written && m.namespace === namespace);
  return Object.assign({}, obj(dig(own?.object, ['metadata', 'annotations'])), ...written.map((m) => m.metadata?.annotations ?? {}));
}

const POD_SECURITY_PREFIX = 'pod-security.kubernetes.io/';

/**
 * The Pod Security labels an object puts on a namespace, read from the object alone: a core Namespace's own, or what
 * an Application with CreateNamespace=true writes on its destination namespace (managedNamespaceMetadata). For the
 * rendered diff, which compares one object on two refs.
 */
export function podSecurityLabelsOf(kind: string, object: unknown): { namespace: string; labels: Record<string, string> } | undefined {
  const pick = (labels: unknown) =>
    Object.fromEntries(Object.entries(obj(labels)).flatMap(([k, v]) => (k.startsWith(POD_SECURITY_PREFIX) && typeof v === 'string' ? [[k, v]] : [])));
  const o = obj(object);
  if (kind === 'Namespace' && o.apiVersion === 'v1')
    return { namespace: scalarText(dig(o, ['metadata', 'name'])), labels: pick(dig(o, ['metadata', 'labels'])) };
  if (kind !== 'Application') return undefined;
  const options = dig(o, ['spec', 'syncPolicy', 'syncOptions']);
  const namespace = dig(o, ['spec', 'destination', 'namespace']);
  if (!Array.isArray(options) || !options.includes('CreateNamespace=true') || typeof namespace !== 'string' || !namespace) return undefined;
  return { namespace, labels: pick(dig(o, [...MANAGED_METADATA_PATH, 'labels'])) };
}
