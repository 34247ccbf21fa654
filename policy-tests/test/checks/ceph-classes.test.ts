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
