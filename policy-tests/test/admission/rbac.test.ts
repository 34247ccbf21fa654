/**
 * The RBAC authorizer the impersonated sync is judged by, held to Kubernetes' own cases (kubernetes
 * plugin/pkg/auth/authorizer/rbac/rbac_test.go, TestAuthorizer's resource cases and TestRuleMatches' resource rules),
 * and to what only the repository's view adds: a role it does not declare is unknown, never denied.
 */
import { describe, expect, it } from 'vitest';
import { rbacAuthorizer, serviceAccountUser, type ResourceRequest, type UserInfo } from '../../admission/authorization/rbac.ts';
import type { Resource } from '../../model/core/manifest.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';
const object = (kind: string, name: string, namespace: string | undefined, body: Record<string, unknown>): Resource =>
  ({ apiVersion: RBAC, kind, name, namespace, object: { apiVersion: RBAC, kind, metadata: { name, namespace }, ...body } }) as unknown as Resource;
const rule = (verbs: string, apiGroups: string, resources: string, resourceNames?: string) => ({
  verbs: verbs.split(','),
  apiGroups: apiGroups.split(','),
  resources: resources.split(','),
  ...(resourceNames ? { resourceNames: resourceNames.split(',') } : {}),
});
const subjects = (...list: string[]) =>
  list.map((s) => {
    const [kind, name, namespace] = s.split(':');
    return { kind, name, ...(namespace ? { namespace } : {}) };
  });
const clusterRole = (name: string, ...rules: object[]) => object('ClusterRole', name, undefined, { rules });
const role = (namespace: string, name: string, ...rules: object[]) => object('Role', name, namespace, { rules });
const roleBinding = (namespace: string, kind: 'Role' | 'ClusterRole', roleName: string, ...who: string[]) =>
  object('RoleBinding', `${roleName}-binding`, namespace, {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
    subjects: subjects(...who),
  });
const clusterRoleBinding = (roleName: string, ...who: string[]) =>
  object('ClusterRoleBinding', `${roleName}-binding`, undefined, {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
    subjects: subjects(...who),
  });
const user = (name: string, groups = ''): UserInfo => ({ name, groups: groups ? groups.split(',') : [] });
const request = (verb: string, resource: string, namespace: string, group = ''): ResourceRequest => ({ verb, group, resource, namespace, name: '' });

describe("the RBAC authorizer, on Kubernetes' own cases", () => {
  it('TestAuthorizer: a ClusterRole bound in one namespace grants there only, to the user and to its groups', () => {
    const authorize = rbacAuthorizer([clusterRole('admin', rule('*', '*', '*')), roleBinding('ns1', 'ClusterRole', 'admin', 'User:admin', 'Group:admins')]);
    for (const [u, verb, resource] of [
      [user('admin'), 'get', 'Pods'],
      [user('admin'), 'watch', 'Pods'],
      [user('admin', 'group1'), 'watch', 'Foobar'],
      [user('joe', 'admins'), 'watch', 'Foobar'],
      [user('joe', 'group1,admins'), 'watch', 'Foobar'],
    ] as const)
      expect(authorize(u, request(verb, resource, 'ns1'))).toBe('allowed');
    for (const [u, resource, namespace] of [
      [user('admin'), 'Pods', 'ns2'],
      [user('admin'), 'Nodes', ''],
      [user('admin', 'admins'), 'Pods', 'ns2'],
      [user('admin', 'admins'), 'Nodes', ''],
    ] as const)
      expect(authorize(u, request('GET', resource, namespace))).toBe('denied');
  });

  it('TestAuthorizer: a rule on a resource grants none of its subresources, and one on a subresource none of the resource', () => {
    const on = (resources: string) =>
      rbacAuthorizer([clusterRole('admin', rule('*', '*', resources)), roleBinding('ns1', 'ClusterRole', 'admin', 'User:admin')]);
    expect(on('pods')(user('admin'), request('get', 'pods', 'ns1'))).toBe('allowed');
    expect(on('pods')(user('admin'), { ...request('get', 'pods', 'ns1'), subresource: 'status' })).toBe('denied');
    expect(on('pods/status')(user('admin'), { ...request('get', 'pods', 'ns1'), subresource: 'status' })).toBe('allowed');
    expect(on('pods/status')(user('admin'), request('get', 'pods', 'ns1'))).toBe('denied');
  });

  it("TestRuleMatches: a star verb, group or resource, and a rule's lists expanded", () => {
    const grants = (r: object, verb: string, group: string, resource: string) =>
      rbacAuthorizer([clusterRole('r', r), clusterRoleBinding('r', 'User:u')])(user('u'), request(verb, resource, 'ns', group));
    expect(grants(rule('*', 'group1', 'resource1'), 'verb2', 'group1', 'resource1')).toBe('allowed');
    expect(grants(rule('*', 'group1', 'resource1'), 'verb1', 'group2', 'resource1')).toBe('denied');
    expect(grants(rule('verb1', '*', 'resource1'), 'verb1', 'group2', 'resource1')).toBe('allowed');
    expect(grants(rule('verb1', '*', 'resource1'), 'verb1', 'group1', 'resource2')).toBe('denied');
    expect(grants(rule('verb1', 'group1', '*'), 'verb1', 'group1', 'resource2')).toBe('allowed');
    expect(grants(rule('verb1', 'group1', '*'), 'verb2', 'group1', 'resource1')).toBe('denied');
    for (const verb of ['verb1', 'verb2'])
      for (const group of ['group1', 'group2'])
        for (const resource of ['resource1', 'resource2'])
          expect(grants(rule('verb1,verb2', 'group1,group2', 'resource1,resource2'), verb, group, resource)).toBe('allowed');
  });
});

