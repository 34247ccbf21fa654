/**
 * The API server's RBAC authorizer (kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go, with
 * pkg/apis/rbac/v1/evaluation_helpers.go), over the Roles, ClusterRoles and bindings the repository applies. A request
 * is allowed by a rule of a role bound to the user: ClusterRoleBindings anywhere, RoleBindings in the request's
 * namespace. What the repository cannot tell (a role it does not declare, bound to the user: Kubernetes' own admin,
 * edit and view, or one made outside git) makes a refusal "unknown", never "denied". The built-in cluster-admin is
 * known: every verb on everything; and so are the roles every authenticated user holds through the bootstrap's own
 * bindings (system:discovery, system:public-info-viewer, system:basic-user: bootstrappolicy/policy.go), which let a
 * client discover the API and read its version. A non-resource request (`/version`, `/api`) is judged by the rules'
 * nonResourceURLs, as NonResourceURLMatches reads them: the path itself, or a prefix written with a trailing `*`.
 */
import { dig, isMap, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import { requestInfo } from './request-info.ts';

/** Who asks: a user name and its groups (a ServiceAccount: system:serviceaccount:<ns>:<name>, and its groups). */
export interface UserInfo {
  name: string;
  groups: readonly string[];
}

/** A resource request as the authorizer sees it; `name` is empty on a create. */
export interface ResourceRequest {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace: string;
  name: string;
}

/** A request for a path outside the API's resources (discovery, `/version`, `/healthz`); its verb the HTTP method in lower case. */
export interface NonResourceRequest {
  verb: string;
  path: string;
}

export type Decision = 'allowed' | 'denied' | 'unknown';

interface Rule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs?: string[];
}

interface Binding {
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  subjects: Obj[];
  roleRef: { kind: string; name: string };
}

/** The user a ServiceAccount authenticates as (serviceaccount.UserInfo): its name and the groups every ServiceAccount has. */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

function rulesOf(object: Obj): Rule[] {
  return (Array.isArray(object.rules) ? object.rules : []).filter(isMap).map((r) => ({
    verbs: strings(r.verbs),
    apiGroups: strings(r.apiGroups),
    resources: strings(r.resources),
    resourceNames: strings(r.resourceNames),
    nonResourceURLs: strings(r.nonResourceURLs),
  }));
}

// ResourceMatches: a star, the resource (with its subresource: pods/status), or a star over the subresource (*/status).
function resourceMatches(rule: Rule, { resource, subresource }: ResourceRequest): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return rule.resources.some((r) => r === '*' || r === combined || (subresource !== undefined && r === `*/${subresource}`));
}

/** RuleAllows: the verb, the group, the resource and (where the rule names any) the object's name all match. */
function ruleAllows(rule: Rule, request: ResourceRequest): boolean {
  const verb = rule.verbs.includes('*') || rule.verbs.includes(request.verb);
  const group = rule.apiGroups.includes('*') || rule.apiGroups.includes(request.group);
  const resource = resourceMatches(rule, request);
  const name = rule.resourceNames.length === 0 || rule.resourceNames.includes(request.name);
  return verb && group && resource && name;
}

/** NonResourceURLMatches: `*`, the path itself, or a prefix written with a trailing `*`; with the verb (or `*`). */
function nonResourceRuleAllows(rule: Rule, { verb, path }: NonResourceRequest): boolean {
  const url = (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
  return url && (rule.verbs.includes('*') || rule.verbs.includes(verb));
}

const isResourceRequest = (request: ResourceRequest | NonResourceRequest): request is ResourceRequest => 'resource' in request;

/** appliesToUser: a User by name, a Group the user is in, a ServiceAccount (its namespace, else the binding's) by its user name. */
function appliesTo(user: UserInfo, subject: Obj, bindingNamespace: string): boolean {
  const name = typeof subject.name === 'string' ? subject.name : '';
  if (subject.kind === 'User') return user.name === name;
  if (subject.kind === 'Group') return user.groups.includes(name);
  if (subject.kind === 'ServiceAccount') {
    const namespace = typeof subject.namespace === 'string' && subject.namespace !== '' ? subject.namespace : bindingNamespace;
    return user.name === `system:serviceaccount:${namespace}:${name}`;
  }
  return false;
}

/** A role's rules; `complete` false where more may be aggregated into it than the repository declares. */
interface KnownRole {
  rules: Rule[];
  complete: boolean;
}

/** The roles the repository applies, by `Role/<namespace>/<name>` and `ClusterRole/<name>`; undefined where it does not declare the role. */
function roleIndex(resources: readonly Resource[]): (kind: string, namespace: string, name: string) => KnownRole | undefined {
  const clusterRoles = resources.filter((r) => r.kind === 'ClusterRole');
  const byKey = new Map<string, KnownRole>();
  for (const r of resources) {
    if (r.kind === 'Role') byKey.set(`Role/${r.namespace ?? ''}/${r.name}`, { rules: rulesOf(r.object), complete: true });
    if (r.kind !== 'ClusterRole') continue;
    // An aggregated role holds the rules of every ClusterRole its selectors match (the controller writes them in),
    // Kubernetes' own roles among them, which the repository does not hold.
    const selectors = dig(r.object, ['aggregationRule', 'clusterRoleSelectors']);
    const aggregated = Array.isArray(selectors)
      ? clusterRoles
          .filter((c) => c !== r && selectors.filter(isMap).some((s) => selectorMatches(s, dig(c.object, ['metadata', 'labels']) as Obj | undefined)))
          .flatMap((c) => rulesOf(c.object))
      : undefined;
    byKey.set(`ClusterRole/${r.name}`, aggregated ? { rules: aggregated, complete: false } : { rules: rulesOf(r.object), complete: true });
  }
  for (const [name, rules] of Object.entries(BOOTSTRAP_ROLES)) byKey.set(`ClusterRole/${name}`, { rules, complete: true });
  return (kind, namespace, name) => byKey.get(kind === 'Role' ? `Role/${namespace}/${name}` : `ClusterRole/${name}`);
}

const rule = (verbs: string[], fields: Partial<Rule>): Rule => ({ verbs, apiGroups: [], resources: [], resourceNames: [], ...fields });

/** The bootstrap's roles the authorizer knows the rules of (bootstrappolicy/policy.go, Kubernetes 1.36). */
const BOOTSTRAP_ROLES: Readonly<Record<string, Rule[]>> = {
  'cluster-admin': [rule(['*'], { apiGroups: ['*'], resources: ['*'] }), rule(['*'], { nonResourceURLs: ['*'] })],
  'system:discovery': [
    rule(['get'], {
      nonResourceURLs: ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'],
    }),
  ],
  'system:public-info-viewer': [rule(['get'], { nonResourceURLs: ['/livez', '/readyz', '/healthz', '/version', '/version/'] })],
  'system:basic-user': [
    rule(['create'], { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] }),
    rule(['create'], { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] }),
  ],
};

