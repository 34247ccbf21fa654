/** Broken copies of the real repository for the backup checks. */
import type { RepoCopy } from './helpers.ts';
import type { Mutation } from './mutation-runner.ts';

/** The media backups are a kustomize component (apps/media/components/) that each app names itself for in backup-target.yaml; gluetun's prowlarr keeps plain files. */
const DB_BACKUP_COMPONENT = 'apps/media/components/db-backup/cronjobs.yaml';
const SONARR_TARGET = 'apps/media/sonarr/backup-target.yaml';
const PROWLARR_JOBS = 'apps/media/gluetun/backup-jobs-prowlarr.yaml';
const PROWLARR_COPY = 'apps/media/gluetun/replicationsource-prowlarr.yaml';
const DRILL = 'apps/platform/backups/restore-test.yaml';
const ETCD_JOBS = 'apps/platform/backups/etcd-backup.yaml';
const POD = ['spec', 'jobTemplate', 'spec', 'template', 'spec'];
const swap = (file: string, from: string | RegExp, to: string) => (c: RepoCopy) => {
  const text = c.read(file);
  if (!(typeof from === 'string' ? text.includes(from) : from.test(text))) throw new Error(`${String(from)} not in ${file}`);
  c.write(file, text.replace(from, to));
};
const lineIn = (file: string, whole: string) => (c: RepoCopy) => c.read(file).split('\n').findIndex((l) => l.trim() === whole) + 1;

/** Drops one entry from a list in an app's kustomization.yaml. */
const withoutEntry = (app: string, entry: string) => swap(`apps/media/${app}/kustomization.yaml`, `  - ${entry}\n`, '');

export const backupMutations: Mutation[] = [
  { check: 'backup-coverage', why: 'a config volume nobody copies off-site (the component left out)', mutate: withoutEntry('tautulli', '../components/offsite-copy'), at: lineIn('apps/media/tautulli/pvc.yaml', 'name: tautulli-config') },
  { check: 'backup-coverage', why: 'a restic repository secret nobody writes', mutate: swap(PROWLARR_COPY, 'repository: prowlarr-config-restic', 'repository: prowlarr-restic-typo'), at: 'repository: prowlarr-restic-typo' },

  { check: 'backup-jobs', why: 'an app with a config volume that is neither a target nor says why not', mutate: swap('apps/media/facts/backup-targets.yaml', /\n  tdarr: "[^"]*"/, ''), at: lineIn('apps/media/tdarr/pvc.yaml', 'name: tdarr-config') },
  { check: 'backup-jobs', why: 'a target whose nightly backup jobs are gone (the component left out)', mutate: withoutEntry('sonarr', '../components/db-backup'), at: 'sonarr: {engine' },
  { check: 'backup-jobs', why: 'a check job renamed out of BackupJobStale’s sight', mutate: swap(PROWLARR_JOBS, /name: prowlarr-backup-check\n/g, 'name: prowlarr-backup-verify\n'), at: 'prowlarr: {engine' },
  { check: 'backup-jobs', why: 'a backup job that backs up another target', mutate: swap(PROWLARR_JOBS, 'args: [backup, prowlarr]', 'args: [backup, radarr]'), at: 'args: [backup, radarr]' },
  { check: 'backup-jobs', why: 'a weekly backup, set where the app names its schedule', mutate: swap(SONARR_TARGET, 'dbSchedule: "10 2 * * *"', 'dbSchedule: "10 2 * * 0"'), at: 'dbSchedule: "10 2 * * 0"' },
  { check: 'backup-jobs', why: 'a backup pod free to land on another node than the app’s ReadWriteOnce volume', mutate: (c) => c.edit(PROWLARR_JOBS, 0, (d) => d.deleteIn([...POD, 'affinity'])), at: 'containers:' },
  { check: 'backup-jobs', why: 'a backup job mounting the config where the app does not keep it (the patch dropped)', mutate: (c) => c.write('apps/media/jellyseerr/kustomization.yaml', c.read('apps/media/jellyseerr/kustomization.yaml').replace(/# Jellyseerr keeps[\s\S]*$/, '')), at: (c) => ({ file: DB_BACKUP_COMPONENT, line: lineIn(DB_BACKUP_COMPONENT, 'volumeMounts:')(c) }) },
  { check: 'backup-jobs', why: 'a backup job for an app nobody declared', mutate: (c) => c.write('apps/media/gluetun/lidarr-backup.yaml', c.read(PROWLARR_JOBS).split('---\n')[1]!.replace(/prowlarr-backup-check/g, 'lidarr-backup-check').replace('[backup-check, prowlarr]', '[backup-check, lidarr]')), at: lineIn('apps/media/gluetun/lidarr-backup.yaml', 'name: lidarr-backup-check') },
  { check: 'backup-jobs', why: 'no restore test at all', mutate: (c) => c.write(DRILL, '# removed\n'), at: () => 1 },
  { check: 'backup-jobs', why: 'the restore test run weekly', mutate: swap(DRILL, 'schedule: 0 5 1 * *', 'schedule: 0 5 * * 1'), at: 'schedule: 0 5 * * 1' },

  { check: 'backup-job-hygiene', why: 'two backups of one database allowed at once, in the shared component', mutate: swap(DB_BACKUP_COMPONENT, 'concurrencyPolicy: Forbid', 'concurrencyPolicy: Allow'), at: 'concurrencyPolicy: Allow' },
  { check: 'backup-job-hygiene', why: 'failed runs kept forever', mutate: (c) => c.edit(ETCD_JOBS, 0, (d) => d.deleteIn(['spec', 'failedJobsHistoryLimit'])), at: 'spec:\n' },
  { check: 'backup-job-hygiene', why: 'a check job running another image', mutate: swap(PROWLARR_JOBS, /(name: backup-check\n\s+image: )\S+/, '$1docker.io/library/alpine:3.20'), at: 'image: docker.io/library/alpine:3.20' },
  { check: 'backup-job-hygiene', why: 'the talosconfig from a hand-made Secret', mutate: swap(ETCD_JOBS, 'secretName: etcd-backup-talosconfig', 'secretName: talosconfig-by-hand'), at: 'secretName: talosconfig-by-hand' },
  { check: 'backup-job-hygiene', why: 'the drill reading a BACKUP_DIR nothing is mounted at', mutate: swap(DRILL, 'mountPath: /backups', 'mountPath: /backup'), at: '- name: restore-test' },
  { check: 'backup-job-hygiene', why: 'a backup job without a CPU request', mutate: swap(PROWLARR_JOBS, /requests:\n(\s+)cpu: 100m\n/, 'requests:\n'), at: 'resources:' }
];
