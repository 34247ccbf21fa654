/** Broken copies of the real repository for the checks of policy-tests/checks/backups/job-hygiene.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import type { RepoCopy } from '../support/helpers.ts';
import { after, appendConfigMap, swap, DB_BACKUP_COMPONENT, inComponent, DRILL, ETCD_JOBS } from './edits.ts';

/** The drill's BACKUP_DIR moved from its env into ConfigMap backup-settings, which its envFrom names, set to `dir`. */
export const drillDirFrom = (dir: string) => (c: RepoCopy) => {
  swap(
    DRILL,
    '            env:\n            - name: BACKUP_DIR\n              value: /backups\n',
    '            envFrom:\n            - configMapRef:\n                name: backup-settings\n            env:\n',
  )(c);
  appendConfigMap(DRILL, { name: 'backup-settings', namespace: 'backups', data: { BACKUP_DIR: dir } })(c);
};

export const backupJobHygieneMutations: Mutation[] = [
  {
    check: 'backup-job-hygiene',
    why: "the etcd backup's TALOSCONFIG misspelt: talosctl looks in the image's HOME, an emptyDir, finds no configuration, and every night's snapshot fails",
    mutate: swap('apps/platform/backups/etcd-backup.yaml', '            - name: TALOSCONFIG\n', '            - name: TALOSCONFGI\n'),
    at: '- name: etcd-backup\n',
    fix: 'give the container each variable its command reads (in env, or as a key of a Secret its envFrom names)',
  },
  {
    check: 'backup-job-hygiene',
    why: "the etcd backup's TALOS_NODE left without a value: the etcd engine refuses to run without a node for talosctl, and every night's snapshot fails",
    mutate: swap(
      'apps/platform/backups/etcd-backup.yaml',
      '            - name: TALOS_NODE\n              value: 192.168.1.11\n',
      '            - name: TALOS_NODE\n',
    ),
    at: '- name: etcd-backup\n',
    fix: 'give the container each variable its command reads (in env, or as a key of a Secret its envFrom names)',
  },
  {
    check: 'backup-job-hygiene',
    why: 'the restic password written under a name restic never reads, so every etcd backup fails',
    mutate: swap('apps/platform/backups/secrets.yaml', '        RESTIC_PASSWORD: "{{ .password }}"', '        RESTIC_PASS: "{{ .password }}"'),
    at: '- name: etcd-backup\n',
    fix: 'give the container each variable its command reads (in env, or as a key of a Secret its envFrom names)',
  },
  {
    check: 'backup-job-hygiene',
    why: "the etcd backup's repository left blank in its Secret's template: External Secrets writes it empty, the command reads an empty RESTIC_REPOSITORY as unset, and every etcd backup fails",
    mutate: swap('apps/platform/backups/secrets.yaml', '        RESTIC_REPOSITORY: "{{ .repository }}/etcd-backups"', '        RESTIC_REPOSITORY:'),
    at: '- name: etcd-backup\n',
    fix: 'give the container each variable its command reads (in env, or as a key of a Secret its envFrom names)',
  },
  {
    check: 'backup-job-hygiene',
    why: "the etcd backup's Secret loses its S3 key id and keeps the secret key: restic signs nothing with half a pair, so every etcd backup fails",
    mutate: swap('apps/platform/backups/secrets.yaml', '        AWS_ACCESS_KEY_ID: "{{ .accessKey }}"\n', ''),
    at: '- name: etcd-backup\n',
    fix: 'give the container each variable its command reads (in env, or as a key of a Secret its envFrom names)',
  },
  {
    check: 'backup-job-hygiene',
    why: 'two backups of one database allowed at once, in the shared component',
    mutate: swap(DB_BACKUP_COMPONENT, 'concurrencyPolicy: Forbid', 'concurrencyPolicy: Allow'),
    at: inComponent('concurrencyPolicy: Allow'),
    fix: 'set concurrencyPolicy: Forbid',
  },
  {
    check: 'backup-job-hygiene',
    why: 'failed runs kept forever',
    mutate: (c) => c.edit(ETCD_JOBS, 0, (d) => d.deleteIn(['spec', 'failedJobsHistoryLimit'])),
    at: 'spec:\n',
    fix: 'set successfulJobsHistoryLimit and failedJobsHistoryLimit between 1 and 10',
  },
  {
    check: 'backup-job-hygiene',
    why: 'a check job running another image',
    mutate: swap(DB_BACKUP_COMPONENT, /(name: backup-check\n\s+image: )\S+/, '$1docker.io/library/alpine:3.20'),
    at: inComponent('image: docker.io/library/alpine:3.20'),
    fix: 'run image ghcr.io/homelab-operator/homelab-backup:<tag>',
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
    fix: 'take each Secret the job reads from an ExternalSecret in its namespace',
  },
  {
    check: 'backup-job-hygiene',
    why: 'the drill reading a BACKUP_DIR nothing is mounted at (its volume mounted at /archive)',
    mutate: swap(DRILL, 'mountPath: /backups', 'mountPath: /archive'),
    at: '- name: restore-test',
    fix: 'set BACKUP_DIR and mount a volume at that path',
  },
  {
    check: 'backup-job-hygiene',
    why: 'the drill given its BACKUP_DIR by a ConfigMap its envFrom names, as /srv/backups, where nothing is mounted',
    mutate: drillDirFrom('/srv/backups'),
    at: '- name: restore-test',
    fix: 'set BACKUP_DIR and mount a volume at that path',
  },
  {
    check: 'backup-job-hygiene',
    why: "the drill's backups volume left with no source: the API server makes it an emptyDir, and the drill finds no backup to restore",
    mutate: swap(
      DRILL,
      '          - name: backups\n            persistentVolumeClaim:\n              claimName: backups\n              readOnly: true\n',
      '          - name: backups\n',
    ),
    at: after(DRILL, '          volumes:', '          - name: backups'),
    fix: 'mount the backups claim (a persistentVolumeClaim) at BACKUP_DIR',
  },
  {
    check: 'backup-job-hygiene',
    why: 'the nightly etcd backup written to an emptyDir: each snapshot is gone as its job ends',
    mutate: swap(
      ETCD_JOBS,
      '          - name: backups\n            persistentVolumeClaim:\n              claimName: backups\n          - name: talosconfig',
      '          - name: backups\n            emptyDir: {}\n          - name: talosconfig',
    ),
    at: after(ETCD_JOBS, '          volumes:', '          - name: backups'),
    fix: 'mount the backups claim (a persistentVolumeClaim) at BACKUP_DIR',
  },
  {
    check: 'backup-job-hygiene',
    why: 'a backup job without a CPU request',
    mutate: swap(DB_BACKUP_COMPONENT, /requests:\n(\s+)cpu: 100m\n/, 'requests:\n'),
    at: inComponent('resources:'),
    fix: 'set resources.requests.cpu and resources.requests.memory',
  },
  {
    check: 'backup-job-hygiene',
    why: "the etcd backup check mounts the backups claim at subPath etcd, where the backup writes at the claim's root: it finds no backup, and says so every morning",
    mutate: swap(
      ETCD_JOBS,
      '              mountPath: /backups\n              readOnly: true',
      '              mountPath: /backups\n              subPath: etcd\n              readOnly: true',
    ),
    at: after(ETCD_JOBS, 'name: etcd-backup-check', 'subPath: etcd'),
    fix: 'mount the claim the backups are written to, at the same subPath, at BACKUP_DIR',
  },
];