/** The bootstrap's bindings of those roles to every authenticated user (ClusterRoleBindings(), the same release). */
const BOOTSTRAP_BINDINGS: readonly Binding[] = ['system:discovery', 'system:public-info-viewer', 'system:basic-user'].map((name) => ({
  namespace: '',
  subjects: [{ kind: 'Group', name: 'system:authenticated' }],
  roleRef: { kind: 'ClusterRole', name },
}));

function bindingsOf(resources: readonly Resource[]): Binding[] {
  return [
    ...BOOTSTRAP_BINDINGS,
    ...resources.flatMap((r) => {
      if (r.kind !== 'RoleBinding' && r.kind !== 'ClusterRoleBinding') return [];
      const roleRef = (isMap(r.object.roleRef) ? r.object.roleRef : {}) as Obj;
      return [
        {
          namespace: r.kind === 'RoleBinding' ? (r.namespace ?? '') : '',
          subjects: (Array.isArray(r.object.subjects) ? r.object.subjects : []).filter(isMap),
          roleRef: { kind: typeof roleRef.kind === 'string' ? roleRef.kind : '', name: typeof roleRef.name === 'string' ? roleRef.name : '' },
        },
      ];
    }),
  ];
}

/**
 * An authorizer over the repository's RBAC: allowed when a rule of a role bound to the user allows the request;
 * unknown when it does not, but a role bound to the user is not in the repository (its rules may); else denied.
 */
export function rbacAuthorizer(resources: readonly Resource[]): (user: UserInfo, request: ResourceRequest | NonResourceRequest) => Decision {
  const roles = roleIndex(resources);
  const bindings = bindingsOf(resources);
  return (user, request) => {
    let unknown = false;
    const resourceRequest = isResourceRequest(request);
    const allows = (r: Rule) => (resourceRequest ? ruleAllows(r, request) : nonResourceRuleAllows(r, request));
    for (const b of bindings) {
      // A RoleBinding grants only in its own namespace (and never a non-resource path); a ClusterRoleBinding everywhere.
      if (b.namespace !== '' && (!resourceRequest || b.namespace !== request.namespace)) continue;
      if (!b.subjects.some((s) => appliesTo(user, s, b.namespace))) continue;
      const role = roles(b.roleRef.kind, b.namespace, b.roleRef.name);
      if (role?.rules.some(allows)) return 'allowed';
      if (!role?.complete) unknown = true;
    }
    return unknown ? 'unknown' : 'denied';
  };
}

/** What the authorizer is asked of a method and a URL, as RequestInfo reads the path (request-info.ts). */
export function authorizerRequest(method: string, url: string): ResourceRequest | NonResourceRequest {
  const info = requestInfo(method, url);
  if (!info.isResourceRequest) return { verb: info.verb, path: info.path };
  return {
    verb: info.verb,
    group: info.apiGroup,
    resource: info.resource,
    namespace: info.namespace,
    name: info.name,
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

/** The API server's words for a refusal (responsewriters.forbiddenMessage, wrapped by errors.NewForbidden). */
export function forbiddenMessage(user: string, q: ResourceRequest | NonResourceRequest): string {
  if (!isResourceRequest(q)) return `forbidden: User "${user}" cannot ${q.verb} path "${q.path}"`;
  const resource = q.subresource ? `${q.resource}/${q.subresource}` : q.resource;
  const scope = q.namespace ? `in the namespace "${q.namespace}"` : 'at the cluster scope';
  const groupResource = q.group ? `${q.resource}.${q.group}` : q.resource;
  return `${groupResource}${q.name ? ` "${q.name}"` : ''} is forbidden: User "${user}" cannot ${q.verb} resource "${resource}" in API group "${q.group}" ${scope}`;
}
