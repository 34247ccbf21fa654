/** Broken copies of the real repository for the backup checks. */
import type { RepoCopy } from './helpers.ts';
import type { Mutation } from './mutation-runner.ts';

const SONARR_JOBS = 'apps/media/sonarr/backup-jobs.yaml';
const DRILL = 'apps/platform/backups/restore-test.yaml';
const ETCD_JOBS = 'apps/platform/backups/etcd-backup.yaml';
const POD = ['spec', 'jobTemplate', 'spec', 'template', 'spec'];
const swap = (file: string, from: string | RegExp, to: string) => (c: RepoCopy) => {
  const text = c.read(file);
  if (!(typeof from === 'string' ? text.includes(from) : from.test(text))) throw new Error(`${String(from)} not in ${file}`);
  c.write(file, text.replace(from, to));
};
const lineIn = (file: string, whole: string) => (c: RepoCopy) => c.read(file).split('\n').findIndex((l) => l.trim() === whole) + 1;

export const backupMutations: Mutation[] = [
  ['backup-coverage', 'a config volume nobody copies off-site', (c) => c.write('apps/media/tautulli/replicationsource-tautulli.yaml', c.read('apps/media/tautulli/replicationsource-tautulli.yaml').split('---\n')[1]!), lineIn('apps/media/tautulli/pvc.yaml', 'name: tautulli-config')],
  ['backup-coverage', 'a restic repository secret nobody writes', swap('apps/media/plex/replicationsource-plex.yaml', 'repository: plex-config-restic', 'repository: plex-restic-typo'), 'repository: plex-restic-typo'],

  ['backup-jobs', 'an app with a config volume that is neither a target nor says why not', swap('apps/media/facts/backup-targets.yaml', /\n  tdarr: "[^"]*"/, ''), lineIn('apps/media/tdarr/pvc.yaml', 'name: tdarr-config')],
  ['backup-jobs', 'a target whose nightly backup job is gone', (c) => c.write(SONARR_JOBS, c.read(SONARR_JOBS).split('---\n')[1]!), 'sonarr: {engine'],
  ['backup-jobs', 'a check job renamed out of BackupJobStale’s sight', swap('apps/media/radarr/backup-jobs.yaml', /name: radarr-backup-check\n/g, 'name: radarr-backup-verify\n'), 'radarr: {engine'],
  ['backup-jobs', 'a backup job that backs up another target', swap(SONARR_JOBS, 'args: [backup, sonarr]', 'args: [backup, radarr]'), 'args: [backup, radarr]'],
  ['backup-jobs', 'a weekly backup', swap(SONARR_JOBS, 'schedule: 10 2 * * *', 'schedule: 10 2 * * 0'), 'schedule: 10 2 * * 0'],
  ['backup-jobs', 'a backup pod free to land on another node than the app’s ReadWriteOnce volume', (c) => c.edit('apps/media/bazarr/backup-jobs.yaml', 0, (d) => d.deleteIn([...POD, 'affinity'])), 'containers:'],
  ['backup-jobs', 'a backup job mounting the config where the app does not keep it', swap('apps/media/jellyseerr/backup-jobs.yaml', 'mountPath: /app/config', 'mountPath: /config'), 'volumeMounts:'],
  ['backup-jobs', 'a backup job for an app nobody declared', (c) => c.write('apps/media/sonarr/lidarr-backup.yaml', c.read(SONARR_JOBS).split('---\n')[1]!.replace(/sonarr-backup-check/g, 'lidarr-backup-check').replace('[backup-check, sonarr]', '[backup-check, lidarr]')), lineIn('apps/media/sonarr/lidarr-backup.yaml', 'name: lidarr-backup-check')],
  ['backup-jobs', 'no restore test at all', (c) => c.write(DRILL, '# removed\n'), () => 1],
  ['backup-jobs', 'the restore test run weekly', swap(DRILL, 'schedule: 0 5 1 * *', 'schedule: 0 5 * * 1'), 'schedule: 0 5 * * 1'],

  ['backup-job-hygiene', 'two backups of one database allowed at once', swap('apps/media/tautulli/backup-jobs.yaml', 'concurrencyPolicy: Forbid', 'concurrencyPolicy: Allow'), 'concurrencyPolicy: Allow'],
  ['backup-job-hygiene', 'failed runs kept forever', (c) => c.edit(ETCD_JOBS, 0, (d) => d.deleteIn(['spec', 'failedJobsHistoryLimit'])), 'spec:\n'],
  ['backup-job-hygiene', 'a check job running another image', swap(SONARR_JOBS, /(name: backup-check\n\s+image: )\S+/, '$1docker.io/library/alpine:3.20'), 'image: docker.io/library/alpine:3.20'],
  ['backup-job-hygiene', 'the talosconfig from a hand-made Secret', swap(ETCD_JOBS, 'secretName: etcd-backup-talosconfig', 'secretName: talosconfig-by-hand'), 'secretName: talosconfig-by-hand'],
  ['backup-job-hygiene', 'the drill reading a BACKUP_DIR nothing is mounted at', swap(DRILL, 'mountPath: /backups', 'mountPath: /backup'), '- name: restore-test'],
  ['backup-job-hygiene', 'a backup job without a CPU request', swap('apps/media/radarr-4k/backup-jobs.yaml', /requests:\n(\s+)cpu: 100m\n/, 'requests:\n'), 'resources:'],
];

