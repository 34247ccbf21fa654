/** backup-job-hygiene bites on a broken copy of the real repository, and reads BACKUP_DIR as the kubelet sets it. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { backupJobHygieneMutations, drillDirFrom } from '../mutations/backup-job-hygiene.ts';

describeMutations('backup checks (backup-job-hygiene.ts) bite on a broken copy of the real repository', backupJobHygieneMutations);

describe("a Secret whose keys are the store's (an ExternalSecret without a template)", () => {
  const untemplated = (file: string) => (c: RepoCopy) =>
    c.write(file, c.read(file).replace(/    template:\n      engineVersion: v2\n      data:\n(        .*\n|        # .*\n)+/, ''));
  it("leaves the backup jobs' restic environment not judged, never passed as met", async () => {
    const { failed, notJudged } = await onBrokenCopy('backup-job-hygiene', untemplated('apps/platform/backups/secrets.yaml'));
    expect(failed).toEqual([]);
    expect(notJudged).toContainEqual(
      expect.stringMatching(
        /^etcd-backup's command reads BACKUP_MANIFEST_KEY or BACKUP_MANIFEST_KEY_FILE, RESTIC_REPOSITORY, RESTIC_PASSWORD or RESTIC_PASSWORD_FILE, which only a Secret or ConfigMap whose keys the repository does not say may set/,
      ),
    );
  });
  it("leaves a VolSync copy's repository keys not judged", async () => {
    const COMPONENT = 'apps/media/components/offsite-copy/kustomization.yaml';
    const { failed, notJudged } = await onBrokenCopy('backup-coverage', (c) => {
      untemplated('apps/media/components/offsite-copy/replicationsource.yaml')(c);
      // The component's replacement of the template's path goes with the template.
      c.write(
        COMPONENT,
        c
          .read(COMPONENT)
          .replace(
            '      - select: { kind: ExternalSecret, name: app-config-restic }\n        fieldPaths: [spec.target.template.data.RESTIC_REPOSITORY]\n        options: { delimiter: "/", index: 1 }\n',
            '',
          ),
      );
    });
    expect(failed).toEqual([]);
    expect(notJudged).toContainEqual(
      expect.stringMatching(
        /^the restic repository Secret sonarr-config-restic's keys are the store's .*: whether it holds RESTIC_REPOSITORY and RESTIC_PASSWORD is not judged \(rendered by media-sonarr from kustomize apps\/media\/sonarr\)$/,
      ),
    );
  });
});

describe('backup-job-hygiene reads BACKUP_DIR as the kubelet sets it', () => {
  it('takes it from a ConfigMap the job names in envFrom, a volume mounted there', async () => {
    expect((await onBrokenCopy('backup-job-hygiene', drillDirFrom('/backups'))).failed).toEqual([]);
  });
});
