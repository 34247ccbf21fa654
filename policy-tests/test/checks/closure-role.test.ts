/**
 * closure-role finds a binding's role where the authorizer does: a Role in the binding's own namespace only, a
 * ClusterRole anywhere the repository or Kubernetes' RBAC bootstrap makes one; and it does not guess about a
 * ClusterRole while some source was not rendered.
 */
import { describe, expect, it } from 'vitest';
import { roleClosureCheck } from '../../checks/closure/roles.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'RoleBinding')!;

const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleRef: { kind: string; name: string }): Resource =>
  ({
    ...template,
    kind,
    name,
    namespace: kind === 'RoleBinding' ? 'backups' : undefined,
    object: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name, ...(kind === 'RoleBinding' ? { namespace: 'backups' } : {}) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
      subjects: [{ kind: 'ServiceAccount', name: 'restore-test', namespace: 'backups' }],
    },
  }) as Resource;

const withBindings = (extra: Resource[]): Repo => ({ ...repo, resources: [...repo.resources, ...extra] });

describe('closure-role', () => {
  it('passes the real repository', () => {
    expect(runPolicy(repo, [roleClosureCheck])).toEqual([]);
  });

  it("finds a Role only in the binding's namespace, and a ClusterRole of the repository or of Kubernetes' bootstrap", () => {
    const extra = [
      binding('RoleBinding', 'other-namespace', { kind: 'Role', name: 'portfolio-status-writer' }),
      binding('RoleBinding', 'typo', { kind: 'Role', name: 'backup-sentinel-reder' }),
      binding('RoleBinding', 'cluster-role-here', { kind: 'ClusterRole', name: 'portfolio-status-writer' }),
      binding('ClusterRoleBinding', 'bootstrap', { kind: 'ClusterRole', name: 'system:auth-delegator' }),
      binding('ClusterRoleBinding', 'view', { kind: 'ClusterRole', name: 'view' }),
      binding('ClusterRoleBinding', 'missing', { kind: 'ClusterRole', name: 'portfolio-status-reader' }),
    ];
    expect(runPolicy(withBindings(extra), [roleClosureCheck]).map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^RoleBinding other-namespace grants Role backups\/portfolio-status-writer, which nothing in the repository provides in that namespace/,
      ),
      expect.stringMatching(/^RoleBinding typo grants Role backups\/backup-sentinel-reder, .*did you mean "backup-sentinel-reader"/),
      expect.stringMatching(/^ClusterRoleBinding missing grants ClusterRole portfolio-status-reader, .*did you mean "portfolio-status-writer"/),
    ]);
  });

  it('says a ClusterRole it cannot find is not judged while a source is not rendered', () => {
    const unrendered = [{ status: 'not-rendered', app: { name: 'some-chart' } }] as unknown as Parameters<typeof runPolicy>[2];
    const findings = runPolicy(
      withBindings([binding('ClusterRoleBinding', 'missing', { kind: 'ClusterRole', name: 'from-a-chart' })]),
      [roleClosureCheck],
      unrendered,
    );
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      ['not-judged', expect.stringMatching(/^ClusterRole from-a-chart is not in what the gate sees, and 1 source\(s\) were not rendered \(some-chart\)/)],
    ]);
  });
});
