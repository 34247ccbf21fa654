/**
 * Argo CD's source parameter files, as its repo-server merges them into a source before it picks the tool
 * (reposerver/repository/repository.go `mergeSourceParameters`, v3.5.1): `.argocd-source.yaml`, then
 * `.argocd-source-<app>.yaml`, at the source path (the files Argo CD Image Updater writes back). For each file: the
 * source so far marshalled to JSON, the file's YAML turned to JSON and applied as a JSON merge patch (RFC 7386,
 * evanphx/json-patch), and the result decoded with Go's encoding/json into the source so far. Then `chart`, `path`,
 * `repoURL` and `targetRevision` are put back. The decode is what a reader of the patch would not guess, and what is
 * emulated here exactly, from the Go types (`ApplicationSource` and the types it holds, pkg/apis/application/v1alpha1):
 * - a key matches its field's JSON name, else the name with letters of another case (`forcestring`); a key no field
 *   has is dropped; of two keys for one field, the later in the merged document's sorted order wins;
 * - a value of another type (a number for a string) fails the source, as Go's decoder fails;
 * - the decode writes into the source so far: a field the merged document lacks keeps its value, a map keeps the
 *   keys the document lacks, and a list's element decodes into the element at its index (so a parameter written
 *   without `forceString` keeps the one it replaces'), a null leaves a value as it was; only `helm.valuesObject`, a
 *   RawExtension, is replaced whole.
 * Pure: the caller reads the files (argocd.ts), and a problem is said, never guessed past.
 */
import { dig, isMap } from '../core/dig.ts';
import { jsonFieldOf } from '../go/json.ts';
import type { Path } from '../core/positions.ts';
import type { FilePosition, Positions } from '../core/manifest.ts';

/** A parameter file as read (the repository's data-file parse, YAML 1.1 scalars read as Argo CD reads them). */
export interface ParameterFile {
  file: string;
  data: unknown;
  positions: Positions;
}

/** A Go type of the source's fields, as encoding/json decodes into it. */
export type GoType = 'string' | 'bool' | 'intstr' | 'raw' | { struct: string; fields: Record<string, GoType> } | { map: GoType } | { list: GoType };

export const struct = (name: string, fields: Record<string, GoType>): GoType => ({ struct: name, fields });
export const list = (of: GoType): GoType => ({ list: of });
const strings = list('string');

const JSONNET_VAR = struct('JsonnetVar', { name: 'string', value: 'string', code: 'bool' });

/** `ApplicationSource` and what it holds (types.go, v3.5.1): every field's JSON name and type. */
export const APPLICATION_SOURCE: GoType = struct('ApplicationSource', {
  repoURL: 'string',
  path: 'string',
  targetRevision: 'string',
  helm: struct('ApplicationSourceHelm', {
    valueFiles: strings,
    parameters: list(struct('HelmParameter', { name: 'string', value: 'string', forceString: 'bool' })),
    releaseName: 'string',
    values: 'string',
    fileParameters: list(struct('HelmFileParameter', { name: 'string', path: 'string' })),
    version: 'string',
    passCredentials: 'bool',
    ignoreMissingValueFiles: 'bool',
    skipCrds: 'bool',
    valuesObject: 'raw',
    namespace: 'string',
    kubeVersion: 'string',
    apiVersions: strings,
    skipTests: 'bool',
    skipSchemaValidation: 'bool',
  }),
  kustomize: struct('ApplicationSourceKustomize', {
    namePrefix: 'string',
    nameSuffix: 'string',
    images: strings,
    commonLabels: { map: 'string' },
    version: 'string',
    commonAnnotations: { map: 'string' },
    forceCommonLabels: 'bool',
    forceCommonAnnotations: 'bool',
    namespace: 'string',
    commonAnnotationsEnvsubst: 'bool',
    replicas: list(struct('KustomizeReplica', { name: 'string', count: 'intstr' })),
    patches: list(
      struct('KustomizePatch', {
        path: 'string',
        patch: 'string',
        // KustomizeSelector holds KustomizeResId inline, which holds KustomizeGvk inline: one level of fields.
        target: struct('KustomizeSelector', {
          group: 'string',
          version: 'string',
          kind: 'string',
          name: 'string',
          namespace: 'string',
          annotationSelector: 'string',
          labelSelector: 'string',
        }),
        options: { map: 'bool' },
      }),
    ),
    components: strings,
    ignoreMissingComponents: 'bool',
    labelWithoutSelector: 'bool',
    kubeVersion: 'string',
    apiVersions: strings,
    labelIncludeTemplates: 'bool',
  }),
  directory: struct('ApplicationSourceDirectory', {
    recurse: 'bool',
    jsonnet: struct('ApplicationSourceJsonnet', { extVars: list(JSONNET_VAR), tlas: list(JSONNET_VAR), libs: strings }),
    exclude: 'string',
    include: 'string',
  }),
  // A plugin's source is handed to a sidecar the gate cannot run (refused, not judged): its block is kept as written.
  plugin: 'raw',
  chart: 'string',
  ref: 'string',
  name: 'string',
  tagPrefix: 'string',
});

