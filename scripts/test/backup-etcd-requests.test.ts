/**
 * What the etcd target's backup job asks of the cluster, against a real etcd (etcd-harness.ts) and the kubectl and
 * talosctl contract fakes: the Talos API reached through TALOS_NODE alone, and exactly the kubectl calls whose API
 * requests the image's facts list (what program-api-authorized authorizes). The backup itself: backup-etcd.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { restoreTest } from '../backup/restore.ts';
import { runBackup } from '../backup/run.ts';
import { useEtcdHarness } from './etcd-harness.ts';
import { parse } from 'yaml';
import { kubectlRequests } from '../../test-support/fakes/kubectl-core.ts';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import type { ApiRequests } from '../../policy-tests/model/apps/api-requests.ts';

const h = await useEtcdHarness();

describe.skipIf(h.skip)("the etcd backup's requests", () => {
  it("reaches the Talos API through TALOS_NODE itself, the one address the job's network policy opens", async () => {
    const log = join(h.dir, 'endpoints-of-this-test.log');
    await runBackup(h.target, { ...h.o, env: { ...h.o.env, FAKE_TALOS_ENDPOINTS_LOG: log } });
    expect(readFileSync(log, 'utf8')).toBe('10.0.0.10\n');
  });

  // The gate authorizes these requests for the jobs' ServiceAccounts (program-api-authorized): they must be what kubectl sends.
  it("makes exactly the kubectl calls whose requests the image's facts list, for the backup and for the drill", async () => {
    const state = join(h.dir, 'kubectl-state-of-this-test.json');
    writeFileSync(state, '{}');
    const env = { ...h.o.env, FAKE_KUBECTL_STATE: state };
    await h.etcdctl('del', '/registry/configmaps/backups/backup-sentinel');
    // The first backup creates the sentinel, the next patches it; the drill reads it.
    for (let i = 0; i < 2; i++) await runBackup(h.target, { ...h.o, env });
    expect(await restoreTest(h.target, { ...h.o, env })).toEqual([]);
    const calls = (JSON.parse(readFileSync(state, 'utf8')) as { calls: { argv: string[]; stdin: string }[] }).calls;
    expect(calls.map((c) => (c.argv[0] === '-n' ? c.argv[2] : c.argv[0]))).toEqual(['apply', 'apply', 'get']);
    const facts = parse(readFileSync(join(REPO_ROOT, 'apps/platform/backups/facts/images.yaml'), 'utf8')) as { images: { apiRequests?: ApiRequests[] }[] };
    const listed = (args: string) => new Set(facts.images[0]!.apiRequests!.find((p) => p.args?.join(' ') === args)!.requests);
    expect(new Set([...kubectlRequests(calls[0]!.argv, calls[0]!.stdin, false), ...kubectlRequests(calls[1]!.argv, calls[1]!.stdin, true)])).toEqual(
      listed('backup etcd'),
    );
    expect(new Set(kubectlRequests(calls[2]!.argv, calls[2]!.stdin, true))).toEqual(listed('restore-test'));
  });
});
