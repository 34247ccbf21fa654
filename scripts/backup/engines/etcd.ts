/**
 * etcd of the Talos control plane. The copy is `talosctl etcd snapshot` (the
 * Talos API streams a consistent snapshot from a control-plane node named by
 * TALOS_NODE, reached directly as its own endpoint); the integrity check is `etcdutl snapshot status` (it reads the
 * bolt database and its hash). The sentinel is a ConfigMap `backup-sentinel`
 * in the target's namespace, written through the Kubernetes API, which stores
 * it in etcd. The drill restores the snapshot into a scratch data directory,
 * starts a throwaway etcd on loopback and reads the ConfigMap's key back.
 * A restore does not swap anything: etcd comes back by re-bootstrapping the
 * control plane from the verified snapshot (`talosctl bootstrap --recover-from`),
 * which the operator runs after resetting etcd on the control-plane nodes.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { which } from 'zx';
import { run } from '../../lib/exec.ts';
import { startLoopbackEtcd } from './loopback-etcd.ts';
import { findSentinelText, sentinelText } from '../sentinel.ts';
import type { EngineContext, Engine, EtcdTarget } from './types.ts';

export const SENTINEL_CONFIGMAP = 'backup-sentinel';
const tool = (ctx: EngineContext, name: 'talosctl' | 'kubectl' | 'etcdctl' | 'etcd') => ctx.env[name.toUpperCase()] || name;
const etcdctl = (ctx: EngineContext, args: string[], signal?: AbortSignal) =>
  run(tool(ctx, 'etcdctl'), args, { env: { ...ctx.env, ETCDCTL_API: '3' }, signal });

/**
 * What reads and restores a snapshot file, named in every message. etcd 3.5 moved `snapshot status` and `snapshot
 * restore` to etcdutl and 3.6 removed them from etcdctl, so etcdutl runs wherever there is one: in the backup image,
 * the cluster's own etcd. Only an etcd older than 3.5 (Debian 12's 3.4) has etcdctl alone, with the same arguments.
 */
function snapshotTool(ctx: EngineContext): { name: string; bin: string; run: (args: string[]) => Promise<string> } {
  const etcdutl = ctx.env.ETCDUTL || which.sync('etcdutl', { nothrow: true, path: ctx.env.PATH ?? '' });
  if (etcdutl) return { name: 'etcdutl', bin: etcdutl, run: (args) => run(etcdutl, args, { env: ctx.env }) };
  return { name: 'etcdctl', bin: tool(ctx, 'etcdctl'), run: (args) => etcdctl(ctx, args) };
}
const sentinelKey = (namespace: string) => `/registry/configmaps/${namespace}/${SENTINEL_CONFIGMAP}`;

function talosNode(ctx: EngineContext): string {
  const node = ctx.env.TALOS_NODE;
  if (!node) throw new Error('TALOS_NODE is not set: name a control-plane node for talosctl');
  return node;
}

/** How long the throwaway etcd may take to serve: generous, since a drill on a busy node is slow, not broken. */
const DRILL_ETCD_READY_MS = 120_000;

/** How often the drill's etcd is started on fresh ports when another process took one of them first. */
const DRILL_ETCD_STARTS = 3;

/**
 * Reads one key from a snapshot: restore it into `dir`, serve it on loopback for a moment (loopback-etcd.ts), get
 * the key, stop. The peer URL is written into the restored data, so each start on fresh ports is a fresh restore.
 */
async function readKeyFromSnapshot(ctx: EngineContext, snapshot: string, dir: string, key: string): Promise<string> {
  const restorer = snapshotTool(ctx);
  const etcd = await startLoopbackEtcd({
    bin: tool(ctx, 'etcd'),
    env: ctx.env,
    name: 'drill',
    what: 'the restored etcd',
    readyMs: DRILL_ETCD_READY_MS,
    starts: DRILL_ETCD_STARTS,
    async prepare(start, peerUrl) {
      const dataDir = join(dir, `etcd-data-${start}`);
      const flags = ['--data-dir', dataDir, '--name', 'drill', '--initial-cluster', `drill=${peerUrl}`, '--initial-advertise-peer-urls', peerUrl];
      await restorer.run(['snapshot', 'restore', snapshot, ...flags]);
      return dataDir;
    },
    ready: (endpoint, signal) => etcdctl(ctx, [`--endpoints=${endpoint}`, '--command-timeout=2s', 'get', key, '--print-value-only'], signal),
  });
  // Wait for it to go, so the scratch folder is removed after etcd let go of it.
  await etcd.stop();
  return etcd.answer;
}

export const etcdEngine: Engine<EtcdTarget> = {
  scalesApp: false,
  fileNames: () => ['etcd.snapshot'],
  async writeSentinel(target, sentinel, ctx) {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: SENTINEL_CONFIGMAP, namespace: target.namespace },
      data: { sentinel: sentinelText(sentinel) },
    };
    await run(tool(ctx, 'kubectl'), ['apply', '-f', '-'], { env: ctx.env, input: JSON.stringify(configMap) });
  },
  async liveSentinel(target, ctx) {
    try {
      return findSentinelText(
        await run(tool(ctx, 'kubectl'), ['-n', target.namespace, 'get', 'configmap', SENTINEL_CONFIGMAP, '-o', 'jsonpath={.data.sentinel}'], { env: ctx.env }),
      );
    } catch {
      return undefined; // not reachable from here: the sentinel ledger speaks instead
    }
  },
  async dump(_target, work, ctx) {
    const file = join(work, etcdEngine.fileNames(_target)[0]!);
    // Through the node itself (-e), whatever endpoints the talosconfig lists: the job's network policy lets it reach
    // that one node's API alone, and an endpoint elsewhere (a VIP, another control-plane node) would be dropped.
    const node = talosNode(ctx);
    await run(tool(ctx, 'talosctl'), ['-e', node, '-n', node, 'etcd', 'snapshot', file], { env: ctx.env });
    return [file];
  },
  async verify(file, ctx) {
    const status = snapshotTool(ctx);
    try {
      const read = JSON.parse(await status.run(['snapshot', 'status', file, '-w', 'json'])) as { totalKey?: number };
      return (read.totalKey ?? 0) > 0 ? undefined : 'the snapshot holds no keys';
    } catch (err) {
      // run's message starts with the tool as it was called: the tool's own words follow.
      const message = (err as Error).message;
      return `fails ${status.name} snapshot status: ${message.startsWith(`${status.bin}: `) ? message.slice(status.bin.length + 2) : message}`;
    }
  },
  async restoredSentinel(target, files, scratch, ctx) {
    const dir = join(scratch, 'etcd-drill');
    mkdirSync(dir, { recursive: true });
    return findSentinelText(await readKeyFromSnapshot(ctx, [...files.values()][0]!, dir, sentinelKey(target.namespace)));
  },
  async swapIn(_target, files, ctx) {
    const snapshot = [...files.values()][0]!;
    const out = resolve(ctx.env.RESTORE_OUT_DIR || '.', `restored-${basename(snapshot)}`);
    copyFileSync(snapshot, out);
    ctx.log(
      `verified snapshot written to ${out}; recover with: talosctl -n <control-plane node> bootstrap --recover-from=${out} (after resetting etcd on the control-plane nodes, see the README)`,
    );
    return [{ replaced: out }];
  },
};