/** What the repo-server puts back after the merge: the parameter files may set only a tool's options. */
export const KEPT_FIELDS = ['chart', 'path', 'repoURL', 'targetRevision'] as const;

/** One file's part in the merge: where a path of the source was last set, and the keys Argo CD drops or ignores. */
export interface ParameterFileProblem {
  file: string;
  path: Path;
  /** Where the file says nothing at a path (a YAML error, a scalar YAML 1.1 reads otherwise): its line. */
  line?: number;
  message: string;
  /** Argo CD fails the source (a type it cannot decode, a file it cannot read) rather than ignoring a key. */
  fails: boolean;
}

export interface MergedSource {
  /** The source as the repo-server renders it. */
  source: Record<string, unknown>;
  /** Where a path of the source was set by a parameter file (the deepest such path wins), for findings. */
  placeOf: (path: Path, target: 'key' | 'value') => FilePosition | undefined;
  problems: ParameterFileProblem[];
}

const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;

const goTypeName = (t: GoType): string =>
  typeof t === 'string' ? (t === 'intstr' ? 'intstr.IntOrString' : t === 'raw' ? 'RawExtension' : t) : 'struct' in t ? t.struct : 'map' in t ? 'map' : 'slice';

/** Go's zero value of a type, as a decode into a new element starts from. */
function zero(t: GoType): unknown {
  if (t === 'string') return '';
  if (t === 'bool') return false;
  if (typeof t === 'string') return undefined;
  return 'list' in t ? undefined : {};
}

/**
 * evanphx/json-patch's MergePatch (RFC 7386, the root package Argo CD imports): a null removes a key, an object merges
 * into an object key by key, anything else replaces; a value put where there was none, or over one that is no
 * object, loses its null keys first (pruneNulls, inside lists' objects too), and a list keeps its null elements.
 */
export function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    if (value === null) delete out[key];
    else if (current === undefined || current === null || !isMap(current)) out[key] = pruneNulls(value);
    else out[key] = isMap(value) ? mergePatch(current, value) : value;
  }
  return out;
}

function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((e) => (e === null ? e : pruneNulls(e)));
  if (!isMap(value)) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === null ? [] : [[k, pruneNulls(v)]])));
}

interface Decode {
  file: string;
  problems: ParameterFileProblem[];
  /** The source paths this document set, with the path the file wrote them at. */
  set: Map<string, Path>;
}

/** Where a decode is: the source's path (Go's fields) and the path as the file wrote it (its keys). */
interface At {
  at: Path;
  written: Path;
  d: Decode;
}

const step = (p: At, field: string | number, key: string | number = field): At => ({ at: [...p.at, field], written: [...p.written, key], d: p.d });

/**
 * encoding/json's decode of `json` into `old` (a value of type `t`), returning the new value. A type it cannot decode
 * is a problem that fails the source; the decode goes on past it, as Go's does, though the result is not used then.
 */
function decodeInto(old: unknown, json: unknown, t: GoType, p: At): unknown {
  if (json === null) return old === undefined ? zero(t) : old;
  const mismatch = (): unknown => {
    p.d.problems.push({
      file: p.d.file,
      path: p.written,
      fails: true,
      message: `json: cannot unmarshal ${jsonType(json)} into ${p.at.join('.') || 'the source'} (a Go ${goTypeName(t)})`,
    });
    return old;
  };
  if (t === 'raw') return json;
  if (t === 'string') return typeof json === 'string' ? json : mismatch();
  if (t === 'bool') return typeof json === 'boolean' ? json : mismatch();
  // IntOrString reads a string, else an int32.
  if (t === 'intstr') return typeof json === 'string' || (Number.isInteger(json) && Math.abs(json as number) <= 2 ** 31 - 1) ? json : mismatch();
  if ('list' in t) {
    if (!Array.isArray(json)) return mismatch();
    const before = Array.isArray(old) ? old : [];
    return json.map((element, i) => decodeInto(i < before.length ? before[i] : undefined, element, t.list, step(p, i)));
  }
  if (!isMap(json)) return mismatch();
  const out: Record<string, unknown> = isMap(old) ? { ...old } : {};
  if ('map' in t) {
    // A map element decodes into a fresh value of its type.
    for (const [key, value] of Object.entries(json)) out[key] = decodeInto(undefined, value, t.map, step(p, key));
    return out;
  }
  // The merged document is marshalled from a Go map: its keys in byte order, so of two keys for one field the later wins.
  for (const key of Object.keys(json).sort()) {
    const field = jsonFieldOf(t.fields, key);
    if (field === undefined) continue;
    const inner = step(p, field, key);
    out[field] = decodeInto(out[field], json[key], t.fields[field]!, inner);
    p.d.set.set(inner.at.join('\0'), inner.written);
  }
  return out;
}

