/** The platform checks of a sync's order and health bite on a broken copy of the real repository; the network policies': network-policy-checks.test.ts; the closure's (closure/): closure-checks.test.ts. */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { onBrokenCopy } from '../support/helpers.ts';
import { API } from '../mutations/edits.ts';
import { syncHealthMutations } from '../mutations/sync-health.ts';
import { syncOrderMutations } from '../mutations/sync-order.ts';

describeMutations('platform checks (sync-order.ts) bite on a broken copy of the real repository', syncOrderMutations);
describeMutations('platform checks (sync-health.ts) bite on a broken copy of the real repository', syncHealthMutations);

describe('what Argo CD waits for in a sync, judged no further than it waits', () => {
  it('main, its default class made WaitForFirstConsumer, has every claim mounted by a pod of its own wave', async () => {
    const { failed } = await onBrokenCopy('sync-first-consumer', (copy) =>
      copy.write(
        'apps/platform/rook-ceph-cluster/classes.yaml',
        copy.read('apps/platform/rook-ceph-cluster/classes.yaml').replace('volumeBindingMode: Immediate', 'volumeBindingMode: WaitForFirstConsumer'),
      ),
    );
    expect(failed).toEqual([]);
  });

  it('a claim of a class the repository does not hold is said not judged: its binding mode is not read', async () => {
    const { failed, notJudged } = await onBrokenCopy('sync-first-consumer', (copy) =>
      copy.write('apps/media/sonarr/pvc.yaml', copy.read('apps/media/sonarr/pvc.yaml').replace('storageClassName: ceph-block', 'storageClassName: local-path')),
    );
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([
      expect.stringMatching(/^StorageClass local-path is not in the repository: whether it binds PersistentVolumeClaim sonarr-config at its first consumer/),
    ]);
  });

  it('a paused Deployment under a custom apps_Deployment health script is said not judged, not failed', async () => {
    const { failed, notJudged } = await onBrokenCopy('sync-suspended', (copy) => {
      copy.edit('apps/platform/argocd/patches/argocd-cm.yaml', 0, (d) =>
        d.setIn(['data', 'resource.customizations.health.apps_Deployment'], 'hs = {}\nhs.status = "Healthy"\nreturn hs\n'),
      );
      copy.edit(API, 0, (d) => d.setIn(['spec', 'paused'], true));
    });
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([
      expect.stringMatching(/^argocd-cm gives Deployment a health check of its own: whether Argo CD's sync waits on portfolio-api is that script's to say/),
    ]);
  });
});
