/**
 * What the API server refuses in an update of an object it holds (k8s.io/kubernetes v1.36, pkg/apis/<group>/validation,
 * Validate<Kind>Update, and the PersistentVolumeClaimResize admission plugin): the fields an object keeps from its
 * creation. `old` is the object as the cluster holds it (the base ref's render: what the last sync applied), `next`
 * what the sync sends; both are compared as the API server compares them once decoded and defaulted
 * (semantic-equal.ts). A refusal names the field and carries the API server's message; what the gate cannot know of
 * the live object (an address the cluster allocated, a class it defaulted) is said not judged.
 */
import type { Invalid } from './metadata.ts';
import { list } from '../../model/core/dig.ts';
import { canonicalPodTemplate, firstDifference, semanticEqual, withoutDefaults } from './semantic-equal.ts';
import { quantityValue } from '../../model/go/quantity.ts';
import { IMMUTABLE, immutable, refuse, unknown, type Obj, type UpdateCluster } from './update-verdicts.ts';
import { serviceUpdate } from './service-update.ts';

export type { UpdateCluster } from './update-verdicts.ts';

/** apps/v1: a controller's selector is fixed at creation (the strategies' ValidateUpdate, apps group only). */
const selectorRule =
  (fn: string) =>
  (old: Obj, next: Obj): Invalid[] =>
    immutable([old.spec?.selector, next.spec?.selector], ['spec', 'selector'], fn);

const STATEFULSET_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

/** A claim template as the StatefulSet stores it: no apiVersion, kind or status, its volumeMode defaulted. */
function storedClaimTemplate(t: unknown): Obj {
  const o = (t ?? {}) as Obj;
  const metadata = withoutDefaults(o.metadata, { creationTimestamp: null });
  return { metadata, spec: claimSpec(o.spec) };
}

/** A claim's spec defaulted as SetDefaults_PersistentVolumeClaimSpec does, dataSourceRef filled from dataSource. */
function claimSpec(spec: unknown): Obj {
  const s = withoutDefaults(spec, { volumeMode: 'Filesystem' });
  if (s.dataSource && !s.dataSourceRef) s.dataSourceRef = s.dataSource;
  return s;
}

/** ValidateStatefulSetUpdate: every spec field but the mutable few is fixed at creation. */
function statefulSetUpdate(old: Obj, next: Obj): Invalid[] {
  const fixed = (o: Obj): Obj => {
    const spec = withoutDefaults(o.spec, { podManagementPolicy: 'OrderedReady', serviceName: '' });
    for (const k of STATEFULSET_MUTABLE) delete spec[k];
    if (Array.isArray(spec.volumeClaimTemplates)) spec.volumeClaimTemplates = spec.volumeClaimTemplates.map(storedClaimTemplate);
    return spec;
  };
  const changed = firstDifference(fixed(old), fixed(next));
  if (!changed) return [];
  return [
    refuse(
      ['spec', changed],
      'ValidateStatefulSetUpdate',
      `spec: Forbidden: updates to statefulset spec for fields other than ${STATEFULSET_MUTABLE.slice(0, -1)
        .map((f) => `'${f}'`)
        .join(', ')} and 'minReadySeconds' are forbidden (${changed} changed)`,
    ),
  ];
}

/** The pod template fields a suspended Job that has not started may still change (AllowMutableSchedulingDirectives). */
function schedulingFree(template: Obj): Obj {
  const spec = { ...template.spec };
  for (const k of ['nodeSelector', 'tolerations', 'schedulingGates']) delete spec[k];
  if (spec.affinity) spec.affinity = { ...spec.affinity, nodeAffinity: undefined };
  return { metadata: {}, spec };
}

