/**
 * Per-kind validation of the API server (k8s.io/kubernetes/pkg/apis/<group>/validation):
 * what each built-in kind's Validate<Kind> refuses beyond the OpenAPI schema.
 */
import { limitRangeProblems } from '../allocation/limit-range.ts';
import { list } from '../../model/core/dig.ts';
import { resourceQuotaProblems } from '../allocation/resource-quota.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { validateObjectMeta, type Invalid } from './metadata.ts';
import { validatePodSpec } from './pod.ts';
import { featuresAt } from './feature-gates.ts';
import { WORKLOAD_RULES, type KindRule } from './workloads.ts';
import { kindSelectorProblems } from './label-selector.ts';
import { serviceProblems } from './service.ts';
import { ingressClassProblems, ingressProblems } from './ingress.ts';
import { storageClassProblems } from './storage-class.ts';
import { persistentVolumeProblems } from './volume-sources.ts';
import { autoscalerProblems } from './autoscaler.ts';
import { cidr, configMapKey, dns1123Subdomain, intOrPercent, pathSegmentName, portNumOrNameProblem, strictSubnet } from './syntax.ts';
import { claimSpecProblems } from './claim-spec.ts';

type Obj = Record<string, any>;

function dataKeys(o: Obj): Invalid[] {
  const out: Invalid[] = [];
  const seen = new Set<string>();
  for (const field of ['data', 'binaryData', 'stringData']) {
    for (const key of Object.keys((o[field] ?? {}) as Obj)) {
      const bad = configMapKey(key);
      if (bad) out.push({ path: [field, key], fn: `Validate${o.kind} (IsConfigMapKey)`, message: `key "${key}": ${bad}` });
      if (o.kind === 'ConfigMap' && seen.has(key))
        out.push({ path: [field, key], fn: 'ValidateConfigMap', message: `key "${key}" is in both data and binaryData` });
      if (field !== 'stringData') seen.add(key);
    }
  }
  if (o.kind === 'Secret') {
    const keys = new Set([...Object.keys(o.data ?? {}), ...Object.keys(o.stringData ?? {})]);
    const need: Record<string, string[]> = {
      'kubernetes.io/tls': ['tls.crt', 'tls.key'],
      'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
      'kubernetes.io/dockercfg': ['.dockercfg'],
      'kubernetes.io/ssh-auth': ['ssh-privatekey'],
    };
    for (const key of need[o.type] ?? [])
      if (!keys.has(key)) out.push({ path: ['type'], fn: 'ValidateSecret', message: `a Secret of type ${String(o.type)} needs the key ${key}` });
  }
  return out;
}

/** ValidateIPBlock: a valid CIDR, and each exception a valid CIDR strictly inside it. */
function ipBlockProblems(block: Obj, at: PathSegment[]): Invalid[] {
  const bad = cidr(block.cidr);
  if (bad) return [{ path: [...at, 'cidr'], fn: 'ValidateIPBlock', message: `cidr "${block.cidr}" ${bad}` }];
  return (Array.isArray(block.except) ? block.except : []).flatMap((e: unknown, i: number) => {
    const badExcept = typeof e === 'string' ? cidr(e) : 'must be a string';
    if (badExcept) return [{ path: [...at, 'except', i], fn: 'ValidateIPBlock', message: `except "${String(e)}" ${badExcept}` }];
    return strictSubnet(e as string, block.cidr)
      ? []
      : [{ path: [...at, 'except', i], fn: 'ValidateIPBlock', message: `except "${String(e)}": must be a strict subset of \`cidr\`` }];
  });
}

