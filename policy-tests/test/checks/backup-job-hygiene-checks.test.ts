/** backup-job-hygiene bites on a broken copy of the real repository, and reads BACKUP_DIR as the kubelet sets it. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { backupJobHygieneMutations, drillDirFrom } from '../mutations/backup-job-hygiene.ts';

describeMutations('backup checks (backup-job-hygiene.ts) bite on a broken copy of the real repository', backupJobHygieneMutations);

describe('backup-job-hygiene reads BACKUP_DIR as the kubelet sets it', () => {
  it('takes it from a ConfigMap the job names in envFrom, a volume mounted there', async () => {
    expect((await onBrokenCopy('backup-job-hygiene', drillDirFrom('/backups'))).failed).toEqual([]);
  });
});