/** ValidateJobSpecUpdate: the selector, template, completions and failure and success policies are fixed. */
function jobUpdate(old: Obj, next: Obj): Invalid[] {
  const [a, b] = [old.spec ?? {}, next.spec ?? {}];
  const fn = 'ValidateJobSpecUpdate';
  const out = [
    ...immutable([a.selector, b.selector], ['spec', 'selector'], fn),
    ...immutable([a.completionMode ?? 'NonIndexed', b.completionMode ?? 'NonIndexed'], ['spec', 'completionMode'], fn),
    ...['podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy'].flatMap((f) => immutable([a[f], b[f]], ['spec', f], fn)),
  ];
  if (!semanticEqual(a.completions, b.completions)) {
    // validateCompletions: an Indexed Job may change its completions in tandem with its parallelism (elastic Jobs).
    if ((b.completionMode ?? 'NonIndexed') !== 'Indexed') out.push(refuse(['spec', 'completions'], fn, IMMUTABLE));
    else if (b.completions !== undefined && b.completions !== b.parallelism)
      out.push(refuse(['spec', 'completions'], fn, 'can only be modified in tandem with spec.parallelism'));
  }
  const [ta, tb] = [canonicalPodTemplate(a.template), canonicalPodTemplate(b.template)];
  const free = a.suspend === true; // suspended (and, the gate assumes, never started): its scheduling directives are free
  if (!semanticEqual(free ? schedulingFree(ta) : ta, free ? schedulingFree(tb) : tb)) {
    const changed = firstDifference(ta.spec, tb.spec) ?? 'metadata';
    out.push(refuse(['spec', 'template'], fn, `${IMMUTABLE} (template ${changed === 'metadata' ? 'metadata' : `spec.${changed}`} changed)`));
  }
  // A finished Job with a TTL is deleted by the TTL controller, and the sync then creates it anew: whether it is still
  // there to refuse the update, the gate cannot know.
  if (typeof a.ttlSecondsAfterFinished !== 'number') return out;
  const gone = `; accepted only once the Job has finished and its ttlSecondsAfterFinished (${a.ttlSecondsAfterFinished}s) has removed it, which the gate cannot know`;
  return out.map((v) => ({ ...v, message: `${v.message}${gone}`, notJudged: true }));
}

const storage = (o: Obj) => o.spec?.resources?.requests?.storage;

/** GetPersistentVolumeClaimClass: the class a claim names ("" for none). */
const claimClass = (o: Obj): string | undefined => o.spec?.storageClassName ?? o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];

/**
 * ValidatePersistentVolumeClaimUpdate for a bound claim (what a synced claim is): its spec is fixed but for the
 * size and volumeAttributesClassName; the size never falls below status.capacity (the size it was given); and the
 * PersistentVolumeClaimResize plugin lets it grow only where its class allows volume expansion.
 */
function claimUpdate(old: Obj, next: Obj, cluster: UpdateCluster): Invalid[] {
  const fn = 'ValidatePersistentVolumeClaimUpdate';
  const out: Invalid[] = [];
  const [a, b] = [claimSpec(old.spec), claimSpec(next.spec)];
  // The class the live claim holds: the one it named, else the default class given at creation (if the repository
  // says which). A class the manifest leaves out on both sides is never patched; one it drops is patched to none.
  let [liveClass, sentClass] = [a.storageClassName, b.storageClassName];
  if (liveClass === undefined && sentClass !== undefined) {
    if (cluster.defaultStorageClass === undefined)
      out.push(
        unknown(['spec', 'storageClassName'], fn, 'the claim named no class at creation; the one the cluster gave it, if any, is not in the repository'),
      );
    liveClass = cluster.defaultStorageClass ?? sentClass;
  }
  const fixed = (s: Obj, cls: unknown) => {
    const copy: Obj = { ...s, storageClassName: cls, resources: { ...s.resources, requests: { ...s.resources?.requests, storage: undefined } } };
    delete copy.volumeAttributesClassName;
    // volumeName is the binder's to set: compared only where both manifests name a volume.
    if (a.volumeName === undefined || b.volumeName === undefined) delete copy.volumeName;
    return copy;
  };
  const changed = firstDifference(fixed(a, liveClass), fixed(b, sentClass));
  if (changed)
    out.push(
      refuse(
        ['spec', changed],
        fn,
        `spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims (${changed} changed)`,
      ),
    );
  const [from, to] = [quantityValue(storage(old)), quantityValue(storage(next))];
  if (from !== undefined && to !== undefined && to < from)
    out.push(
      refuse(
        ['spec', 'resources', 'requests', 'storage'],
        fn,
        `Forbidden: field can not be less than status.capacity (${String(storage(old))} -> ${String(storage(next))})`,
      ),
    );
  if (from !== undefined && to !== undefined && to > from) out.push(...resize(old, next, cluster));
  return out;
}

