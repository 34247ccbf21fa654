/**
 * The ReplicationSources that copy one config volume off-site, held to what makes a copy and a restore of it: not
 * paused (VolSync starts no mover while spec.paused is true), and its restic repository Secret named <claim>-restic,
 * the name the restore guide (docs/restore.md) restores the volume from, and the one looked for at 2 a.m. (B3).
 */
import type { CheckContext } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { dig } from '../../model/core/dig.ts';

export function copiesOfClaim(ctx: CheckContext, claim: Resource, copies: readonly Resource[]): void {
  for (const source of copies) {
    if (dig(source.object, ['spec', 'paused']) === true)
      ctx.fail(
        { resource: source, path: ['spec', 'paused'] },
        `ReplicationSource ${source.name} copies ${claim.name}, and it is paused (spec.paused: true): VolSync starts no copy, and the volume is not copied off-site`,
        'remove spec.paused',
      );
    const repository = dig(source.object, ['spec', 'restic', 'repository']);
    if (typeof repository === 'string' && repository !== `${claim.name}-restic`)
      ctx.fail(
        { resource: source, path: ['spec', 'restic', 'repository'] },
        `ReplicationSource ${source.name} copies ${claim.name} with the repository Secret ${repository}, and the restore guide restores it from ${claim.name}-restic (docs/restore.md), which does not hold it`,
        `name the repository Secret ${claim.name}-restic`,
      );
  }
}
