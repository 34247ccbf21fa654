/**
 * What an entry of an AppProject's lists of kinds matches among the kinds the cluster serves, as Argo CD's
 * isResourceInList matches it (group and kind, each a filepath.Match pattern, case and all).
 */
import { describe, expect, it } from 'vitest';
import { entryMatch, servedKinds, type InstalledKinds } from '../../model/controller/served-kinds.ts';

const BUILTIN = new Map([
  ['/ResourceQuota', false],
  ['/LimitRange', false],
  ['/Namespace', true],
  ['/PersistentVolume', true],
  ['rbac.authorization.k8s.io/ClusterRole', true],
  ['rbac.authorization.k8s.io/Role', false],
]);

const installed = (kinds: string[], clusterScoped: [string, boolean][] = []): InstalledKinds => ({
  kinds: new Set(kinds),
  groups: new Set(kinds.map((k) => k.slice(0, k.lastIndexOf('/')))),
  clusterScoped: new Map(clusterScoped),
});

const keys = (m: ReturnType<typeof entryMatch>) => (m.judged ? m.kinds.map((k) => k.key) : 'not judged');

describe('an AppProject entry among the kinds the cluster serves', () => {
  it('matches a built-in kind by its group and kind, and a misspelt one to nothing, with the kind it likely meant', () => {
    expect(keys(entryMatch({ group: '', kind: 'ResourceQuota' }, servedKinds(BUILTIN, installed([]))))).toEqual(['/ResourceQuota']);
    const typo = entryMatch({ group: '', kind: 'ResuorceQuota' }, servedKinds(BUILTIN, installed([])));
    expect(typo).toEqual({ judged: true, kinds: [], near: 'ResourceQuota' });
    // filepath.Match is case-sensitive: Argo CD matches no resourcequota.
    expect(keys(entryMatch({ group: '', kind: 'resourcequota' }, servedKinds(BUILTIN, installed([]))))).toEqual([]);
  });

  it('matches patterns as filepath.Match does, each kind with its scope', () => {
    const m = entryMatch({ group: 'rbac.authorization.k8s.io', kind: '*Role' }, servedKinds(BUILTIN, installed([])));
    expect(m.judged && m.kinds).toEqual([
      { key: 'rbac.authorization.k8s.io/ClusterRole', clusterScoped: true },
      { key: 'rbac.authorization.k8s.io/Role', clusterScoped: false },
    ]);
    expect(keys(entryMatch({ group: '*', kind: 'Namespace' }, servedKinds(BUILTIN, installed([]))))).toEqual(['/Namespace']);
  });

  it("judges a custom kind by the CRDs the repository installs, with each CRD's scope", () => {
    const crds = installed(['cert-manager.io/ClusterIssuer', 'cert-manager.io/Issuer'], [['cert-manager.io/ClusterIssuer', true]]);
    const m = entryMatch({ group: 'cert-manager.io', kind: 'ClusterIssuer' }, servedKinds(BUILTIN, crds));
    expect(m.judged && m.kinds).toEqual([{ key: 'cert-manager.io/ClusterIssuer', clusterScoped: true }]);
    expect(entryMatch({ group: 'cert-manager.io', kind: 'ClusterIsuser' }, servedKinds(BUILTIN, crds))).toMatchObject({
      judged: true,
      kinds: [],
      near: 'ClusterIssuer',
    });
  });

  it('judges nothing of a group whose kinds are not all seen (its chart not rendered), nor of a group the cluster does not serve', () => {
    expect(entryMatch({ group: 'cert-manager.io', kind: 'ClusterIsuser' }, servedKinds(BUILTIN, installed(['cert-manager.io/*'])))).toEqual({ judged: false });
    expect(entryMatch({ group: 'kyverno.io', kind: 'ClusterPolicy' }, servedKinds(BUILTIN, installed([])))).toEqual({ judged: false });
    // A group pattern that reaches a group of unseen kinds judges nothing either.
    expect(entryMatch({ group: '*', kind: 'Nothing' }, servedKinds(BUILTIN, installed(['cert-manager.io/*'])))).toEqual({ judged: false });
  });
});
