/**
 * The restic repository Secret a ReplicationSource names, as VolSync's restic mover reads it (mover-restic/entry.sh at
 * v0.16.0): written by an ExternalSecret, with RESTIC_REPOSITORY and RESTIC_PASSWORD, neither empty (the mover stops
 * on an empty one: "must be defined"). Otherwise no copy is made (B3).
 */
import type { CheckContext } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { keysOf } from '../../model/cluster/provided-keys.ts';
import { emptyTemplateKeys, writtenByExternalSecret } from '../../model/cluster/external-secrets.ts';

/** The keys VolSync's restic mover reads from its repository Secret. */
const VOLSYNC_RESTIC_KEYS = ['RESTIC_REPOSITORY', 'RESTIC_PASSWORD'];

export function resticRepositoryProblems(ctx: CheckContext, source: Resource): void {
  const repository = (source.object.spec as { restic?: { repository?: string } })?.restic?.repository;
  if (!writtenByExternalSecret(ctx.repo, repository, source.namespace ?? ''))
    ctx.fail(
      { resource: source, path: ['spec', 'restic', 'repository'] },
      `the restic repository Secret ${repository ?? '(none)'} is not written by an ExternalSecret`,
    );
  // VolSync's restic mover reads the repository and its password from these keys of that Secret, and nothing else.
  const written = keysOf(ctx, { kind: 'Secret', namespace: source.namespace, name: repository });
  const lacking = written && VOLSYNC_RESTIC_KEYS.filter((k) => !written.has(k));
  if (lacking?.length)
    ctx.fail(
      { resource: source, path: ['spec', 'restic', 'repository'] },
      `the restic repository Secret ${repository} has no ${lacking.join(' or ')}, which VolSync's mover reads: no copy is made`,
    );
  // The mover's entry.sh stops on an empty one (check_var_defined: "must be defined"): a template that writes it empty.
  for (const { es, key } of emptyTemplateKeys(ctx.resources, source.namespace, repository, VOLSYNC_RESTIC_KEYS))
    ctx.fail(
      { resource: es, path: ['spec', 'target', 'template', 'data', key] },
      `the restic repository Secret ${repository} gets ${key} empty from its template: VolSync's mover stops on it (${key} must be defined), and no copy is made`,
    );
}
