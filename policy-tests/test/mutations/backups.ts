/** Broken copies of the real repository for the checks of policy-tests/checks/backups/backups.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { lineOf } from '../support/helpers.ts';
import { COPY_COMPONENT, swap, DB_BACKUP_COMPONENT, SONARR_TARGET, patchJob, inComponent, DRILL, STRAY, lineIn, withoutEntry } from './edits.ts';

export const backupsMutations: Mutation[] = [
  {
    check: 'backup-coverage',
    why: "the off-site copy component's replacement of the repository path selects a Secret's writer by a misspelt name: every app's copy goes to the template's one path, and a restore takes another app's newest snapshot",
    mutate: swap(
      'apps/media/components/offsite-copy/kustomization.yaml',
      '      - select: { kind: ExternalSecret, name: app-config-restic }\n        fieldPaths: [spec.target.template.data.RESTIC_REPOSITORY]',
      '      - select: { kind: ExternalSecret, name: app-config-restik }\n        fieldPaths: [spec.target.template.data.RESTIC_REPOSITORY]',
    ),
    at: (c) => ({ file: COPY_COMPONENT, line: lineOf(c, COPY_COMPONENT, 'RESTIC_REPOSITORY:') }),
  },
  {
    check: 'backup-coverage',
    why: "the off-site copy component paused (spec.paused: true): VolSync starts no mover, and no app's config volume is copied off-site",
    mutate: swap('apps/media/components/offsite-copy/replicationsource.yaml', '  sourcePVC: app-config\n', '  paused: true\n  sourcePVC: app-config\n'),
    at: 'paused: true',
  },
  {
    check: 'backup-coverage',
    why: "cleanuparr's backup target names the app 0: its copy's repository Secret is 0-config-restic, and the restore guide restores its volume from cleanuparr-config-restic, which does not exist",
    mutate: swap('apps/media/cleanuparr/backup-target.yaml', '  app: cleanuparr\n', '  app: 0\n'),
    at: 'repository: app-config-restic',
  },
  {
    check: 'backup-coverage',
    why: "the off-site copy's Secret loses its S3 secret key and keeps the key id: restic signs nothing with half a pair, and the bucket refuses every copy",
    mutate: swap('apps/media/components/offsite-copy/replicationsource.yaml', '        AWS_SECRET_ACCESS_KEY: "{{ .secretKey }}"\n', ''),
    at: 'repository: app-config-restic',
  },
  {
    check: 'backup-coverage',
    why: "the off-site copy's Secret names the restic password RESTIC_PASS, which VolSync's mover never reads",
    mutate: swap(
      'apps/media/components/offsite-copy/replicationsource.yaml',
      '        RESTIC_PASSWORD: "{{ .password }}"',
      '        RESTIC_PASS: "{{ .password }}"',
    ),
    at: 'repository: app-config-restic',
  },
  {
    check: 'backup-coverage',
    why: "the off-site copy's template writes the restic password empty: the key is there, and VolSync's mover stops on it (RESTIC_PASSWORD must be defined)",
    mutate: swap('apps/media/components/offsite-copy/replicationsource.yaml', '        RESTIC_PASSWORD: "{{ .password }}"', '        RESTIC_PASSWORD: ""'),
    // On the component's template line: a renamed component object points at the template whose name ends as its own.
    at: 'RESTIC_PASSWORD: ""',
  },
  {
    check: 'backup-coverage',
    why: "the off-site copy's template leaves the restic password blank (a null, which External Secrets writes as an empty value): VolSync's mover stops on it",
    mutate: swap('apps/media/components/offsite-copy/replicationsource.yaml', '        RESTIC_PASSWORD: "{{ .password }}"\n', '        RESTIC_PASSWORD:\n'),
    at: 'RESTIC_PASSWORD:\n',
  },
  {
    check: 'backup-coverage',
    why: "the off-site copy's repository written without the store's address (backups/app-config): restic reads it as a local directory, VolSync's mover makes it inside its own pod, and every copy ends with the pod",
    mutate: swap(
      'apps/media/components/offsite-copy/replicationsource.yaml',
      'RESTIC_REPOSITORY: "{{ .repository }}/app-config"',
      'RESTIC_REPOSITORY: "backups/app-config"',
    ),
    at: 'RESTIC_REPOSITORY: "backups/app-config"',
  },
  {
    check: 'backup-coverage',
    why: 'a config volume nobody copies off-site (the component left out)',
    mutate: withoutEntry('tautulli', '../components/offsite-copy'),
    at: lineIn('apps/media/tautulli/pvc.yaml', 'name: tautulli-config'),
  },
  {
    check: 'backup-coverage',
    why: 'a restic repository secret nobody writes',
    mutate: swap(COPY_COMPONENT, 'repository: app-config-restic', 'repository: app-restic-typo'),
    at: (c) => ({ file: COPY_COMPONENT, line: lineIn(COPY_COMPONENT, 'repository: app-restic-typo')(c) }),
  },
  {
    check: 'volsync-schedule',
    why: "the off-site copy's minute written 75: the CRD's pattern takes five fields of digits, and VolSync's parser refuses it (end of range (75) above maximum (59)): one copy, then an error condition and no more",
    mutate: swap(COPY_COMPONENT, 'schedule: "15 */6 * * *"', 'schedule: "75 */6 * * *"'),
    at: 'schedule: "75 */6 * * *"',
    fix: 'write the schedule as five fields (minute 0-59, hour 0-23, day 1-31, month 1-12, day of week 0-6) or a descriptor such as @daily, on days its months have',
  },
  {
    check: 'volsync-mover-pod',
    why: "the off-site copy's mover run as NFS's nobody, 4294967294: the CRD takes any int64, and the API server refuses the mover Job VolSync makes",
    mutate: swap(COPY_COMPONENT, '      runAsUser: 1000\n', '      runAsUser: 4294967294\n'),
    at: 'runAsUser: 4294967294',
  },
  {
    check: 'volsync-mover-pod',
    why: "the off-site copy's mover asks for more memory than its limit: the API server refuses the mover Job, and no copy runs",
    mutate: swap(
      COPY_COMPONENT,
      '    moverSecurityContext:\n',
      '    moverResources:\n      requests: {memory: 1Gi}\n      limits: {memory: 512Mi}\n    moverSecurityContext:\n',
    ),
    at: 'requests: {memory: 1Gi}',
  },
  {
    check: 'volsync-schedule',
    why: 'the off-site copy moved to the 30th of February: the parser takes it, Next finds no time, and VolSync copies back to back without end',
    mutate: swap(COPY_COMPONENT, 'schedule: "15 */6 * * *"', 'schedule: "15 3 30 2 *"'),
    at: 'schedule: "15 3 30 2 *"',
  },
  {
    check: 'volsync-schedule',
    why: "a manual trigger left beside the off-site copy's schedule after a copy by hand: VolSync takes the manual one and never reads the schedule again",
    mutate: swap(COPY_COMPONENT, '    schedule: "15 */6 * * *"\n', '    schedule: "15 */6 * * *"\n    manual: restore-drill-1\n'),
    at: 'manual: restore-drill-1',
    fix: 'remove the manual trigger once its copy is done, or the schedule if the copies are meant to be by hand',
  },
  {
    check: 'volsync-schedule',
    why: 'the off-site copy without its trigger: VolSync copies in a tight loop, one restic upload after another, without end',
    mutate: swap(COPY_COMPONENT, '  trigger:\n    schedule: "15 */6 * * *"\n', ''),
    at: (c) => ({ file: COPY_COMPONENT, line: lineOf(c, COPY_COMPONENT, 'spec:\n') }),
  },
  {
    check: 'backup-jobs',
    why: 'the etcd backup suspended (spec.suspend: true): its schedule stays, and the CronJob controller never starts a snapshot',
    mutate: swap('apps/platform/backups/etcd-backup.yaml', '  concurrencyPolicy: Forbid\n', '  suspend: true\n  concurrencyPolicy: Forbid\n'),
    at: 'suspend: true',
  },
  {
    check: 'backup-jobs',
    why: 'the monthly restore drill suspended: RestoreTestFailed never sees a drill fail, since none runs',
    mutate: swap('apps/platform/backups/restore-test.yaml', '  concurrencyPolicy: Forbid\n', '  suspend: true\n  concurrencyPolicy: Forbid\n'),
    at: 'suspend: true',
  },
  {
    check: 'backup-jobs',
    why: 'an app with a config volume that is neither a target nor says why not',
    mutate: swap('apps/media/facts/backup-targets.yaml', /\n  tdarr: "[^"]*"/, ''),
    at: lineIn('apps/media/tdarr/pvc.yaml', 'name: tdarr-config'),
  },
  {
    check: 'backup-jobs',
    why: 'a target whose nightly backup jobs are gone (the component left out)',
    mutate: withoutEntry('sonarr', '../components/db-backup'),
    at: 'sonarr: {engine',
  },
  {
    check: 'backup-jobs',
    why: 'a check job renamed out of BackupJobStale’s sight',
    mutate: patchJob('radarr', 'radarr-backup-check', '- op: replace\n  path: /metadata/name\n  value: radarr-backup-verify'),
    at: 'radarr: {engine',
  },
  {
    check: 'backup-jobs',
    why: 'a backup job that backs up another target',
    mutate: patchJob('sonarr', 'sonarr-db-backup', '- op: replace\n  path: /spec/jobTemplate/spec/template/spec/containers/0/args/1\n  value: radarr'),
    at: inComponent('args: [backup, app]'),
  },
  {
    check: 'backup-jobs',
    why: 'a weekly backup, set where the app names its schedule',
    mutate: swap(SONARR_TARGET, 'dbSchedule: "10 2 * * *"', 'dbSchedule: "10 2 * * 0"'),
    at: 'dbSchedule: "10 2 * * 0"',
  },
  {
    check: 'backup-jobs',
    why: 'a backup pod free to land on another node than the app’s ReadWriteOnce volume',
    mutate: patchJob('bazarr', 'bazarr-db-backup', '- op: remove\n  path: /spec/jobTemplate/spec/template/spec/affinity'),
    at: inComponent('containers:'),
  },
  {
    check: 'backup-jobs',
    why: 'a backup job mounting the config where the app does not keep it (the patch dropped)',
    mutate: (c) =>
      c.write('apps/media/jellyseerr/kustomization.yaml', c.read('apps/media/jellyseerr/kustomization.yaml').replace(/# Jellyseerr keeps[\s\S]*$/, '')),
    at: (c) => ({ file: DB_BACKUP_COMPONENT, line: lineIn(DB_BACKUP_COMPONENT, 'volumeMounts:')(c) }),
  },
  {
    check: 'backup-jobs',
    why: 'a backup job for an app nobody declared',
    mutate: (c) =>
      c.write(
        STRAY,
        c
          .read(DB_BACKUP_COMPONENT)
          .split('---\n')[1]!
          .replace(/app-backup-check/g, 'lidarr-backup-check')
          .replace('[backup-check, app]', '[backup-check, lidarr]')
          .replace(/schedule: .*/, 'schedule: "10 6 * * *"'),
      ),
    at: lineIn(STRAY, 'name: lidarr-backup-check'),
  },
  {
    check: 'backup-jobs',
    why: 'no restore test at all (its CronJob removed, and the egress policy written for it)',
    mutate: (c) => {
      c.write(DRILL, '# removed\n');
      const policies = 'apps/platform/backups/networkpolicy.yaml';
      c.write(policies, c.read(policies).replace(/---\n# restore-test:[\s\S]*$/, ''));
    },
    at: () => 1,
  },
  { check: 'backup-jobs', why: 'the restore test run weekly', mutate: swap(DRILL, 'schedule: 0 5 1 * *', 'schedule: 0 5 * * 1'), at: 'schedule: 0 5 * * 1' },
  {
    check: 'backup-jobs',
    why: "sonarr's backup target names /config/sonar.db: Sonarr writes /config/sonarr.db, the backup finds no file there and refuses, and every night's backup fails",
    mutate: swap('apps/media/facts/backup-targets.yaml', 'paths: [/config/sonarr.db]', 'paths: [/config/sonar.db]'),
    at: (c) => ({ file: 'apps/media/facts/backup-targets.yaml', line: lineOf(c, 'apps/media/facts/backup-targets.yaml', '/config/sonar.db') }),
  },
  {
    check: 'backup-jobs',
    why: 'Tautulli started with --datadir /config/data: its database moves to /config/data/tautulli.db, and the backup still reads /config/tautulli.db, which is no longer there',
    mutate: swap('apps/media/tautulli/deployment.yaml', '"--datadir", "/config"]', '"--datadir", "/config/data"]'),
    at: (c) => ({ file: 'apps/media/facts/backup-targets.yaml', line: lineOf(c, 'apps/media/facts/backup-targets.yaml', '/config/tautulli.db') }),
  },
];
