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
  { check: 'backup-coverage', why: 'a config volume nobody copies off-site', mutate: (c) => c.write('apps/media/tautulli/replicationsource-tautulli.yaml', c.read('apps/media/tautulli/replicationsource-tautulli.yaml').split('---\n')[1]!), at: lineIn('apps/media/tautulli/pvc.yaml', 'name: tautulli-config') },
  { check: 'backup-coverage', why: 'a restic repository secret nobody writes', mutate: swap('apps/media/plex/replicationsource-plex.yaml', 'repository: plex-config-restic', 'repository: plex-restic-typo'), at: 'repository: plex-restic-typo' },

  { check: 'backup-jobs', why: 'an app with a config volume that is neither a target nor says why not', mutate: swap('apps/media/facts/backup-targets.yaml', /\n  tdarr: "[^"]*"/, ''), at: lineIn('apps/media/tdarr/pvc.yaml', 'name: tdarr-config') },
  { check: 'backup-jobs', why: 'a target whose nightly backup job is gone', mutate: (c) => c.write(SONARR_JOBS, c.read(SONARR_JOBS).split('---\n')[1]!), at: 'sonarr: {engine' },
  { check: 'backup-jobs', why: 'a check job renamed out of BackupJobStale’s sight', mutate: swap('apps/media/radarr/backup-jobs.yaml', /name: radarr-backup-check\n/g, 'name: radarr-backup-verify\n'), at: 'radarr: {engine' },
  { check: 'backup-jobs', why: 'a backup job that backs up another target', mutate: swap(SONARR_JOBS, 'args: [backup, sonarr]', 'args: [backup, radarr]'), at: 'args: [backup, radarr]' },
  { check: 'backup-jobs', why: 'a weekly backup', mutate: swap(SONARR_JOBS, 'schedule: 10 2 * * *', 'schedule: 10 2 * * 0'), at: 'schedule: 10 2 * * 0' },
  { check: 'backup-jobs', why: 'a backup pod free to land on another node than the app’s ReadWriteOnce volume', mutate: (c) => c.edit('apps/media/bazarr/backup-jobs.yaml', 0, (d) => d.deleteIn([...POD, 'affinity'])), at: 'containers:' },
  { check: 'backup-jobs', why: 'a backup job mounting the config where the app does not keep it', mutate: swap('apps/media/jellyseerr/backup-jobs.yaml', 'mountPath: /app/config', 'mountPath: /config'), at: 'volumeMounts:' },
  { check: 'backup-jobs', why: 'a backup job for an app nobody declared', mutate: (c) => c.write('apps/media/sonarr/lidarr-backup.yaml', c.read(SONARR_JOBS).split('---\n')[1]!.replace(/sonarr-backup-check/g, 'lidarr-backup-check').replace('[backup-check, sonarr]', '[backup-check, lidarr]')), at: lineIn('apps/media/sonarr/lidarr-backup.yaml', 'name: lidarr-backup-check') },
  { check: 'backup-jobs', why: 'no restore test at all', mutate: (c) => c.write(DRILL, '# removed\n'), at: () => 1 },
  { check: 'backup-jobs', why: 'the restore test run weekly', mutate: swap(DRILL, 'schedule: 0 5 1 * *', 'schedule: 0 5 * * 1'), at: 'schedule: 0 5 * * 1' },

  { check: 'backup-job-hygiene', why: 'two backups of one database allowed at once', mutate: swap('apps/media/tautulli/backup-jobs.yaml', 'concurrencyPolicy: Forbid', 'concurrencyPolicy: Allow'), at: 'concurrencyPolicy: Allow' },
  { check: 'backup-job-hygiene', why: 'failed runs kept forever', mutate: (c) => c.edit(ETCD_JOBS, 0, (d) => d.deleteIn(['spec', 'failedJobsHistoryLimit'])), at: 'spec:\n' },
  { check: 'backup-job-hygiene', why: 'a check job running another image', mutate: swap(SONARR_JOBS, /(name: backup-check\n\s+image: )\S+/, '$1docker.io/library/alpine:3.20'), at: 'image: docker.io/library/alpine:3.20' },
  { check: 'backup-job-hygiene', why: 'the talosconfig from a hand-made Secret', mutate: swap(ETCD_JOBS, 'secretName: etcd-backup-talosconfig', 'secretName: talosconfig-by-hand'), at: 'secretName: talosconfig-by-hand' },
  { check: 'backup-job-hygiene', why: 'the drill reading a BACKUP_DIR nothing is mounted at', mutate: swap(DRILL, 'mountPath: /backups', 'mountPath: /backup'), at: '- name: restore-test' },
  { check: 'backup-job-hygiene', why: 'a backup job without a CPU request', mutate: swap('apps/media/radarr-4k/backup-jobs.yaml', /requests:\n(\s+)cpu: 100m\n/, 'requests:\n'), at: 'resources:' }
];

