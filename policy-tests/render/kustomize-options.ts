/**
 * An Application's kustomize options, applied as Argo CD applies them: its
 * repo-server runs `kustomize edit` in the source folder before it builds
 * (util/kustomize/kustomize.go at v3.5.1: set nameprefix, set namesuffix, set
 * image, set replicas, add label, add annotation, set namespace, then the
 * patches appended to the kustomization's own, then add component). The gate
 * renders from a copy of the build's files whose kustomization carries the
 * same edits, made here on the parsed file with each edit command's rules;
 * an option it does not follow is refused, never ignored.
 */
import { isMap } from '../model/core/dig.ts';
import { scalarText } from '../model/core/text.ts';

type Kustomization = Record<string, unknown>;

/** The options Argo CD's Build reads, in its order. */
const APPLIED = [
  'namePrefix',
  'nameSuffix',
  'images',
  'replicas',
  'commonLabels',
  'forceCommonLabels',
  'labelWithoutSelector',
  'labelIncludeTemplates',
  'commonAnnotations',
  'forceCommonAnnotations',
  'commonAnnotationsEnvsubst',
  'namespace',
  'patches',
  'components',
  'ignoreMissingComponents',
] as const;

/**
 * The options Argo CD hands the build itself, not `kustomize edit` (util/kustomize `BuildOpts`, through
 * GetKubeVersionOrDefault and GetAPIVersionsOrDefault): the Kubernetes version and API versions a Helm chart it
 * inflates renders for (kustomize-helm.ts).
 */
const BUILD_ONLY = ['kubeVersion', 'apiVersions'];

/** The options Argo CD applies by editing the kustomization: all but those it hands the build. */
export function editOptions(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([k]) => !BUILD_ONLY.includes(k)));
}

/** Why the options cannot be applied as Argo CD applies them, if they cannot. */
export function kustomizeOptionsRefusal(options: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(options).filter((k) => !(APPLIED as readonly string[]).includes(k));
  if (unknown.includes('version'))
    return `kustomize.version asks Argo CD for another kustomize binary; the gate builds with the kustomize Argo CD ships (${'v5.8.1'}), so what that binary makes would reach the cluster unjudged`;
  if (unknown.length)
    return `the kustomize option${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} of the Application ${unknown.length > 1 ? 'are' : 'is'} not one Argo CD 3.5 applies`;
  return undefined;
}

/**
 * The options with Argo CD's build environment substituted where its Build substitutes it (util/kustomize: every
 * image and common label, the common annotations only with commonAnnotationsEnvsubst), or the first value that
 * names the revision, known only at sync. `substitute` is Env.Envsubst for the Application and source.
 */
export function withBuildEnv(
  options: Record<string, unknown>,
  substitute: (text: string) => string | undefined,
): { options: Record<string, unknown> } | { sync: string } {
  let unknowable: string | undefined;
  const sub = (text: string, what: string): string => {
    const out = substitute(text);
    if (out === undefined) unknowable ??= `${what} names the revision Argo CD syncs, known only at sync time`;
    return out ?? text;
  };
  const pairs = (v: unknown, what: string) => Object.fromEntries(Object.entries(labelsOf(v)).map(([k, x]) => [k, sub(x, `kustomize ${what} ${k}`)]));
  const out: Record<string, unknown> = { ...options };
  if (isMap(options.commonLabels)) out.commonLabels = pairs(options.commonLabels, 'label');
  if (options.commonAnnotationsEnvsubst === true && isMap(options.commonAnnotations)) out.commonAnnotations = pairs(options.commonAnnotations, 'annotation');
  if (Array.isArray(options.images)) out.images = options.images.map((i) => sub(scalarText(i), `kustomize image ${scalarText(i)}`));
  return unknowable ? { sync: unknowable } : { options: out };
}

function labelsOf(v: unknown): Record<string, string> {
  return isMap(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scalarText(x)])) : {};
}

