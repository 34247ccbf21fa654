/**
 * backup-jobs: a SQLite target's path is a database its app writes, where the facts of the app's image say which
 * (`databases`, model/programs/databases.ts), as the container starts it: its data folder moved by a variable or an
 * option of its command line. A path beside them (`/config/sonar.db`) names no file: the backup refuses to run, and
 * every night's job fails. A container whose data folder the gate does not work out, or an image whose facts say
 * nothing of its databases, is said not judged.
 */
import type { CheckContext, FailurePlace } from '../../model/checks/kit.ts';
import type { ContainerRef } from '../../model/core/workloads.ts';
import { scalarText } from '../../model/core/text.ts';
import { imageKey, repoImageNeeds } from '../../model/repository/image-facts.ts';
import { containerEnvironment, expandedCommandLine } from '../../model/cluster/environment.ts';
import { databasePaths } from '../../model/programs/databases.ts';

/** The database files each container mounting the path writes, by container; undefined for one whose files are not known. */
function writtenBy(ctx: CheckContext, namespace: string, containers: readonly ContainerRef[]) {
  const { needs } = repoImageNeeds(ctx.repo);
  return containers.map((c) => {
    const need = needs.get(imageKey(scalarText(c.container.image ?? '')));
    if (!need?.databases) return { c, files: undefined, file: undefined };
    const environment = containerEnvironment(ctx, namespace, c.container);
    const gives = c.container.command !== undefined || c.container.args !== undefined;
    const files = databasePaths(need.databases, { variable: environment.setting, ...(gives ? { words: expandedCommandLine(environment, c.container) } : {}) });
    return { c, files, file: need.file };
  });
}

export function judgeDatabasePath(
  ctx: CheckContext,
  target: { name: string; namespace: string },
  containers: readonly ContainerRef[],
  where: { path: string; place: FailurePlace },
): void {
  // In a pod of several apps (the VPN pod) the container named as the target is the one whose database it is.
  const named = containers.filter((c) => c.name === target.name);
  const written = writtenBy(ctx, target.namespace, named.length > 0 ? named : containers);
  if (written.some((w) => w.files?.includes(where.path))) return;
  const unknown = written.filter((w) => w.files === undefined);
  if (unknown.length > 0)
    return ctx.notJudged(
      where.place,
      `target ${target.name}: whether ${unknown.map((w) => `container ${w.c.name}`).join(' or ')} writes its database at ${where.path} is not judged (${unknown.some((w) => w.file) ? 'its data folder is set from what the gate does not read' : 'the facts of its image list no databases'})`,
    );
  const files = written.flatMap((w) => w.files ?? []);
  ctx.fail(
    where.place,
    `target ${target.name} backs up ${where.path}, and its app writes its database at ${files.join(' or ')} (the databases in ${written[0]!.file}): the backup finds no file there and refuses to run, so every night's backup fails`,
    `back up ${files.join(' and ')}`,
  );
}
