/**
 * monitoring-loki-config: the ingester ring has the ingesters its replication factor asks for. Loki 3.7 gives the
 * ingesters' ring the replication factor of common.replication_factor, its flag's default 3 where the file says none
 * (pkg/loki/config_wrapper.go, applyIngesterReplicationFactor), and dskit's ring refuses a push that finds fewer than
 * half of them plus one live ("at least 2 live replicas required, could only find 1", ring/replication_strategy.go).
 * The chart's own default is 3, so a single binary whose values drop replication_factor: 1 answers every push of
 * Alloy with 500 and stores no log, with every pod Ready. Judged on the rendered config.yaml and the rendered
 * workloads that run the ingester module (-target all, write or ingester); an autoscaled one, a zone-aware ring, or a
 * factor Loki reads from its environment is not judged.
 */
import { dig } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import type { CheckContext, FailurePlace } from '../../model/checks/kit.ts';
import type { Path } from '../../model/core/positions.ts';
import { scaledKey } from '../../model/core/workloads.ts';
import { autoscaledWorkloads } from '../../model/cluster/pod-templates.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { lokiContainers } from '../../model/loki/config.ts';

/** Loki's -common.replication-factor default. */
const DEFAULT_FACTOR = 3;
/** The -target values whose modules include the ingester (Loki's modules: All and Write depend on Ingester). */
const INGESTING = new Set(['all', 'write', 'ingester']);
const FACTOR_PATH = ['common', 'replication_factor'];

/** The targets a Loki container runs: its -target flag's comma-separated modules, `all` where it sets none. */
function targetsOf(args: unknown): string[] {
  const flags = Array.isArray(args) ? args.map((a) => scalarText(a)) : [];
  const given = flags.map((a, i) => (/^--?target=/.test(a) ? a.replace(/^--?target=/, '') : /^--?target$/.test(a) ? (flags[i + 1] ?? '') : undefined));
  const last = given.filter((t) => t !== undefined).at(-1);
  return (last ?? 'all').split(',').map((t) => t.trim());
}

/** How many pods of the app's rendered Loki workloads run the ingester, or why that is not known. */
function ingesters(ctx: CheckContext, app: string): { count: number; names: string[] } | { unknown: string } {
  const scaled = autoscaledWorkloads(ctx.repo, ctx.resources);
  let count = 0;
  const names: string[] = [];
  for (const { resource, c } of lokiContainers(ctx.resources, app)) {
    if (!targetsOf(c.container.args).some((t) => INGESTING.has(t))) continue;
    if (scaled.has(scaledKey(namespaceOrDestination(ctx.repo, resource) ?? '', resource.kind, resource.name)))
      return { unknown: `${resource.kind} ${resource.name} is autoscaled` };
    const replicas = dig(resource.object, ['spec', 'replicas']) ?? 1;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas)) return { unknown: `${resource.kind} ${resource.name}'s replicas are not a number` };
    count += replicas;
    names.push(`${resource.kind} ${resource.name} (${replicas})`);
  }
  return { count, names };
}

/** Judges the ring of the app's ingesters against the decoded config.yaml; `where` places a path of the file on the values line that wrote it. */
export function judgeLokiRing(ctx: CheckContext, app: string, config: unknown, where: (path: Path) => FailurePlace): void {
  const written = dig(config, FACTOR_PATH);
  // null: a value Loki expands from its environment (or a YAML null): not judged here.
  if (written === null || dig(config, ['ingester', 'lifecycler', 'ring', 'zone_awareness_enabled']) === true) return;
  const factor = written === undefined ? DEFAULT_FACTOR : written;
  if (typeof factor !== 'number' || !Number.isInteger(factor) || factor < 1) return;
  const ring = ingesters(ctx, app);
  const needed = Math.floor(factor / 2) + 1;
  if ('unknown' in ring) {
    if (needed > 1)
      ctx.notJudged(where(FACTOR_PATH), `Loki's ring needs ${needed} live ingesters for a push, and ${ring.unknown}: whether it has them is not judged`);
    return;
  }
  if (ring.count === 0 || ring.count >= needed) return;
  ctx.fail(
    where(FACTOR_PATH),
    `Loki replicates each stream to ${factor} ingesters (common.replication_factor${written === undefined ? ", Loki's default" : ''}), and the ring has ${ring.count} (${ring.names.join(', ')}): dskit refuses every push that finds fewer than ${needed} live ("at least ${needed} live replicas required, could only find ${ring.count}"), so every push of the log shippers gets 500 and no log is stored, with every pod Ready`,
    `set loki.commonConfig.replication_factor to at most the ingesters that run (1 for a single binary), or run ${needed} of them`,
  );
}
