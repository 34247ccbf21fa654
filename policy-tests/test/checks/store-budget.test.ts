/**
 * secret-store-budget beyond the mutation list: Go durations as the operator reads them, the policies that never
 * refresh, an ExternalSecret with no interval (the operator's 1h), and a store the facts give no limit.
 */
import { describe, expect, it } from 'vitest';
import { storeBudgetCheck } from '../../checks/closure/store-budget.ts';
import { goDurationSeconds } from '../../model/core/time.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { findFactsResource, readClusterFacts } from '../../model/repository/cluster-facts.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

/** An ExternalSecret reading `refs` remote refs of `store` with the spec fields given. */
const externalSecret = (name: string, refs: number, spec: Record<string, unknown>, store = 'homelab'): Resource =>
  ({
    ...repo.resources[0]!,
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    name,
    namespace: 'media',
    object: {
      apiVersion: 'external-secrets.io/v1',
      kind: 'ExternalSecret',
      metadata: { name, namespace: 'media' },
      spec: {
        secretStoreRef: { kind: 'ClusterSecretStore', name: store },
        data: Array.from({ length: refs }, (_, i) => ({ secretKey: `k${i}`, remoteRef: { key: 'item', property: `p${i}` } })),
        ...spec,
      },
    },
  }) as Resource;

const judge = (...extra: Resource[]) =>
  runChecks({ ...repo, resources: [...repo.resources, ...extra] }, [storeBudgetCheck]).findings.map((f) => `${f.severity ?? 'error'}: ${f.message}`);

describe('secret-store-budget beyond the mutation list', () => {
  it('reads Go durations as the operator does', () => {
    expect([goDurationSeconds('1h'), goDurationSeconds('24h'), goDurationSeconds('1h30m'), goDurationSeconds('90s'), goDurationSeconds('0')]).toEqual([
      3600, 86400, 5400, 90, 0,
    ]);
    expect([goDurationSeconds('1 hour'), goDurationSeconds('1d'), goDurationSeconds('')]).toEqual([undefined, undefined, undefined]);
  });

  it("counts an ExternalSecret with no interval at the operator's 1h, and passes the repository at 24h", () => {
    expect(judge()).toEqual([]);
    // 21 refs with no interval: 504 reads a day with the repository's own, past half of 1,000.
    expect(judge(externalSecret('x', 21, {}))).toEqual([
      expect.stringMatching(/^error: the ExternalSecrets read ClusterSecretStore\/homelab about \d+ times a day \(the most: x 504/),
    ]);
    // A null is pruned before the CRD's default (1h0m0s) applies: counted as unset, not said unreadable.
    expect(judge(externalSecret('x', 21, { refreshInterval: null }))).toEqual([expect.stringMatching(/\(the most: x 504/)]);
  });

  it('counts nothing for an ExternalSecret that never refreshes, nor one of a store the facts give no limit', () => {
    for (const spec of [{ refreshPolicy: 'CreatedOnce' }, { refreshPolicy: 'OnChange' }, { refreshInterval: '0' }])
      expect(judge(externalSecret('x', 30, spec))).toEqual([]);
    expect(judge(externalSecret('x', 30, { refreshInterval: '1m' }, 'elsewhere'))).toEqual([]);
  });

  it('says not judged for an interval that is no duration', () => {
    expect(judge(externalSecret('x', 1, { refreshInterval: 'daily' }))).toEqual([
      'not-judged: ExternalSecret x: refreshInterval daily is no duration, so its reads of its store are not counted',
    ]);
  });
});

describe('the secretStores cluster fact', () => {
  const withStores = (secretStores: string) => {
    const facts = findFactsResource(repo.resources)!;
    return readClusterFacts({ ...facts, object: { ...facts.object, data: { ...(facts.object.data as object), secretStores } } });
  };

  it("reads the repository's store and its limit", () => {
    expect([...repo.facts!.secretStores]).toEqual([['ClusterSecretStore/homelab', { dailyRequests: 1000, reason: expect.stringContaining('1Password') }]]);
  });

  it('refuses an entry without a kind of store, a positive daily limit or a reason', () => {
    for (const entry of [
      '{kind: Vault, name: a, dailyRequests: 10, reason: r}',
      '{kind: SecretStore, name: a, dailyRequests: 0, reason: r}',
      '{kind: SecretStore, name: a, dailyRequests: 10}',
    ])
      expect(withStores(`- ${entry}`).problems).toEqual([
        { key: 'secretStores', message: expect.stringMatching(/^secretStores entry 1: must be a YAML list of \{kind, name, dailyRequests, reason\}/) },
      ]);
    expect(withStores('a: b').problems).toEqual([{ key: 'secretStores', message: expect.stringMatching(/^cluster fact "secretStores" must be a YAML list/) }]);
  });
});