function networkPolicy(o: Obj): Invalid[] {
  const out: Invalid[] = [];
  for (const dir of ['ingress', 'egress']) {
    (list(o.spec?.[dir]) as Obj[]).forEach((rule, i) => {
      (list(rule?.ports) as Obj[]).forEach((p, j) => {
        const port = p?.port;
        const bad = portNumOrNameProblem(port);
        if (bad) out.push({ path: ['spec', dir, i, 'ports', j, 'port'], fn: 'ValidateNetworkPolicyPort', message: `port ${JSON.stringify(port)} ${bad}` });
        if (p?.endPort !== undefined && (typeof port !== 'number' || p.endPort < port))
          out.push({
            path: ['spec', dir, i, 'ports', j, 'endPort'],
            fn: 'ValidateNetworkPolicyPort',
            message: 'endPort needs a numeric port, and must be greater than or equal to it',
          });
      });
      (list(rule?.[dir === 'ingress' ? 'from' : 'to']) as Obj[]).forEach((peer, j) => {
        const at: PathSegment[] = ['spec', dir, i, dir === 'ingress' ? 'from' : 'to', j];
        if (!peer?.ipBlock && !peer?.podSelector && !peer?.namespaceSelector)
          out.push({ path: at, fn: 'ValidateNetworkPolicyPeer', message: 'must specify a peer' });
        if (peer?.ipBlock && (peer.podSelector || peer.namespaceSelector))
          out.push({ path: [...at, 'ipBlock'], fn: 'ValidateNetworkPolicyPeer', message: 'ipBlock may not be combined with podSelector or namespaceSelector' });
        if (typeof peer?.ipBlock?.cidr === 'string') out.push(...ipBlockProblems(peer.ipBlock, [...at, 'ipBlock']));
      });
    });
  }
  return out;
}

/** ValidatePolicyRule: a rule is about non-resource URLs alone (on a ClusterRole), or about resources of API groups. */
function roleRules(o: Obj): Invalid[] {
  const filled = (v: unknown) => Array.isArray(v) && v.length > 0;
  return (list(o.rules) as Obj[]).flatMap((r, i) => {
    const out: Invalid[] = [];
    const rule = (field: string, message: string) => out.push({ path: ['rules', i, field], fn: 'ValidatePolicyRule', message });
    if (!filled(r?.verbs)) rule('verbs', 'verbs must contain at least one value');
    if (filled(r?.nonResourceURLs)) {
      if (o.kind === 'Role') rule('nonResourceURLs', 'namespaced rules cannot apply to non-resource URLs');
      if (filled(r.apiGroups) || filled(r.resources) || filled(r.resourceNames))
        rule('nonResourceURLs', 'rules cannot apply to both regular resources and non-resource URLs');
      return out;
    }
    if (!filled(r?.apiGroups)) rule('apiGroups', 'resource rules must supply at least one api group');
    if (!filled(r?.resources)) rule('resources', 'resource rules must supply at least one resource');
    return out;
  });
}

/** An aggregated ClusterRole names at least one selector (ValidateClusterRole); each is judged in label-selector.ts. */
function aggregationRule(o: Obj): Invalid[] {
  if (!o.aggregationRule || (Array.isArray(o.aggregationRule.clusterRoleSelectors) && o.aggregationRule.clusterRoleSelectors.length > 0)) return [];
  return [
    {
      path: ['aggregationRule', 'clusterRoleSelectors'],
      fn: 'ValidateClusterRole',
      message: 'at least one clusterRoleSelector required if aggregationRule is non-nil',
    },
  ];
}

