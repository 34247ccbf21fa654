/**
 * The Application's Go type as apimachinery's strategic merge patch looks it up (`PatchMetaFromStruct` over
 * `v1alpha1.Application`, Argo CD v3.5.1 types.go, and metav1.ObjectMeta): each field by its JSON name (or one equal to
 * it in another case), its patch strategy and merge key from its struct tags. Only ObjectMeta's `finalizers` (merged)
 * and `ownerReferences` (merged by `uid`), and the helm source's `values` (replaced) carry tags; every other list is
 * replaced whole. Status and operation are the controller's, and not modelled: a patch that merges into them is not
 * judged. Scalars are all one here, since a lookup is only made where both sides hold a map or a list.
 */
import { isMap, type Obj } from '../core/dig.ts';
import { jsonFieldOf } from '../go/json.ts';
import { APPLICATION_SOURCE, list, struct, type GoType } from '../argocd/source-parameters.ts';
import { PatchError, type PatchMeta, type PatchSchema } from './strategic-merge-patch.ts';

/** A part of the type the gate does not model: a lookup into it is not judged. */
export class UnmodelledField extends Error {}

export type PatchType =
  | GoType
  | { unmodelled: string }
  | { struct: string; fields: Record<string, PatchType> }
  | { ptr: PatchType }
  | { list: PatchType }
  | { map: PatchType };

const strings = list('string');
const labels: GoType = { map: 'string' };
const SOURCE_FIELDS = (APPLICATION_SOURCE as { fields: Record<string, GoType> }).fields;
const PLUGIN = struct('ApplicationSourcePlugin', {
  name: 'string',
  env: list(struct('EnvEntry', { name: 'string', value: 'string' })),
  // OptionalMap and OptionalArray are embedded: their `map` and `array` are the parameter's own fields.
  parameters: list(struct('ApplicationSourcePluginParameter', { name: 'string', string: 'string', map: labels, array: strings })),
});
const SOURCE = struct('ApplicationSource', { ...SOURCE_FIELDS, plugin: PLUGIN });
const DRY_SOURCE = struct('DrySource', {
  repoURL: 'string',
  targetRevision: 'string',
  path: 'string',
  helm: SOURCE_FIELDS.helm!,
  kustomize: SOURCE_FIELDS.kustomize!,
  directory: SOURCE_FIELDS.directory!,
  plugin: PLUGIN,
});

const OBJECT_META = struct('ObjectMeta', {
  ...Object.fromEntries(
    [
      'name',
      'generateName',
      'namespace',
      'selfLink',
      'uid',
      'resourceVersion',
      'generation',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
    ].map((f) => [f, 'string' as GoType]),
  ),
  labels,
  annotations: labels,
  ownerReferences: list(
    struct('OwnerReference', { apiVersion: 'string', kind: 'string', name: 'string', uid: 'string', controller: 'bool', blockOwnerDeletion: 'bool' }),
  ),
  finalizers: strings,
  managedFields: list(
    struct('ManagedFieldsEntry', {
      manager: 'string',
      operation: 'string',
      apiVersion: 'string',
      time: 'string',
      fieldsType: 'string',
      fieldsV1: 'raw',
      subresource: 'string',
    }),
  ),
});

const SPEC = struct('ApplicationSpec', {
  source: SOURCE,
  destination: struct('ApplicationDestination', { server: 'string', namespace: 'string', name: 'string' }),
  project: 'string',
  syncPolicy: struct('SyncPolicy', {
    automated: struct('SyncPolicyAutomated', { prune: 'bool', selfHeal: 'bool', allowEmpty: 'bool', enabled: 'bool' }),
    syncOptions: strings,
    retry: struct('RetryStrategy', {
      limit: 'string',
      backoff: struct('Backoff', { duration: 'string', factor: 'string', maxDuration: 'string' }),
      refresh: 'bool',
    }),
    managedNamespaceMetadata: struct('ManagedNamespaceMetadata', { labels, annotations: labels }),
  }),
  ignoreDifferences: list(
    struct('ResourceIgnoreDifferences', {
      group: 'string',
      kind: 'string',
      name: 'string',
      namespace: 'string',
      jsonPointers: strings,
      jqPathExpressions: strings,
      managedFieldsManagers: strings,
    }),
  ),
  info: list(struct('Info', { name: 'string', value: 'string' })),
  revisionHistoryLimit: 'string',
  sources: list(SOURCE),
  sourceHydrator: struct('SourceHydrator', {
    drySource: DRY_SOURCE,
    syncSource: struct('SyncSource', { targetBranch: 'string', path: 'string', repoURL: 'string' }),
    hydrateTo: struct('HydrateTo', { targetBranch: 'string' }),
  }),
});

