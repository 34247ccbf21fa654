/**
 * etcd of the Talos control plane. The copy is `talosctl etcd snapshot` (the
 * Talos API streams a consistent snapshot from a control-plane node named by
 * TALOS_NODE); the integrity check is `etcdctl snapshot status` (it reads the
 * bolt database and its hash). The sentinel is a ConfigMap `backup-sentinel`
 * in the target's namespace, written through the Kubernetes API, which stores
 * it in etcd. The drill restores the snapshot into a scratch data directory,
 * starts a throwaway etcd on loopback and reads the ConfigMap's key back.
 * A restore does not swap anything: etcd comes back by re-bootstrapping the
 * control plane from the verified snapshot (`talosctl bootstrap --recover-from`),
 * which the operator runs after resetting etcd on the control-plane nodes.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { run } from '../../lib/exec.ts';
import { findSentinelText, sentinelText } from '../sentinel.ts';
import type { EngineContext, Engine, EtcdTarget } from './types.ts';

export const SENTINEL_CONFIGMAP = 'backup-sentinel';
const tool = (ctx: EngineContext, name: 'talosctl' | 'kubectl' | 'etcdctl' | 'etcd') => ctx.env[name.toUpperCase()] || name;
const etcdctl = (ctx: EngineContext, args: string[]) => run(tool(ctx, 'etcdctl'), args, { env: { ...ctx.env, ETCDCTL_API: '3' } });
const sentinelKey = (namespace: string) => `/registry/configmaps/${namespace}/${SENTINEL_CONFIGMAP}`;

function talosNode(ctx: EngineContext): string {
  const node = ctx.env.TALOS_NODE;
  if (!node) throw new Error('TALOS_NODE is not set: name a control-plane node for talosctl');
  return node;
}

/**
 * Free TCP ports on loopback, as the kernel hands them out: held open together until all are known, so no two are
 * the same port (one taken, freed, then taken again would be).
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer().listen(0, '127.0.0.1'));
  await Promise.all(servers.map((s) => once(s, 'listening')));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** The arguments of a one-member etcd named `name` serving `dataDir` on loopback, on a client and a peer port. */
export function loopbackEtcdArgs(name: string, dataDir: string, client: number, peer: number): string[] {
  const [clientUrl, peerUrl] = [`http://127.0.0.1:${client}`, `http://127.0.0.1:${peer}`];
  return [
    ...['--name', name, '--data-dir', dataDir],
    ...['--listen-client-urls', clientUrl, '--advertise-client-urls', clientUrl],
    ...['--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl, '--initial-cluster', `${name}=${peerUrl}`],
  ];
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/** How long the throwaway etcd may take to serve: generous, since a drill on a busy node is slow, not broken. */
const DRILL_ETCD_READY_MS = 120_000;

/** How often the drill's etcd is started on fresh ports when another process took one of them first. */
const DRILL_ETCD_STARTS = 3;

/**
 * Reads one key from a snapshot: restore it into `dir`, serve it on loopback for a moment, get the key, stop. The
 * ports are free when picked, but another process may bind one before etcd does (the peer port is written into the
 * restored data, so a start on other ports is a fresh restore): etcd then exits at once saying so, and the drill
 * starts again, up to three times. Any other early exit fails the drill with etcd's own last line.
 */
async function readKeyFromSnapshot(ctx: EngineContext, snapshot: string, dir: string, key: string): Promise<string> {
  for (let start = 1; ; start++) {
    const served = await serveRestored(ctx, snapshot, join(dir, `etcd-data-${start}`), key);
    if ('value' in served) return served.value;
    if (!/address already in use/.test(served.said) || start === DRILL_ETCD_STARTS) {
      throw new Error(`the restored etcd did not serve: ${served.said.trim().split('\n').at(-1) || served.failure}`);
    }
  }
}

/** One restore of `snapshot` into `dataDir` and one etcd on it until `key` is read, or what etcd said if it could not serve. */
async function serveRestored(
  ctx: EngineContext,
  snapshot: string,
  dataDir: string,
  key: string,
): Promise<{ value: string } | { said: string; failure: string }> {
  const [client, peer] = (await freePorts(2)) as [number, number];
  const peerUrl = `http://127.0.0.1:${peer}`;
  const restoreFlags = ['--data-dir', dataDir, '--name', 'drill', '--initial-cluster', `drill=${peerUrl}`, '--initial-advertise-peer-urls', peerUrl];
  await etcdctl(ctx, ['snapshot', 'restore', snapshot, ...restoreFlags]);
  // A server for the length of one read, not a tool run to completion: spawned directly so it can be killed and awaited.
  const server = spawn(tool(ctx, 'etcd'), loopbackEtcdArgs('drill', dataDir, client, peer), { stdio: ['ignore', 'ignore', 'pipe'], env: ctx.env });
  let said = '';
  server.stderr!.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-4000)));
  // Closed once it has exited and its last words are read; a failed spawn closes it too, with the error.
  const closed = once(server, 'close').then(
    () => undefined,
    (err: Error) => err,
  );
  try {
    const endpoints = `--endpoints=http://127.0.0.1:${client}`;
    const deadline = Date.now() + DRILL_ETCD_READY_MS;
    // Ready when it answers: each failed get is a poll, until it serves, exits, or the deadline passes. An exit is
    // seen at once, not after the get in flight gives up (it is left to its own timeout, its outcome handled).
    for (;;) {
      const get = etcdctl(ctx, [endpoints, '--command-timeout=2s', 'get', key, '--print-value-only']).then(
        (value) => ({ value }),
        (err: Error) => ({ failure: err.message }),
      );
      const first = await Promise.race([get, closed.then((err) => ({ exited: err?.message ?? 'etcd exited' }))]);
      if ('value' in first) return first;
      if ('exited' in first) return { said, failure: first.exited };
      if (Date.now() > deadline) return { said: '', failure: first.failure };
      await delay(50);
    }
  } finally {
    // Wait for it to go, so the scratch folder is removed after etcd let go of it.
    if (server.exitCode === null && server.signalCode === null && server.pid !== undefined) server.kill('SIGKILL');
    await closed;
  }
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
    await run(tool(ctx, 'talosctl'), ['-n', talosNode(ctx), 'etcd', 'snapshot', file], { env: ctx.env });
    return [file];
  },
  async verify(file, ctx) {
    try {
      const status = JSON.parse(await etcdctl(ctx, ['snapshot', 'status', file, '-w', 'json'])) as { totalKey?: number };
      return (status.totalKey ?? 0) > 0 ? undefined : 'the snapshot holds no keys';
    } catch (err) {
      return `fails etcdctl snapshot status: ${(err as Error).message.replace(/^\S*etcdctl: /, '')}`;
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