function binding(o: Obj): Invalid[] {
  const out: Invalid[] = [];
  const ref = o.roleRef ?? {};
  if (ref.apiGroup !== 'rbac.authorization.k8s.io')
    out.push({ path: ['roleRef', 'apiGroup'], fn: 'ValidateRoleBinding', message: 'roleRef.apiGroup must be rbac.authorization.k8s.io' });
  const kinds = o.kind === 'RoleBinding' ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) out.push({ path: ['roleRef', 'kind'], fn: 'ValidateRoleBinding', message: `roleRef.kind must be ${kinds.join(' or ')}` });
  // roleRef.name: required, and a name ValidateRBACName takes.
  const refName = typeof ref.name === 'string' ? ref.name : '';
  const refNameProblem = refName === '' ? 'Required value' : pathSegmentName(refName);
  if (refNameProblem) out.push({ path: ['roleRef', 'name'], fn: 'ValidateRoleBinding', message: `roleRef.name: ${refNameProblem}` });
  (list(o.subjects) as Obj[]).forEach((s, i) => {
    const name = typeof s?.name === 'string' ? s.name : '';
    if (name === '') out.push({ path: ['subjects', i, 'name'], fn: 'ValidateRoleBindingSubject', message: 'subjects.name: Required value' });
    else if (s?.kind === 'ServiceAccount' && dns1123Subdomain(name))
      out.push({ path: ['subjects', i, 'name'], fn: 'ValidateRoleBindingSubject', message: `a ServiceAccount subject's name: ${dns1123Subdomain(name)!}` });
    if (s?.kind === 'ServiceAccount') {
      if (s.apiGroup)
        out.push({ path: ['subjects', i, 'apiGroup'], fn: 'ValidateRoleBindingSubject', message: 'a ServiceAccount subject has the core api group ("")' });
      if (o.kind === 'ClusterRoleBinding' && !s.namespace)
        out.push({ path: ['subjects', i], fn: 'ValidateRoleBindingSubject', message: 'a ServiceAccount subject of a ClusterRoleBinding needs a namespace' });
    } else if (s?.kind === 'User' || s?.kind === 'Group') {
      if (s.apiGroup !== 'rbac.authorization.k8s.io')
        out.push({
          path: ['subjects', i, 'apiGroup'],
          fn: 'ValidateRoleBindingSubject',
          message: `a ${String(s.kind)} subject's apiGroup must be rbac.authorization.k8s.io`,
        });
    } else
      out.push({
        path: ['subjects', i, 'kind'],
        fn: 'ValidateRoleBindingSubject',
        message: `subject kind "${String(s?.kind)}" is not one of ServiceAccount, User, Group`,
      });
  });
  return out;
}

function pdb(o: Obj): Invalid[] {
  const s = o.spec ?? {};
  const out: Invalid[] = [];
  if (s.minAvailable !== undefined && s.maxUnavailable !== undefined)
    out.push({ path: ['spec', 'maxUnavailable'], fn: 'ValidatePodDisruptionBudgetSpec', message: 'minAvailable and maxUnavailable cannot be both set' });
  for (const f of ['minAvailable', 'maxUnavailable']) {
    const bad = intOrPercent(s[f]);
    if (bad) out.push({ path: ['spec', f], fn: 'ValidatePodDisruptionBudgetSpec', message: `${f} ${bad}` });
    if (typeof s[f] === 'string' && /^[0-9]+%$/.test(s[f]) && Number(s[f].slice(0, -1)) > 100)
      out.push({ path: ['spec', f], fn: 'ValidatePodDisruptionBudgetSpec (IsNotMoreThan100Percent)', message: `${f} must not be greater than 100%` });
  }
  return out;
}

/** HighestUserDefinablePriority */
const HIGHEST_USER_PRIORITY = 1_000_000_000;