/** The PersistentVolumeClaimResize admission plugin: a claim grows only under one class that allows expansion. */
function resize(old: Obj, next: Obj, cluster: UpdateCluster): Invalid[] {
  const fn = 'PersistentVolumeClaimResize';
  const path = ['spec', 'resources', 'requests', 'storage'];
  const [was, is] = [claimClass(old) ?? cluster.defaultStorageClass, claimClass(next) ?? cluster.defaultStorageClass];
  const forbidden = `persistentvolumeclaims "${String(next.metadata?.name)}" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`;
  if (was === undefined && is === undefined)
    return [unknown(path, fn, 'the claim names no class and the repository has no default class: whether it may grow is not known')];
  if (!was || !is || was !== is) return [refuse(path, fn, forbidden)];
  const cls = cluster.storageClass(is);
  if (!cls) return [unknown(path, fn, `StorageClass ${is} is not in the repository: whether it allows volume expansion is not known`)];
  return cls.allowVolumeExpansion === true ? [] : [refuse(path, fn, `${forbidden} (StorageClass ${is} does not set allowVolumeExpansion: true)`)];
}

/** The spec fields of a PersistentVolume outside its PersistentVolumeSource. */
const PV_NOT_SOURCE = new Set([
  'capacity',
  'accessModes',
  'claimRef',
  'persistentVolumeReclaimPolicy',
  'storageClassName',
  'mountOptions',
  'volumeMode',
  'nodeAffinity',
  'volumeAttributesClassName',
]);

/** ValidatePersistentVolumeUpdate: the volume source and volumeMode are fixed, and nodeAffinity once set. */
function volumeUpdate(old: Obj, next: Obj): Invalid[] {
  const fn = 'ValidatePersistentVolumeUpdate';
  const source = (o: Obj): Obj => {
    const out = Object.fromEntries(Object.entries(o.spec ?? {}).filter(([k]) => !PV_NOT_SOURCE.has(k)));
    if (out.hostPath) out.hostPath = withoutDefaults(out.hostPath, { type: '' });
    return out;
  };
  const changed = firstDifference(source(old), source(next));
  return [
    ...(changed
      ? [refuse(['spec', changed], fn, `spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation (${changed} changed)`)]
      : []),
    ...immutable([old.spec?.volumeMode ?? 'Filesystem', next.spec?.volumeMode ?? 'Filesystem'], ['spec', 'volumeMode'], fn),
    ...(old.spec?.nodeAffinity ? immutable([old.spec.nodeAffinity, next.spec?.nodeAffinity], ['spec', 'nodeAffinity'], fn) : []),
  ];
}

/** Secret and ConfigMap: the type is fixed, and with `immutable: true` their data and the flag itself. */
function dataUpdate(fields: readonly string[], fn: string) {
  return (old: Obj, next: Obj): Invalid[] => {
    const out = fn === 'ValidateSecretUpdate' ? immutable([old.type ?? 'Opaque', next.type ?? 'Opaque'], ['type'], fn) : [];
    if (old.immutable !== true) return out;
    const frozen = 'Forbidden: field is immutable when `immutable` is set';
    if (next.immutable !== true) out.push(refuse(['immutable'], fn, frozen));
    for (const f of fields) out.push(...immutable([old[f], next[f]], [f], fn, frozen));
    return out;
  };
}

/** A Secret's data as the API server holds it: stringData is folded into data (base64) before validation. */
function secretData(o: Obj): Obj {
  const data: Obj = { ...(o.data ?? {}) };
  for (const [k, v] of Object.entries((o.stringData ?? {}) as Obj)) data[k] = Buffer.from(String(v)).toString('base64');
  return { ...o, data, stringData: undefined };
}

