/** Broken copies of the real repository for the backup checks. */
import type { RepoCopy } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';

/** The media backups are kustomize components (apps/media/components/) that each app includes, naming itself in backup-target.yaml. */
const DB_BACKUP_COMPONENT = 'apps/media/components/db-backup/cronjobs.yaml';
const COPY_COMPONENT = 'apps/media/components/offsite-copy/replicationsource.yaml';
const SONARR_TARGET = 'apps/media/sonarr/backup-target.yaml';
/** One app's own change to a job the component made: a JSON patch appended to its kustomization. */
const patchJob = (app: string, job: string, ops: string) => (c: RepoCopy) => {
  const file = `apps/media/${app}/kustomization.yaml`;
  const text = c.read(file);
  c.write(
    file,
    `${text}${text.includes('\npatches:\n') ? '' : 'patches:\n'}  - target: { kind: CronJob, name: ${job} }\n    patch: |-\n${ops
      .split('\n')
      .map((l) => `      ${l}`)
      .join('\n')}\n`,
  );
};
const inComponent = (needle: string) => (c: RepoCopy) => ({ file: DB_BACKUP_COMPONENT, line: lineIn(DB_BACKUP_COMPONENT, needle)(c) });
const DRILL = 'apps/platform/backups/restore-test.yaml';
/** A plain folder of the media namespace, where a stray job can be dropped. */
const STRAY = 'apps/media/unpackerr/lidarr-backup.yaml';
const ETCD_JOBS = 'apps/platform/backups/etcd-backup.yaml';
const swap = (file: string, from: string | RegExp, to: string) => (c: RepoCopy) => {
  const text = c.read(file);
  if (!(typeof from === 'string' ? text.includes(from) : from.test(text))) throw new Error(`${String(from)} not in ${file}`);
  c.write(file, text.replace(from, to));
};
const lineIn = (file: string, whole: string) => (c: RepoCopy) =>
  c
    .read(file)
    .split('\n')
    .findIndex((l) => l.trim() === whole) + 1;

/** Drops one entry from a list in an app's kustomization.yaml. */
const withoutEntry = (app: string, entry: string) => swap(`apps/media/${app}/kustomization.yaml`, `  - ${entry}\n`, '');

export const backupMutations: Mutation[] = [
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
  { check: 'backup-jobs', why: 'no restore test at all', mutate: (c) => c.write(DRILL, '# removed\n'), at: () => 1 },
  { check: 'backup-jobs', why: 'the restore test run weekly', mutate: swap(DRILL, 'schedule: 0 5 1 * *', 'schedule: 0 5 * * 1'), at: 'schedule: 0 5 * * 1' },

  {
    check: 'backup-job-hygiene',
    why: 'two backups of one database allowed at once, in the shared component',
    mutate: swap(DB_BACKUP_COMPONENT, 'concurrencyPolicy: Forbid', 'concurrencyPolicy: Allow'),
    at: inComponent('concurrencyPolicy: Allow'),
  },
  {
    check: 'backup-job-hygiene',
    why: 'failed runs kept forever',
    mutate: (c) => c.edit(ETCD_JOBS, 0, (d) => d.deleteIn(['spec', 'failedJobsHistoryLimit'])),
    at: 'spec:\n',
  },
  {
    check: 'backup-job-hygiene',
    why: 'a check job running another image',
    mutate: swap(DB_BACKUP_COMPONENT, /(name: backup-check\n\s+image: )\S+/, '$1docker.io/library/alpine:3.20'),
    at: inComponent('image: docker.io/library/alpine:3.20'),
  },
  {
    check: 'backup-job-hygiene',
    why: 'the talosconfig from a hand-made Secret',
    mutate: (c) => {
      swap(ETCD_JOBS, 'secretName: etcd-backup-talosconfig', 'secretName: talosconfig-by-hand')(c);
      // Made by hand: it exists (so closure-secret is content), but no ExternalSecret keeps it.
      c.write('apps/platform/backups/talosconfig-by-hand.yaml', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: talosconfig-by-hand\n  namespace: backups\n');
    },
    at: 'secretName: talosconfig-by-hand',
  },
  {
    check: 'backup-job-hygiene',
    why: 'the drill reading a BACKUP_DIR nothing is mounted at',
    mutate: swap(DRILL, 'mountPath: /backups', 'mountPath: /backup'),
    at: '- name: restore-test',
  },
  {
    check: 'backup-job-hygiene',
    why: 'a backup job without a CPU request',
    mutate: swap(DB_BACKUP_COMPONENT, /requests:\n(\s+)cpu: 100m\n/, 'requests:\n'),
    at: inComponent('resources:'),
  },
];
