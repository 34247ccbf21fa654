/**
 * The backup directory the jobs of a namespace share: the backup writes its archives under BACKUP_DIR, and the
 * backup check and the restore drill read them there. Each mounts BACKUP_DIR from a claim; a reader that mounts the
 * claim the backups are written to with another `subPath` (or another claim) sees another directory: the check finds
 * no backup and says so every morning, the drill has nothing to restore, and the backups themselves look lost.
 */
import type { CheckContext } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { scalarText } from '../../model/core/text.ts';

/** Where one backup job keeps BACKUP_DIR: the claim and the folder of it mounted there. */
export interface BackupDirMount {
  job: Resource;
  /** The job's command: backup writes, backup-check and restore-test read. */
  command: string;
  namespace: string;
  claim: string;
  subPath: string;
  at: Path;
}

const READERS = ['backup-check', 'restore-test'];

const placeOf = (m: BackupDirMount) => (m.subPath ? `folder ${JSON.stringify(m.subPath)} of claim ${m.claim}` : `claim ${m.claim}`);

/** Each reader whose BACKUP_DIR is another folder than every backup of its namespace writes to. */
export function sharedDirFindings(ctx: CheckContext, mounts: readonly BackupDirMount[]): void {
  for (const reader of mounts.filter((m) => READERS.includes(m.command))) {
    const writers = mounts.filter((m) => m.command === 'backup' && m.namespace === reader.namespace);
    // A reader with no backup beside it is another finding's (backup-jobs), and one reading where a backup writes is fine.
    if (writers.length === 0 || writers.some((w) => w.claim === reader.claim && w.subPath === reader.subPath)) continue;
    const wrote = [...new Set(writers.map(placeOf))];
    ctx.fail(
      { resource: reader.job, path: reader.at },
      `${reader.job.name} (${reader.command}) reads BACKUP_DIR from ${placeOf(reader)}, where no backup of namespace ${reader.namespace} writes (${wrote.join('; ')}): it finds no backup to ${reader.command === 'restore-test' ? 'restore' : 'check'}`,
      'mount the claim the backups are written to, at the same subPath, at BACKUP_DIR',
    );
  }
}

/** The claim and subPath a mount of a pod's claim volume gives, or undefined for another kind of volume. */
export function claimMount(
  volume: Record<string, unknown> | undefined,
  mount: Record<string, unknown> | undefined,
): { claim: string; subPath: string } | undefined {
  const claim = (volume?.persistentVolumeClaim as { claimName?: unknown } | undefined)?.claimName;
  if (typeof claim !== 'string' || !mount) return undefined;
  // subPathExpr expands the pod's variables at run time: not read, and so not compared.
  if (mount.subPathExpr !== undefined) return undefined;
  return { claim, subPath: scalarText(mount.subPath ?? '').replace(/^\/+|\/+$/g, '') };
}