function webhooks(o: Obj): Invalid[] {
  const out: Invalid[] = [];
  const names = new Set<string>();
  (list(o.webhooks) as Obj[]).forEach((w, i) => {
    const at: PathSegment[] = ['webhooks', i];
    if (typeof w?.name === 'string') {
      if (names.has(w.name)) out.push({ path: [...at, 'name'], fn: 'validateWebhook', message: `duplicate webhook name "${w.name}"` });
      names.add(w.name);
      if (dns1123Subdomain(w.name) || w.name.split('.').length < 3)
        out.push({
          path: [...at, 'name'],
          fn: 'validateWebhook',
          message: `webhook name "${w.name}" should be a domain with at least three segments separated by dots`,
        });
    }
    if (!Array.isArray(w?.admissionReviewVersions) || w.admissionReviewVersions.length === 0)
      out.push({
        path: [...at, 'admissionReviewVersions'],
        fn: 'validateAdmissionReviewVersions',
        message: 'admissionReviewVersions must specify one of v1, v1beta1',
      });
    if (w?.timeoutSeconds !== undefined && !(typeof w.timeoutSeconds === 'number' && w.timeoutSeconds >= 1 && w.timeoutSeconds <= 30))
      out.push({ path: [...at, 'timeoutSeconds'], fn: 'validateWebhook', message: 'the timeout value must be between 1 and 30 seconds' });
    const cc = w?.clientConfig ?? {};
    if (!!cc.url === !!cc.service)
      out.push({ path: [...at, 'clientConfig'], fn: 'ValidateWebhookClientConfig', message: 'exactly one of url or service is required' });
  });
  return out;
}

const RULES: Record<string, KindRule> = {
  ...WORKLOAD_RULES,
  Pod: (o, features) => validatePodSpec(o.spec, ['spec'], { features, labels: o.metadata?.labels }),
  Service: serviceProblems,
  ConfigMap: dataKeys,
  Secret: dataKeys,
  PersistentVolumeClaim: (o) => claimSpecProblems(o.spec, ['spec']),
  PersistentVolume: (o) => persistentVolumeProblems(o.spec, ['spec']),
  Ingress: ingressProblems,
  IngressClass: ingressClassProblems,
  NetworkPolicy: networkPolicy,
  Role: roleRules,
  ClusterRole: (o) => [...roleRules(o), ...aggregationRule(o)],
  RoleBinding: binding,
  ClusterRoleBinding: binding,
  PodDisruptionBudget: pdb,
  HorizontalPodAutoscaler: autoscalerProblems,
  StorageClass: storageClassProblems,
  PriorityClass: (o) => {
    const out: Invalid[] = [];
    if (typeof o.value === 'number' && o.value > HIGHEST_USER_PRIORITY)
      out.push({
        path: ['value'],
        fn: 'ValidatePriorityClass',
        message: `value ${o.value} is above the highest user-definable priority ${HIGHEST_USER_PRIORITY}`,
      });
    if (typeof o.metadata?.name === 'string' && o.metadata.name.startsWith('system-'))
      out.push({ path: ['metadata', 'name'], fn: 'ValidatePriorityClass', message: 'priority class names with the system- prefix are reserved' });
    return out;
  },
  ValidatingWebhookConfiguration: webhooks,
  MutatingWebhookConfiguration: webhooks,
  LimitRange: (o) => limitRangeProblems(o).map((p) => ({ ...p, fn: 'ValidateLimitRange' })),
  ResourceQuota: (o) => resourceQuotaProblems(o).map((p) => ({ ...p, fn: 'ValidateResourceQuota' })),
  CustomResourceDefinition: (o) => {
    const expected = `${String(o.spec?.names?.plural)}.${String(o.spec?.group)}`;
    return o.metadata?.name !== expected
      ? [{ path: ['metadata', 'name'], fn: 'ValidateCustomResourceDefinition', message: `must be spec.names.plural+"."+spec.group: ${expected}` }]
      : [];
  },
};

/** The kinds whose own validation is ported (beyond metadata, which every object gets). */
export const VALIDATED_KINDS: readonly string[] = Object.keys(RULES);

/**
 * Everything the API server's validation refuses in this built-in object (metadata for any object), in a cluster of
 * the given minor: a rule behind a feature gate follows that minor's defaults (feature-gates.ts).
 */
export function validateBuiltin(kind: string, object: Obj, kubernetesMinor = Number.NaN): Invalid[] {
  return [
    ...validateObjectMeta(kind, object.metadata, ['metadata']),
    ...(RULES[kind]?.(object, featuresAt(kubernetesMinor)) ?? []),
    ...kindSelectorProblems(kind, object),
  ];
}