/** The keys of a parameter file no field has, which Go's decoder drops, and the ones the repo-server puts back. */
function ignoredKeys(json: unknown, t: GoType, p: { written: Path; file: string; out: ParameterFileProblem[] }): void {
  const inner = (key: string | number) => ({ ...p, written: [...p.written, key] });
  if (typeof t === 'string' || !isMap(json)) {
    if (typeof t !== 'string' && 'list' in t && Array.isArray(json)) json.forEach((e, i) => ignoredKeys(e, t.list, inner(i)));
    return;
  }
  if ('map' in t) {
    for (const [key, value] of Object.entries(json)) ignoredKeys(value, t.map, inner(key));
    return;
  }
  if (!('struct' in t)) return;
  for (const [key, value] of Object.entries(json)) {
    const field = jsonFieldOf(t.fields, key);
    const path = [...p.written, key];
    if (field === undefined)
      p.out.push({ file: p.file, path, fails: false, message: `Argo CD drops ${path.join('.')}: no field of ${t.struct} is called that` });
    else if (p.written.length === 0 && (KEPT_FIELDS as readonly string[]).includes(field))
      p.out.push({ file: p.file, path, fails: false, message: `Argo CD ignores ${key} in a source parameter file: it keeps the Application's` });
    else ignoredKeys(value, t.fields[field]!, inner(key));
  }
}

/**
 * `mergeSourceParameters`: the source as written in the Application, then each parameter file in Argo CD's order
 * (the repository's, then the app's), each already read as YAML (its problems, if any, said by the caller).
 */
export function mergeSourceParameters(written: Record<string, unknown>, files: readonly ParameterFile[]): MergedSource {
  let merged: Record<string, unknown> = structuredClone(written);
  const problems: ParameterFileProblem[] = [];
  const setBy = new Map<string, { file: ParameterFile; path: Path }>();
  for (const file of files) {
    const patch = file.data;
    // An empty file is a null document: the merge patch gives null, and a null decodes into nothing.
    if (patch === null || patch === undefined) continue;
    if (!isMap(patch)) {
      problems.push({
        file: file.file,
        path: [],
        fails: true,
        message: `json: cannot unmarshal ${jsonType(patch)} into Go value of type v1alpha1.ApplicationSource`,
      });
      continue;
    }
    ignoredKeys(patch, APPLICATION_SOURCE, { written: [], file: file.file, out: problems });
    const d: Decode = { file: file.file, problems, set: new Map() };
    merged = decodeInto(merged, mergePatch(merged, patch), APPLICATION_SOURCE, { at: [], written: [], d }) as Record<string, unknown>;
    // Only what the file wrote moves the place a finding lands: what came from the Application stays there.
    for (const [key, path] of d.set) if (dig(patch, path) !== undefined) setBy.set(key, { file, path });
  }
  for (const p of problems) {
    const file = files.find((f) => f.file === p.file);
    if (file && p.line === undefined && p.path.length) p.line = file.positions.at(p.path, 'key').line;
  }
  for (const field of KEPT_FIELDS) {
    if (written[field] === undefined) delete merged[field];
    else merged[field] = written[field];
  }
  const placeOf = (path: Path, target: 'key' | 'value'): FilePosition | undefined => {
    // The deepest field a file set whose value there holds the rest of the path: a field the file left out of an
    // element or a map it wrote over keeps the Application's value, and its place.
    for (let n = path.length; n > 0; n--) {
      const hit = setBy.get(path.slice(0, n).join('\0'));
      const within = hit && [...hit.path, ...path.slice(n)];
      if (hit && within && dig(hit.file.data, within) !== undefined) return { ...hit.file.positions.at(within, target), file: hit.file.file };
    }
    return undefined;
  };
  return { source: merged, placeOf, problems };
}
