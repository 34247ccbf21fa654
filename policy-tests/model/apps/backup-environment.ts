/**
 * What the backup image's commands read from their environment (scripts/backup/cli.ts's ENV_HELP, and the checks
 * in scripts/backup/run.ts and integrity.ts): each need, met by any one of its names. A job whose environment lacks
 * one fails every night, and only BackupJobStale, a day later, says so.
 */
const RESTIC = [['RESTIC_REPOSITORY'], ['RESTIC_PASSWORD', 'RESTIC_PASSWORD_FILE']] as const;
const MANIFEST_KEY = ['BACKUP_MANIFEST_KEY', 'BACKUP_MANIFEST_KEY_FILE'] as const;

/**
 * The credentials restic reads as a pair (its S3 backend through minio-go's EnvAWS, its B2 backend): one without the
 * other signs nothing, and a private bucket refuses every request. Neither is a need, a repository may take none.
 */
export const RESTIC_CREDENTIAL_PAIRS = [
  ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
  ['B2_ACCOUNT_ID', 'B2_ACCOUNT_KEY'],
] as const;

/** Each half of a pair set without its other: `the other (beside the one)`; `has` undefined where it may be either (not judged). */
export function halfCredentials(has: (name: string) => boolean | undefined): string[] {
  return RESTIC_CREDENTIAL_PAIRS.flatMap(([a, b]) => {
    const [hasA, hasB] = [has(a), has(b)];
    if (hasA === undefined || hasB === undefined || hasA === hasB) return [];
    return [hasA ? `${b} (beside ${a})` : `${a} (beside ${b})`];
  });
}

/**
 * What an engine reads beyond its command's needs, by command: the etcd engine's dump calls talosctl on TALOS_NODE
 * (scripts/backup/engines/etcd.ts, talosNode), and talosctl finds its client configuration at TALOSCONFIG, else at
 * $HOME/.talos/config: the image's HOME is /tmp (scripts/backup/Dockerfile), the job's emptyDir, where none is, so
 * without TALOSCONFIG every snapshot fails before it asks the node.
 */
export const ENGINE_ENVIRONMENT: Readonly<Record<string, Readonly<Record<string, readonly (readonly string[])[]>>>> = {
  etcd: { backup: [['TALOS_NODE'], ['TALOSCONFIG']] },
};

export const BACKUP_ENVIRONMENT: Readonly<Record<string, readonly (readonly string[])[]>> = {
  backup: [['BACKUP_DIR'], MANIFEST_KEY, ...RESTIC],
  'backup-check': [['BACKUP_DIR'], MANIFEST_KEY, ...RESTIC],
  'restore-test': [['BACKUP_DIR'], MANIFEST_KEY],
};