function storageClassUpdate(old: Obj, next: Obj): Invalid[] {
  const fn = 'ValidateStorageClassUpdate';
  return [
    ...immutable([old.parameters, next.parameters], ['parameters'], fn, 'Forbidden: updates to parameters are forbidden.'),
    ...immutable([old.provisioner, next.provisioner], ['provisioner'], fn, 'Forbidden: updates to provisioner are forbidden.'),
    ...immutable([old.reclaimPolicy ?? 'Delete', next.reclaimPolicy ?? 'Delete'], ['reclaimPolicy'], fn, 'Forbidden: updates to reclaimPolicy are forbidden.'),
    ...immutable([old.volumeBindingMode ?? 'Immediate', next.volumeBindingMode ?? 'Immediate'], ['volumeBindingMode'], fn),
  ];
}

/** A CRD: its scope and kind once established, and every version it has stored (status.storedVersions). */
function crdUpdate(old: Obj, next: Obj): Invalid[] {
  const fn = 'ValidateCustomResourceDefinitionUpdate';
  const out = [
    ...immutable([old.spec?.scope, next.spec?.scope], ['spec', 'scope'], fn),
    ...immutable([old.spec?.names?.kind, next.spec?.names?.kind], ['spec', 'names', 'kind'], fn),
  ];
  const versions = new Set((list(next.spec?.versions) as Obj[]).map((v) => v?.name));
  // The version the cluster stores objects in is in status.storedVersions, which the update keeps.
  for (const v of list(old.spec?.versions) as Obj[])
    if (v?.storage === true && !versions.has(v.name))
      out.push(
        refuse(
          ['spec', 'versions'],
          'ValidateCustomResourceDefinitionStoredVersions',
          `status.storedVersions[0]: Invalid value: "${String(v.name)}": must appear in spec.versions`,
        ),
      );
  return out;
}

/** ValidatePodUpdate's refusal of any other change, in its words. */
const POD_FIXED =
  'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/**
 * ValidatePodUpdate: a pod's spec is fixed at its creation but for its containers' images, an activeDeadlineSeconds
 * that only shortens, tolerations only added, and scheduling gates only removed; each is put back as the cluster holds
 * it, and what is left must equal the old spec.
 */
function podUpdate(old: Obj, next: Obj): Invalid[] {
  const fn = 'ValidatePodUpdate';
  const [a, b] = [canonicalPodTemplate({ spec: old.spec }).spec as Obj, canonicalPodTemplate({ spec: next.spec }).spec as Obj];
  const out: Invalid[] = [];
  const munged: Obj = { ...b, activeDeadlineSeconds: a.activeDeadlineSeconds, tolerations: a.tolerations, schedulingGates: a.schedulingGates };
  for (const list of ['containers', 'initContainers'])
    if (Array.isArray(a[list]) && Array.isArray(b[list]) && a[list].length === b[list].length)
      munged[list] = b[list].map((c: Obj, i: number) => ({ ...c, image: a[list][i]?.image }));
  const [was, is] = [a.activeDeadlineSeconds, b.activeDeadlineSeconds];
  if (typeof was === 'number' && is === undefined)
    out.push(refuse(['spec', 'activeDeadlineSeconds'], fn, 'Invalid value: must not update from a positive integer to nil value'));
  else if (typeof was === 'number' && typeof is === 'number' && is > was)
    out.push(refuse(['spec', 'activeDeadlineSeconds'], fn, 'Invalid value: must be less than or equal to previous value'));
  const kept = (olds: unknown, news: unknown) =>
    (Array.isArray(olds) ? olds : []).every((t) => (Array.isArray(news) ? news : []).some((u) => semanticEqual(t, u)));
  if (!kept(a.tolerations, b.tolerations)) out.push(refuse(['spec', 'tolerations'], fn, POD_FIXED));
  if (!kept(b.schedulingGates, a.schedulingGates))
    out.push(refuse(['spec', 'schedulingGates'], fn, 'Forbidden: only deletion is allowed, but found new scheduling gate'));
  if (!semanticEqual(munged, a)) out.push(refuse(['spec'], fn, `${POD_FIXED} (spec.${firstDifference(a, munged) ?? ''} changed)`));
  return out;
}