/** `kustomize edit set image` parses `[old=]name[:tag][@digest]`. */
export function parseImageArg(arg: string): { name: string; newName?: string; newTag?: string; digest?: string } {
  const eq = arg.indexOf('=');
  const from = eq === -1 ? undefined : arg.slice(0, eq);
  let rest = eq === -1 ? arg : arg.slice(eq + 1);
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let newTag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    newTag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const name = from ?? rest;
  return { name, ...(from !== undefined && rest !== from ? { newName: rest } : {}), ...(newTag ? { newTag } : {}), ...(digest ? { digest } : {}) };
}

/** Sets or replaces the entry `key` names in a list of entries (images by name, replicas by name). */
function upsert(list: unknown, entry: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const entries = (Array.isArray(list) ? list : []).filter(isMap);
  const i = entries.findIndex((e) => e[key] === entry[key]);
  if (i === -1) return [...entries, entry];
  // Setting a digest drops a tag, and a tag a digest, as the edit command does.
  const merged = { ...entries[i], ...entry };
  if (entry.digest !== undefined) delete merged.newTag;
  if (entry.newTag !== undefined && entry.digest === undefined) delete merged.digest;
  return entries.map((e, j) => (j === i ? merged : e));
}

/** Adds labels or annotations as `kustomize edit add` does: a key already there fails unless forced. */
function addPairs(target: unknown, pairs: Record<string, string>, force: boolean, what: string): Record<string, string> {
  const out = labelsOf(target);
  for (const [k, v] of Object.entries(pairs)) {
    if (k in out && !force)
      throw new Error(
        `kustomize edit add ${what}: ${what} ${k} already in kustomization file (Argo CD's build fails the same way; set force${what === 'label' ? 'CommonLabels' : 'CommonAnnotations'})`,
      );
    out[k] = v;
  }
  return out;
}

/** The kustomization after Argo CD's edits: a new object, the input untouched. Throws what the edit command would fail with. */
export function applyKustomizeOptions(kustomization: Kustomization, options: Record<string, unknown>): Kustomization {
  const k: Kustomization = structuredClone(kustomization);
  if (typeof options.namePrefix === 'string' && options.namePrefix) k.namePrefix = options.namePrefix;
  if (typeof options.nameSuffix === 'string' && options.nameSuffix) k.nameSuffix = options.nameSuffix;
  for (const image of Array.isArray(options.images) ? options.images : []) k.images = upsert(k.images, parseImageArg(scalarText(image)), 'name');
  for (const r of (Array.isArray(options.replicas) ? options.replicas : []).filter(isMap)) {
    const count = typeof r.count === 'number' ? r.count : Number(scalarText(r.count));
    if (!Number.isInteger(count)) throw new Error(`kustomize replicas ${scalarText(r.name)}: count ${scalarText(r.count)} is not an integer`);
    k.replicas = upsert(k.replicas, { name: scalarText(r.name), count }, 'name');
  }
  const labels = labelsOf(options.commonLabels);
  if (Object.keys(labels).length) {
    if (options.labelWithoutSelector === true) {
      const entry = { pairs: labels, includeSelectors: false, ...(options.labelIncludeTemplates === true ? { includeTemplates: true } : {}) };
      k.labels = [...(Array.isArray(k.labels) ? k.labels : []), entry];
    } else k.commonLabels = addPairs(k.commonLabels, labels, options.forceCommonLabels === true, 'label');
  }
  const annotations = labelsOf(options.commonAnnotations);
  if (Object.keys(annotations).length) k.commonAnnotations = addPairs(k.commonAnnotations, annotations, options.forceCommonAnnotations === true, 'annotation');
  if (typeof options.namespace === 'string' && options.namespace) k.namespace = options.namespace;
  if (Array.isArray(options.patches) && options.patches.length) {
    if (k.patches !== undefined && !Array.isArray(k.patches)) throw new Error("expected 'patches' field in kustomization.yaml to be a list");
    k.patches = [...((k.patches as unknown[] | undefined) ?? []), ...options.patches];
  }
  for (const c of Array.isArray(options.components) ? options.components : []) {
    const entry = scalarText(c);
    const list = Array.isArray(k.components) ? (k.components as unknown[]) : [];
    if (!list.includes(entry)) k.components = [...list, entry];
  }
  return k;
}