describe('what only the repository can tell', () => {
  const sa = serviceAccountUser('argocd', 'sync');

  it('finds a ServiceAccount by its user name, its namespace defaulting to the binding’s, and by the groups every account has', () => {
    const allow = (binding: Resource) =>
      rbacAuthorizer([role('apps', 'writer', rule('get,create,patch', 'apps', 'deployments')), binding])(sa, request('create', 'deployments', 'apps', 'apps'));
    expect(allow(roleBinding('apps', 'Role', 'writer', 'ServiceAccount:sync:argocd'))).toBe('allowed');
    expect(allow(roleBinding('apps', 'Role', 'writer', 'ServiceAccount:sync'))).toBe('denied');
    const toGroup = (group: string) =>
      rbacAuthorizer([
        role('apps', 'writer', rule('create', 'apps', 'deployments')),
        object('RoleBinding', 'accounts', 'apps', { roleRef: { kind: 'Role', name: 'writer' }, subjects: [{ kind: 'Group', name: group }] }),
      ])(sa, request('create', 'deployments', 'apps', 'apps'));
    expect(toGroup('system:serviceaccounts:argocd')).toBe('allowed');
    expect(toGroup('system:serviceaccounts')).toBe('allowed');
    expect(toGroup('system:serviceaccounts:media')).toBe('denied');
  });

  it('grants a named object only to a request that names it: never a create', () => {
    const authorize = rbacAuthorizer([
      role('apps', 'one', rule('get,create,patch', '', 'configmaps', 'settings')),
      roleBinding('apps', 'Role', 'one', 'ServiceAccount:sync:argocd'),
    ]);
    expect(authorize(sa, { ...request('patch', 'configmaps', 'apps'), name: 'settings' })).toBe('allowed');
    expect(authorize(sa, { ...request('patch', 'configmaps', 'apps'), name: 'other' })).toBe('denied');
    expect(authorize(sa, request('create', 'configmaps', 'apps'))).toBe('denied');
  });

  it("knows cluster-admin, reads an aggregated role's parts, and calls a role it does not hold unknown", () => {
    expect(rbacAuthorizer([clusterRoleBinding('cluster-admin', 'ServiceAccount:sync:argocd')])(sa, request('delete', 'nodes', ''))).toBe('allowed');
    expect(rbacAuthorizer([roleBinding('apps', 'ClusterRole', 'edit', 'ServiceAccount:sync:argocd')])(sa, request('create', 'secrets', 'apps'))).toBe(
      'unknown',
    );
    const part = object('ClusterRole', 'part', undefined, {
      metadata: { name: 'part', labels: { 'sync/part': 'true' } },
      rules: [rule('create', '', 'configmaps')],
    });
    const whole = object('ClusterRole', 'whole', undefined, {
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'sync/part': 'true' } }] },
      rules: [],
    });
    const authorize = rbacAuthorizer([part, whole, clusterRoleBinding('whole', 'ServiceAccount:sync:argocd')]);
    expect(authorize(sa, request('create', 'configmaps', 'apps'))).toBe('allowed');
    // Kubernetes' own roles may be aggregated into it too: what its parts here do not grant is not known.
    expect(authorize(sa, request('create', 'secrets', 'apps'))).toBe('unknown');
  });
});

describe('the RBAC authorizer on a path outside the API resources', () => {
  const sa = serviceAccountUser('backups', 'etcd-backup');
  const get = (path: string) => ({ verb: 'get', path });

  it("lets every authenticated user discover the API and read its version, as the bootstrap's bindings do, and nothing more", () => {
    const authorize = rbacAuthorizer([]);
    for (const path of ['/api', '/apis', '/api/v1', '/apis/apps/v1', '/openapi/v3', '/openapi/v3/api/v1', '/version', '/healthz', '/readyz'])
      expect(authorize(sa, get(path)), path).toBe('allowed');
    expect(authorize(sa, get('/metrics'))).toBe('denied');
    expect(authorize(sa, { verb: 'post', path: '/api' })).toBe('denied');
    // An unauthenticated user is in none of those groups.
    expect(authorize(user('system:anonymous', 'system:unauthenticated'), get('/api'))).toBe('denied');
    expect(authorize(sa, { verb: 'create', group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews', namespace: '', name: '' })).toBe('allowed');
  });

  it('NonResourceURLMatches: a star, the path itself, or a prefix written with a trailing star; never through a RoleBinding', () => {
    const nonResource = (urls: string) => ({ verbs: ['get'], nonResourceURLs: urls.split(',') });
    const authorize = rbacAuthorizer([
      clusterRole('metrics', nonResource('/metrics')),
      clusterRole('logs', nonResource('/logs/*')),
      clusterRoleBinding('metrics', 'User:alice'),
      clusterRoleBinding('logs', 'User:alice'),
      clusterRole('all', nonResource('*')),
      roleBinding('ns1', 'ClusterRole', 'all', 'User:bob'),
    ]);
    expect(authorize(user('alice'), get('/metrics'))).toBe('allowed');
    expect(authorize(user('alice'), get('/metrics/cadvisor'))).toBe('denied');
    expect(authorize(user('alice'), get('/logs/'))).toBe('allowed');
    expect(authorize(user('alice'), get('/logs/kube-apiserver.log'))).toBe('allowed');
    expect(authorize(user('alice'), get('/logs'))).toBe('denied');
    expect(authorize(user('bob'), get('/metrics'))).toBe('denied');
  });
});