type UpdateRule = (old: Obj, next: Obj, cluster: UpdateCluster) => Invalid[];

/** The update rules, by apiVersion and kind. */
const RULES: Readonly<Record<string, UpdateRule>> = {
  'v1/Pod': podUpdate,
  'apps/v1/Deployment': selectorRule('ValidateDeploymentUpdate'),
  'apps/v1/ReplicaSet': selectorRule('ValidateReplicaSetUpdate'),
  'apps/v1/DaemonSet': selectorRule('ValidateDaemonSetUpdate'),
  'apps/v1/StatefulSet': statefulSetUpdate,
  'batch/v1/Job': jobUpdate,
  'v1/PersistentVolumeClaim': claimUpdate,
  'v1/PersistentVolume': volumeUpdate,
  'v1/Service': serviceUpdate,
  'v1/Secret': (o, n) => dataUpdate(['data'], 'ValidateSecretUpdate')(secretData(o), secretData(n)),
  'v1/ConfigMap': dataUpdate(['data', 'binaryData'], 'ValidateConfigMapUpdate'),
  'rbac.authorization.k8s.io/v1/RoleBinding': (o, n) =>
    immutable([o.roleRef, n.roleRef], ['roleRef'], 'ValidateRoleBindingUpdate', 'Invalid value: cannot change roleRef'),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': (o, n) =>
    immutable([o.roleRef, n.roleRef], ['roleRef'], 'ValidateClusterRoleBindingUpdate', 'Invalid value: cannot change roleRef'),
  'storage.k8s.io/v1/StorageClass': storageClassUpdate,
  // ValidateCSIDriverUpdate: what a driver attaches, and which volume lifecycles it serves, are fixed (their defaults
  // true and Persistent, as SetDefaults_CSIDriver fills them in).
  'storage.k8s.io/v1/CSIDriver': (o, n) => [
    ...immutable([o.spec?.attachRequired ?? true, n.spec?.attachRequired ?? true], ['spec', 'attachRequired'], 'ValidateCSIDriverUpdate'),
    ...immutable(
      [o.spec?.volumeLifecycleModes ?? ['Persistent'], n.spec?.volumeLifecycleModes ?? ['Persistent']],
      ['spec', 'volumeLifecycleModes'],
      'ValidateCSIDriverUpdate',
    ),
  ],
  'networking.k8s.io/v1/IngressClass': (o, n) => immutable([o.spec?.controller, n.spec?.controller], ['spec', 'controller'], 'ValidateIngressClassUpdate'),
  'scheduling.k8s.io/v1/PriorityClass': (o, n) => [
    ...immutable([o.value, n.value], ['value'], 'ValidatePriorityClassUpdate', 'Forbidden: may not be changed in an update.'),
    ...immutable(
      [o.preemptionPolicy ?? 'PreemptLowerPriority', n.preemptionPolicy ?? 'PreemptLowerPriority'],
      ['preemptionPolicy'],
      'ValidatePriorityClassUpdate',
    ),
  ],
  'apiextensions.k8s.io/v1/CustomResourceDefinition': crdUpdate,
};

/** The kinds whose updates are judged here. */
export const UPDATE_JUDGED_KINDS: readonly string[] = Object.keys(RULES);

/**
 * What the API server refuses when `next` replaces `old` (one object: same apiVersion, kind, namespace and name), and
 * what it cannot be told (`notJudged`). Nothing for a kind without update rules here.
 */
export function updateViolations(old: Obj, next: Obj, cluster: UpdateCluster): Invalid[] {
  const rule = RULES[`${String(next.apiVersion)}/${String(next.kind)}`];
  return rule && old.apiVersion === next.apiVersion ? rule(old, next, cluster) : [];
}
