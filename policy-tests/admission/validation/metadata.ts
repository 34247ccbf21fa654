/**
 * ObjectMeta as k8s.io/apimachinery/pkg/api/validation (ValidateObjectMeta)
 * judges it: the name by the kind's rule, labels, annotations and their
 * total size, generateName; and what a manifest copied out of a cluster
 * carries that a create or a later apply refuses (resourceVersion, uid), or
 * that has the object deleted (ownerReferences).
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { dns1035Label, dns1123Label, dns1123Subdomain, labelValue, maskTrailingDash, pathSegmentName, qualifiedName } from './syntax.ts';
import { scalarText } from '../../model/core/text.ts';

export interface Invalid {
  path: PathSegment[];
  message: string;
  /** The Kubernetes validation function that refuses it (k8s.io/kubernetes, apimachinery). */
  fn: string;
  /** What the gate cannot say the API server refuses or admits: counted as not judged, never as a pass or a failure. */
  notJudged?: true;
}

type NameRule = { fn: string; check: (v: string) => string | undefined; max?: number };

const SUBDOMAIN: NameRule = { fn: 'NameIsDNSSubdomain', check: dns1123Subdomain };
const LABEL: NameRule = { fn: 'NameIsDNSLabel', check: dns1123Label };
const RBAC: NameRule = { fn: 'ValidateRBACName (path.IsValidPathSegmentName)', check: pathSegmentName };

/** How each kind's name is judged; kinds not listed use a DNS subdomain, the apimachinery default for most kinds. */
const NAME_RULES: Record<string, NameRule> = {
  Namespace: LABEL,
  Service: { fn: 'ValidateServiceName (NameIsDNS1035Label)', check: dns1035Label },
  CronJob: { fn: 'ValidateCronJobName (subdomain, at most 52 characters)', check: dns1123Subdomain, max: 52 },
  Role: RBAC,
  ClusterRole: RBAC,
  RoleBinding: RBAC,
  ClusterRoleBinding: RBAC,
  // Custom resources: the API server checks a custom resource's name as a DNS subdomain (customresource validation).
};

/** The total of annotation keys and values the API server accepts (TotalAnnotationSizeLimitB). */
export const ANNOTATIONS_LIMIT = 256 * 1024;

export function validateName(kind: string, name: string, path: PathSegment[]): Invalid[] {
  const rule = NAME_RULES[kind] ?? SUBDOMAIN;
  const problem = rule.check(name) ?? (rule.max !== undefined && name.length > rule.max ? `must be no more than ${rule.max} characters` : undefined);
  return problem ? [{ path, fn: rule.fn, message: `${kind} name "${name}": ${problem}` }] : [];
}

export function validateLabels(labels: unknown, path: PathSegment[]): Invalid[] {
  if (!labels || typeof labels !== 'object') return [];
  const out: Invalid[] = [];
  for (const [key, value] of Object.entries(labels as Record<string, unknown>)) {
    const badKey = qualifiedName(key);
    if (badKey) out.push({ path: [...path, key], fn: 'ValidateLabels (IsQualifiedName)', message: `label key "${key}": ${badKey}` });
    const badValue = typeof value === 'string' ? labelValue(value) : undefined;
    if (badValue) out.push({ path: [...path, key], fn: 'ValidateLabels (IsValidLabelValue)', message: `label ${key}="${value as string}": ${badValue}` });
  }
  return out;
}

export function validateAnnotations(annotations: unknown, path: PathSegment[]): Invalid[] {
  if (!annotations || typeof annotations !== 'object') return [];
  const out: Invalid[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations as Record<string, unknown>)) {
    total += Buffer.byteLength(key) + Buffer.byteLength(typeof value === 'string' ? value : scalarText(value ?? ''));
    const bad = qualifiedName(key.toLowerCase());
    if (bad) out.push({ path: [...path, key], fn: 'ValidateAnnotations (IsQualifiedName)', message: `annotation key "${key}": ${bad}` });
  }
  if (total > ANNOTATIONS_LIMIT)
    out.push({
      path,
      fn: 'ValidateAnnotationsSize',
      message: `annotations are ${total.toLocaleString('en-US')} bytes, over the limit of ${ANNOTATIONS_LIMIT.toLocaleString('en-US')} (256 KiB)`,
    });
  return out;
}

/**
 * What a manifest copied out of a running cluster (kubectl get -o yaml) carries that the API server then refuses:
 * a resourceVersion, which no create may set (the storage layer's ErrResourceVersionSetOnCreate) and which makes an
 * update a conflict unless it is the live one's; a uid, which a create replaces with its own and which every later
 * apply then tries to change (ValidateObjectMetaUpdate: immutable); owner references, whose uids no new object has,
 * so the garbage collector deletes the object as a dependent of absent owners.
 */
function copiedFromACluster(m: Record<string, unknown>, path: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  if (m.resourceVersion !== undefined && m.resourceVersion !== null && scalarText(m.resourceVersion) !== '')
    out.push({
      path: [...path, 'resourceVersion'],
      fn: 'storage.ErrResourceVersionSetOnCreate',
      message: 'resourceVersion should not be set on objects to be created (and on one that exists, every apply is a conflict unless it is the live one)',
    });
  if (Array.isArray(m.ownerReferences) && m.ownerReferences.length > 0)
    out.push({
      path: [...path, 'ownerReferences'],
      fn: 'garbage collector (attemptToDeleteItem: every owner absent)',
      message:
        'ownerReferences name owners by uid, and no object the cluster creates has a uid a manifest knows: the garbage collector deletes this object soon after each create, its owners absent',
    });
  if (typeof m.uid === 'string' && m.uid !== '')
    out.push({
      path: [...path, 'uid'],
      fn: 'ValidateObjectMetaUpdate (ValidateImmutableField)',
      message: `uid ${m.uid}: a create gives the object a uid of its own, and every later apply that sends this one is refused: field is immutable`,
    });
  return out;
}

/** ValidateObjectMeta for an object, or a pod template's metadata (`template`: no name of its own). */
export function validateObjectMeta(kind: string, meta: unknown, path: PathSegment[], template = false): Invalid[] {
  const m = (meta ?? {}) as Record<string, unknown>;
  const out: Invalid[] = [];
  if (!template) {
    if (typeof m.name === 'string' && m.name !== '') out.push(...validateName(kind, m.name, [...path, 'name']));
    else if (typeof m.generateName === 'string' && m.generateName !== '') {
      // The prefix is judged as a name once its trailing dash is removed (ValidateObjectMeta's maskTrailingDash).
      out.push(...validateName(kind, maskTrailingDash(m.generateName), [...path, 'generateName']));
    } else out.push({ path: [...path, 'name'], fn: 'ValidateObjectMeta', message: 'name or generateName is required' });
    if (typeof m.namespace === 'string' && m.namespace !== '') {
      const bad = dns1123Label(m.namespace);
      if (bad) out.push({ path: [...path, 'namespace'], fn: 'ValidateObjectMeta (ValidateNamespaceName)', message: `namespace "${m.namespace}": ${bad}` });
    }
    out.push(...copiedFromACluster(m, path));
  }
  out.push(...validateLabels(m.labels, [...path, 'labels']), ...validateAnnotations(m.annotations, [...path, 'annotations']));
  return out;
}
