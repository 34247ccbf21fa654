/** Backups (B), in this project's own words: what the backup and media-settings checks cite. */
export const BACKUP_INVARIANTS: Readonly<Record<string, string>> = {
  B1: 'The etcd, *-db-backup and *-backup-check jobs exist for what they protect and succeed at least every 26 hours.',
  B2: 'A monthly restore test proves that the newest backup, not an older one, was restored.',
  B3: 'Every app config volume has a ReplicationSource.',
  B4: 'App backups are kept 14 days.',
};
