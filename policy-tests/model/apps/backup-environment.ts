/**
 * What the backup image's commands read from their environment (scripts/backup/cli.ts's ENV_HELP, and the checks
 * in scripts/backup/run.ts and integrity.ts): each need, met by any one of its names. A job whose environment lacks
 * one fails every night, and only BackupJobStale, a day later, says so.
 */
const RESTIC = [['RESTIC_REPOSITORY'], ['RESTIC_PASSWORD', 'RESTIC_PASSWORD_FILE']] as const;
const MANIFEST_KEY = ['BACKUP_MANIFEST_KEY', 'BACKUP_MANIFEST_KEY_FILE'] as const;

export const BACKUP_ENVIRONMENT: Readonly<Record<string, readonly (readonly string[])[]>> = {
  backup: [['BACKUP_DIR'], MANIFEST_KEY, ...RESTIC],
  'backup-check': [['BACKUP_DIR'], MANIFEST_KEY, ...RESTIC],
  'restore-test': [['BACKUP_DIR'], MANIFEST_KEY],
};
