/** closure-ceph-class and closure-csi-driver on a broken copy of the real repository: Ceph classes naming what Rook does not run. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import { cephClassMutations, csiDriverMutations } from '../mutations/ceph-classes.ts';

describeMutations('closure-ceph-class bites on a broken copy of the real repository', cephClassMutations);
describeMutations('closure-csi-driver bites on a broken copy of the real repository', csiDriverMutations);

describe('closure-csi-driver offline', () => {
  it('says not judged of a driver that is no Ceph one while a source was not rendered', async () => {
    const result = await onBrokenCopy(
      'closure-csi-driver',
      swap('apps/platform/rook-ceph-cluster/classes.yaml', 'driver: rook-ceph.rbd.csi.ceph.com\n', 'driver: x\n'),
    );
    expect(result.failed).toEqual([]);
    expect(result.notJudged).toEqual([
      expect.stringMatching(/^VolumeSnapshotClass ceph-block's driver x is no CSIDriver of the repository; \d+ source\(s\) were not rendered/),
    ]);
  });
});

describe("closure-ceph-class: the block class's image features, as ceph-csi reads them", () => {
  const withFeatures = async (parameters: Record<string, unknown>) => {
    const { loadRepo, REPO_ROOT } = await import('../../model/repository/repo.ts');
    const { runPolicy } = await import('../../model/checks/runner.ts');
    const { cephClassCheck } = await import('../../checks/closure/ceph-classes.ts');
    const repo = await loadRepo(REPO_ROOT);
    const resources = repo.resources.map((r) =>
      r.kind === 'StorageClass' && r.name === 'ceph-block'
        ? { ...r, object: { ...r.object, parameters: { ...(r.object.parameters as object), ...parameters } } }
        : r,
    );
    return runPolicy({ ...repo, resources }, [cephClassCheck]).map((f) => f.message.replace(/^StorageClass ceph-block's imageFeatures "[^"]*": /, ''));
  };

  it('takes the features ceph-csi knows with those they need, and journaling with the rbd-nbd mounter alone', async () => {
    expect(await withFeatures({ imageFeatures: 'layering,exclusive-lock,object-map,fast-diff,deep-flatten' })).toEqual([]);
    expect(await withFeatures({ imageFeatures: 'layering,exclusive-lock,journaling', mounter: 'rbd-nbd' })).toEqual([]);
    expect(await withFeatures({ imageFeatures: 'layering,fast-diff' })).toEqual([
      'ceph-csi refuses to make a volume of it ("feature fast-diff requires object-map to be set"), and every claim of it stays Pending',
    ]);
    expect(await withFeatures({ imageFeatures: '' })).toEqual([
      'ceph-csi refuses to make a volume of it ("empty imageFeatures parameter"), and every claim of it stays Pending',
    ]);
    expect(await withFeatures({ imageFeatures: 'layring' })).toEqual([
      expect.stringMatching(/^ceph-csi refuses to make a volume of it \("invalid feature layring"\) \(did you mean "layering"\?\), and/),
    ]);
  });
});
