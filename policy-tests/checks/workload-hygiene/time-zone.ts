/**
 * workload-time-zone: a container's `TZ` names a zone its program can read. The C library reads TZ as a file of the tz
 * database, else as a POSIX rule, and a value that is neither leaves the program in UTC without a word (glibc, musl,
 * Go, .NET, Python and Node alike): a slip such as `Europe/Olso` runs the apps' schedules an hour or two off, and the
 * API server takes any text. Read as model/programs/tz-variable.ts reads it.
 */
import { containerEnvironment, givenVariablePath, type ContainerEnvironment } from '../../model/cluster/environment.ts';
import { oneSlipApart } from '../../model/core/did-you-mean.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { WORKLOAD_KINDS, workloadContainers, type ContainerRef } from '../../model/core/workloads.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { readTimeZone } from '../../model/programs/tz-variable.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';

type Container = { resource: Resource; c: ContainerRef };

/**
 * A zone given under a name one slip from TZ (`TY`, `Tz`, `TZ_`) where nothing sets TZ itself: no library reads it,
 * and the program runs in UTC. Only a written value that is a zone of the database: that is what TZ was meant to hold.
 */
function slippedName(ctx: CheckContext, { resource, c }: Container, environment: ContainerEnvironment): void {
  if (environment.text('TZ') !== undefined) return;
  for (const entry of environment.entries) {
    if (entry.name === 'TZ' || !(entry.name.toUpperCase() === 'TZ' || oneSlipApart(entry.name, 'TZ')) || typeof entry.value !== 'string') continue;
    if (readTimeZone(entry.value).reading !== 'zone') continue;
    ctx.fail(
      { resource, path: [...c.at, ...givenVariablePath(entry, 'name')] },
      `container ${c.name} is given the zone ${JSON.stringify(entry.value)} as ${JSON.stringify(entry.name)}, which nothing reads (did you mean "TZ"?): the C library, Go and .NET read TZ alone, and ${resource.kind} ${resource.name} runs its schedules in UTC`,
    );
  }
}

export const timeZoneCheck: PolicyCheck = {
  id: 'workload-time-zone',
  description:
    "Every container's TZ variable (its env, or a ConfigMap its envFrom names) is empty or a zone of the tz database written as the database writes it (Europe/Oslo, or its file under /usr/share/zoneinfo; a name only the runtime's ICU keeps, such as PST, is none): the C library, Go and .NET read a name no zone file holds as UTC (the C library reads its start as a POSIX rule where it can), and the program runs its schedules in UTC without a word, while the API server takes any text. A POSIX rule (CET-1CEST,M3.5.0,M10.5.0/3), which the C library reads and Go and .NET do not, and a file elsewhere are not judged; a zone given under a name one slip from TZ (TY, tz) where nothing sets TZ is read by nothing, and fails too (invariants P1).",
  invariants: ['P1'],
  remediation: 'write the zone as the tz database names it (Area/City, such as Europe/Oslo), or a POSIX rule',
  reads: { kinds: withKeyProviders(...WORKLOAD_KINDS), renders: true },
  exemptible: false,
  run(ctx) {
    for (const { resource, c } of workloadContainers(ctx.resources)) {
      const environment = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, resource), c.container);
      slippedName(ctx, { resource, c }, environment);
      const text = environment.text('TZ');
      if (typeof text !== 'string') continue;
      const entry = environment.entries.findLast((e) => e.name === 'TZ');
      const place = { resource, path: [...c.at, ...(entry ? givenVariablePath(entry, 'value') : ['env'])] };
      const read = readTimeZone(text);
      if (read.reading === 'zone') continue;
      if (read.reading === 'unknown' || read.reading === 'rule') {
        const why =
          read.reading === 'rule'
            ? "is a POSIX rule, which the C library's programs read and Go's and .NET's read as UTC: which the image runs is not judged"
            : 'names a file outside /usr/share/zoneinfo: whether the image holds a zone there is not judged';
        ctx.notJudged(place, `container ${c.name}'s TZ ${JSON.stringify(text)} ${why}`);
        continue;
      }
      const effect =
        read.reading === 'utc'
          ? `the C library, Go and .NET read it as UTC, and ${resource.kind} ${resource.name} runs its schedules in UTC`
          : `the C library reads it as a POSIX rule as far as it parses (Go and .NET read UTC), and ${resource.kind} ${resource.name} runs its schedules in a zone it does not name`;
      ctx.fail(
        place,
        `container ${c.name}'s TZ ${JSON.stringify(text)} is no zone of the tz database and no POSIX rule: ${effect}${read.near ? ` (did you mean "${read.near}"?)` : ''}`,
      );
    }
  },
};
