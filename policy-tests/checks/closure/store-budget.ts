/**
 * secret-store-budget: the ExternalSecrets' periodic reads fit what the store's backend allows a day. The External
 * Secrets operator re-reads every remote ref of an ExternalSecret at each refresh (refreshInterval, 1h when unset,
 * under the default Periodic policy), and a 1Password account whose service accounts pass their daily limit
 * (1,000 requests for an individual or Families account) is refused until the window passes: every ExternalSecret
 * then fails to sync, a rotated or new secret never arrives, and the API server never says.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { goDurationSeconds } from '../../model/core/time.ts';

/** The operator's default refresh interval (ExternalSecret spec.refreshInterval), in seconds. */
const DEFAULT_REFRESH_SECONDS = 3600;
const DAY_SECONDS = 86_400;

/** An ExternalSecret's reads of its store a day: each remote ref once per refresh; none when it never refreshes. */
function readsPerDay(es: Resource): { reads: number; store: string } | { unreadable: string } {
  const spec = (es.object.spec ?? {}) as Record<string, unknown>;
  const ref = (spec.secretStoreRef ?? {}) as { kind?: string; name?: string };
  const store = `${ref.kind ?? 'SecretStore'}/${ref.name ?? ''}`;
  const refs = (Array.isArray(spec.data) ? spec.data.length : 0) + (Array.isArray(spec.dataFrom) ? spec.dataFrom.length : 0);
  if (spec.refreshPolicy === 'CreatedOnce' || spec.refreshPolicy === 'OnChange') return { reads: 0, store };
  // A null is pruned before the CRD's default applies (the field is not nullable): unset, as far as the operator sees.
  const interval =
    spec.refreshInterval === undefined || spec.refreshInterval === null ? DEFAULT_REFRESH_SECONDS : goDurationSeconds(scalarText(spec.refreshInterval));
  if (interval === undefined) return { unreadable: `refreshInterval ${scalarText(spec.refreshInterval)} is no duration` };
  return { reads: interval === 0 ? 0 : (refs * DAY_SECONDS) / interval, store };
}

export const storeBudgetCheck: PolicyCheck = {
  id: 'secret-store-budget',
  description:
    "The ExternalSecrets that read a store the cluster facts give a daily limit (secretStores: a 1Password account's service accounts, 1,000 requests a day for an individual or Families account) read it, at one request per remote ref and refresh (refreshInterval, 1h when unset; none under refreshPolicy CreatedOnce or OnChange), at most half that a day: the rest is the margin for retries, a rebuild's first syncs and the owner's own use; past the limit the backend refuses every read until the day's window passes, and no secret syncs (invariants P1).",
  invariants: ['P1'],
  remediation:
    'refresh less often (refreshInterval: 24h, and force one sync when an item changes: kubectl annotate externalsecret <name> force-sync=$(date +%s) --overwrite), read fewer refs, or state the plan the store runs on in the cluster facts (secretStores)',
  reads: { kinds: ['ExternalSecret', 'ClusterSecretStore', 'SecretStore'], renders: true },
  exemptible: false,
  run(ctx) {
    const stores = ctx.repo.facts?.secretStores;
    if (!stores || stores.size === 0) return;
    const byStore = new Map<string, { es: Resource; reads: number }[]>();
    for (const es of ctx.resources.filter((r) => r.kind === 'ExternalSecret')) {
      const read = readsPerDay(es);
      if ('unreadable' in read) {
        ctx.notJudged(
          { resource: es, path: ['spec', 'refreshInterval'] },
          `ExternalSecret ${es.name}: ${read.unreadable}, so its reads of its store are not counted`,
        );
        continue;
      }
      if (stores.has(read.store)) byStore.set(read.store, [...(byStore.get(read.store) ?? []), { es, reads: read.reads }]);
    }
    for (const [key, readers] of byStore) {
      const { dailyRequests, reason } = stores.get(key)!;
      const total = readers.reduce((sum, r) => sum + r.reads, 0);
      if (total <= dailyRequests / 2) continue;
      const [kind, name] = key.split('/') as [string, string];
      const store = ctx.resources.find((r) => r.kind === kind && r.name === name);
      const heaviest = [...readers]
        .sort((a, b) => b.reads - a.reads)
        .slice(0, 3)
        .map((r) => `${r.es.name} ${Math.round(r.reads)}`)
        .join(', ');
      const message = `the ExternalSecrets read ${key} about ${Math.round(total)} times a day (the most: ${heaviest}), more than half the ${dailyRequests} requests a day its backend allows (${reason}): retries and a rebuild's first syncs take it past the limit, and then no secret syncs`;
      if (store)
        ctx.fail({ resource: store, path: dig(store.object, ['spec', 'provider']) === undefined ? ['metadata', 'name'] : ['spec', 'provider'] }, message);
      else ctx.fail({ resource: readers[0]!.es, path: ['spec', 'secretStoreRef'] }, message);
    }
  },
};
