/**
 * The backup checks of backups/ (coverage, VolSync's schedules and mover pods, the backup jobs) bite on a broken copy
 * of the real repository; the jobs' own hygiene (what a backup job mounts, reads and runs as) is
 * backup-job-hygiene-checks.test.ts'.
 */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { backupsMutations } from '../mutations/backups.ts';
import { onBrokenCopy } from '../support/helpers.ts';
import { swap } from '../mutations/edits.ts';

const COPY = 'apps/media/components/offsite-copy/replicationsource.yaml';

describeMutations('backup checks (backups/) bite on a broken copy of the real repository', backupsMutations);

describe('backup-coverage reads a restic repository as restic parses its location', () => {
  // Each app's copy is judged on its render (the component's replacement writes its name into the path).
  const messages = async (text: string) =>
    (
      await onBrokenCopy('backup-coverage', swap(COPY, 'RESTIC_REPOSITORY: "{{ .repository }}/app-config"', `RESTIC_REPOSITORY: ${JSON.stringify(text)}`))
    ).failed.map((f) => f.message);
  const all = (found: string[], pattern: RegExp) => found.length > 0 && found.every((m) => pattern.test(m));

  it('fails a local directory and a backend restic does not have, and leaves a scheme the store brings alone', async () => {
    expect(all(await messages('local:/srv/restic/app-config'), /^the restic repository "local:.*" is a local directory to restic/)).toBe(true);
    expect(all(await messages('s4:backups/app-config'), /^the restic repository "s4:.*" names no backend restic has .*"invalid backend"/)).toBe(true);
    expect(await messages('s3:{{ .endpoint }}/app-config')).toEqual([]);
    expect(all(await messages('backups/app-config/{{ .repository }}'), /starts with "backups\/[a-z0-9-]+\/", which no backend's name does/)).toBe(true);
    expect(await messages('rest:https://backups.home.example.net/app-config')).toEqual([]);
  });
});