const APPLICATION: PatchType = {
  struct: 'Application',
  fields: {
    apiVersion: 'string',
    kind: 'string',
    metadata: OBJECT_META,
    spec: SPEC,
    status: { unmodelled: 'status' },
    operation: { unmodelled: 'operation' },
  },
};

/** The struct tags that say how a field merges, by struct and field: `patchStrategy` and `patchMergeKey`. */
export type PatchTags = Readonly<Record<string, { strategy: string; mergeKey?: string }>>;

const TAGS: PatchTags = {
  'ObjectMeta.finalizers': { strategy: 'merge' },
  'ObjectMeta.ownerReferences': { strategy: 'merge', mergeKey: 'uid' },
  'ApplicationSourceHelm.values': { strategy: 'replace' },
};

/** Go's reflect kind of a type, as `Name()` and the lookups' errors print it. */
function kindOf(t: PatchType): string {
  if (typeof t === 'string') return t === 'raw' || t === 'intstr' ? 'struct' : t;
  return 'list' in t ? 'slice' : 'map' in t ? 'map' : 'ptr' in t ? 'ptr' : 'struct';
}

function structOf(pointer: PatchType): { name: string; fields: Record<string, PatchType> } | undefined {
  const t = deref(pointer);
  if (t === 'raw') return { name: 'RawExtension', fields: {} };
  if (t === 'intstr') return { name: 'IntOrString', fields: { Type: 'string', IntVal: 'string', StrVal: 'string' } };
  return typeof t !== 'string' && 'struct' in t ? { name: t.struct, fields: t.fields } : undefined;
}

const deref = (t: PatchType): PatchType => (typeof t !== 'string' && 'ptr' in t ? t.ptr : t);

/** `PatchMetaFromStruct` over a Go type and its structs' tags. */
export function patchSchemaOf(t: PatchType, tags: PatchTags): PatchSchema {
  const forStruct = (key: string): PatchMeta & { type: PatchType } => {
    const target = deref(t);
    if (typeof target !== 'string' && 'unmodelled' in target) throw new UnmodelledField(`a patch that merges into the Application's ${target.unmodelled}`);
    const s = structOf(t);
    if (!s) throw new PatchError(`merging an object in json but data type is not struct, instead is: ${kindOf(target)}`);
    const field = jsonFieldOf(s.fields, key);
    if (field === undefined) throw new PatchError(`unable to find api field in struct ${s.name} for the json field ${JSON.stringify(key)}`);
    const tag = tags[`${s.name}.${field}`];
    const type = s.fields[field]!;
    return { type, schema: patchSchemaOf(type, tags), strategies: tag ? tag.strategy.split(',') : [''], mergeKey: tag?.mergeKey ?? '' };
  };
  return {
    forStruct,
    forSlice(key) {
      const meta = forStruct(key);
      const elem = (l: PatchType) => (typeof l !== 'string' && 'list' in l ? l.list : undefined);
      // A pointer's target is its own element, unless it points to a list.
      const ptr = typeof meta.type !== 'string' && 'ptr' in meta.type ? meta.type.ptr : undefined;
      const element = ptr !== undefined ? (elem(ptr) ?? ptr) : elem(meta.type);
      if (element === undefined) throw new PatchError(`expected slice or array type, but got: ${kindOf(t)}`);
      if (ptr === undefined && elem(element) !== undefined) throw new PatchError('unexpected slice of slice');
      return { ...meta, schema: patchSchemaOf(element, tags) };
    },
    name: () => kindOf(t),
  };
}

export const APPLICATION_PATCH_SCHEMA: PatchSchema = patchSchemaOf(APPLICATION, TAGS);

/**
 * What encoding/json's decode into the Application drops of a patched document: a key no field of its struct has
 * (the directives a replaced list or map carried along among them). Maps, lists' elements and RawExtensions keep
 * theirs. Only `$` keys are dropped here: any other unknown field stays, for the schema layer to name as the typo it is.
 */
export function dropLeftoverDirectives(value: unknown, t: PatchType = APPLICATION): unknown {
  if (Array.isArray(value)) return typeof t !== 'string' && 'list' in t ? value.map((e) => dropLeftoverDirectives(e, t.list)) : value;
  const s = structOf(t);
  if (!isMap(value) || !s || t === 'raw') {
    if (isMap(value) && typeof t !== 'string' && 'map' in t)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dropLeftoverDirectives(v, t.map)]));
    return value;
  }
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    const field = jsonFieldOf(s.fields, k);
    if (field === undefined && k.startsWith('$')) continue;
    out[k] = field === undefined ? v : dropLeftoverDirectives(v, s.fields[field]!);
  }
  return out;
}
