/**
 * closure-volume holds a claim that names its volume to what the binder asks of the pair: the volume exists, is
 * reserved for no other claim, and matches the claim's class (the default one for a claim that names none), access
 * modes, volume mode and size; a volume the cluster has outside git is left alone.
 */
import { describe, expect, it } from 'vitest';
import { volumeClosureCheck } from '../../checks/closure/claims.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'PersistentVolumeClaim')!;

const claim = (name: string, spec: object): Resource =>
  ({
    ...template,
    name,
    namespace: 'media',
    object: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'media' }, spec },
  }) as Resource;
const volume = (name: string, spec: object): Resource =>
  ({
    ...template,
    kind: 'PersistentVolume',
    name,
    namespace: undefined,
    object: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec },
  }) as Resource;

const NAS = { capacity: { storage: '1Ti' }, accessModes: ['ReadWriteMany'], storageClassName: '', nfs: { server: 'nas.lan', path: '/x' } };
const ASK = { accessModes: ['ReadWriteMany'], storageClassName: '', resources: { requests: { storage: '1Ti' } } };

const messages = (extra: Resource[], outside: string[] = []): string[] => {
  const facts = {
    ...repo.facts!,
    providedOutsideGit: [...repo.facts!.providedOutsideGit, ...outside.map((name) => ({ kind: 'PersistentVolume', name, reason: 'test' }))],
  };
  return runPolicy({ ...repo, facts, resources: [...repo.resources, ...extra] } as Repo, [volumeClosureCheck]).map((f) => f.message);
};

describe('closure-volume', () => {
  it('passes the real repository', () => {
    expect(messages([])).toEqual([]);
  });

  it('names each way a pre-bound pair cannot bind', () => {
    const extra = [
      volume('ok', NAS),
      claim('ok', { ...ASK, volumeName: 'ok' }),
      volume('block', { ...NAS, volumeMode: 'Block' }),
      claim('wants-files', { ...ASK, volumeName: 'block' }),
      volume('read-only', { ...NAS, accessModes: ['ReadOnlyMany'] }),
      claim('wants-writes', { ...ASK, volumeName: 'read-only' }),
      volume('small', { ...NAS, capacity: { storage: '500Gi' } }),
      claim('too-big', { ...ASK, volumeName: 'small' }),
      claim('nowhere', { ...ASK, volumeName: 'no-such-volume' }),
      claim('outside', { ...ASK, volumeName: 'made-by-hand' }),
    ];
    expect(messages(extra, ['made-by-hand'])).toEqual([
      expect.stringMatching(/^PersistentVolumeClaim wants-files binds to PersistentVolume block, but its volumeMode is Block and the claim's is Filesystem/),
      expect.stringMatching(
        /^PersistentVolumeClaim wants-writes binds to PersistentVolume read-only, but it does not offer ReadWriteMany \(it offers ReadOnlyMany\)/,
      ),
      expect.stringMatching(/^PersistentVolumeClaim too-big binds to PersistentVolume small, but its capacity 500Gi is less than the 1Ti the claim requests/),
      'PersistentVolumeClaim nowhere binds to PersistentVolume no-such-volume, which nothing in the repository provides: the claim stays Pending',
    ]);
  });

  it('reads the default class by either annotation admission reads, the beta one too (storageutil.IsDefaultAnnotation)', () => {
    const STABLE = 'storageclass.kubernetes.io/is-default-class';
    const BETA = 'storageclass.beta.kubernetes.io/is-default-class';
    // The repository's default class marked by the beta annotation alone.
    const resources = repo.resources.map((r) => {
      const annotations = (r.object.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
      if (r.kind !== 'StorageClass' || annotations?.[STABLE] !== 'true') return r;
      const { [STABLE]: _, ...rest } = annotations;
      return { ...r, object: { ...r.object, metadata: { ...(r.object.metadata as object), annotations: { ...rest, [BETA]: 'true' } } } } as Resource;
    });
    expect(resources).not.toEqual(repo.resources);
    const { storageClassName: _, ...namesNone } = ASK;
    const findings = runPolicy({ ...repo, resources: [...resources, volume('nas', NAS), claim('named-none', { ...namesNone, volumeName: 'nas' })] } as Repo, [
      volumeClosureCheck,
    ]).map((f) => f.message);
    expect(findings).toEqual([
      expect.stringMatching(
        /^PersistentVolumeClaim named-none binds to PersistentVolume nas, but its class is "" and the claim's is "[a-z-]+" \(the default class/,
      ),
    ]);
  });

  it('holds a StatefulSet\'s claim template of no class to the default class, and says a default annotation that is not "true"', () => {
    const STABLE = 'storageclass.kubernetes.io/is-default-class';
    const statefulSet = {
      ...template,
      kind: 'StatefulSet',
      name: 'loki',
      namespace: 'monitoring',
      object: {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'loki', namespace: 'monitoring' },
        spec: {
          volumeClaimTemplates: [{ metadata: { name: 'storage' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '50Gi' } } } }],
        },
      },
    } as Resource;
    expect(messages([statefulSet])).toEqual([]);
    const misspelt = repo.resources.map((r) => {
      const annotations = (r.object.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
      if (r.kind !== 'StorageClass' || annotations?.[STABLE] !== 'true') return r;
      return { ...r, object: { ...r.object, metadata: { ...(r.object.metadata as object), annotations: { ...annotations, [STABLE]: 'ture' } } } } as Resource;
    });
    expect(runPolicy({ ...repo, resources: [...misspelt, statefulSet] } as Repo, [volumeClosureCheck]).map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^StatefulSet loki's claim template storage names no class, and no StorageClass is the default \(StorageClass [a-z-]+'s default annotation is "ture": admission reads "true" alone\) and no volume .* Pending, and each pod of the StatefulSet with it$/,
      ),
    ]);
  });
});
