/**
 * sync-first-consumer where the claim's only consumer runs at a schedule: Sonarr scaled to zero leaves its claim to
 * the backup CronJob, so a claim that waits for its first consumer stays Pending until the CronJob fires. The same
 * copy is closure-service's too (Sonarr's Service then has no endpoints), so it is a test of its own rather than a
 * mutation, which breaks exactly one check.
 */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { swap } from '../mutations/edits.ts';

const scaledToZero = (c: Parameters<ReturnType<typeof swap>>[0]) => {
  swap('apps/platform/rook-ceph-cluster/classes.yaml', 'volumeBindingMode: Immediate', 'volumeBindingMode: WaitForFirstConsumer')(c);
  swap('apps/media/sonarr/deployment.yaml', 'replicas: 1', 'replicas: 0')(c);
};

describe('sync-first-consumer: a claim only a CronJob mounts', () => {
  it("waits for the CronJob's schedule, and the scaled-down app's Service has no endpoints", async () => {
    const { failed } = await onBrokenCopy(['sync-first-consumer', 'closure-service'], scaledToZero);
    expect(failed.filter((f) => f.check === 'sync-first-consumer').map((f) => `${f.file}:${f.line}`)).toEqual(['apps/media/sonarr/pvc.yaml:8']);
    expect(failed.find((f) => f.check === 'sync-first-consumer')?.message).toMatch(
      /only Deployment sonarr, CronJob sonarr-db-backup mount it, whose pods come at a schedule or not at all/,
    );
    expect(failed.some((f) => f.check === 'closure-service' && /scaled to 0 replicas/.test(f.message))).toBe(true);
  });
});
