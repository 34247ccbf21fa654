/**
 * A one-member etcd on loopback, for as long as a caller needs it: the restore drill's throwaway server (serve a
 * restored snapshot, read one key, stop) and the tests' etcd (serve for a whole test file). Its two ports are free
 * when picked, but another process may bind one before etcd does; etcd then exits at once saying `address already
 * in use`, and it is started again on fresh ports, up to a few times. Any other early exit is a failure with
 * etcd's own last line.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { freePorts } from '../../lib/free-ports.ts';

/** The arguments of a one-member etcd named `name` serving `dataDir` on loopback, on a client and a peer port. */
function loopbackEtcdArgs(name: string, dataDir: string, client: number, peer: number): string[] {
  const [clientUrl, peerUrl] = [`http://127.0.0.1:${client}`, `http://127.0.0.1:${peer}`];
  return [
    ...['--name', name, '--data-dir', dataDir],
    ...['--listen-client-urls', clientUrl, '--advertise-client-urls', clientUrl],
    ...['--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl, '--initial-cluster', `${name}=${peerUrl}`],
  ];
}

export interface LoopbackEtcdOptions<T> {
  /** The etcd binary. */
  bin: string;
  env?: NodeJS.ProcessEnv;
  /** The member's name (a restore writes it into the data, so the server must carry the same). */
  name: string;
  /** What the error calls it: "the restored etcd did not serve: ...". */
  what: string;
  /**
   * The data folder for one start, made ready for its ports: a fresh restore of a snapshot (the peer URL is written
   * into the restored data, so a start on other ports needs its own), or an empty folder.
   */
  prepare(start: number, peerUrl: string): Promise<string>;
  /**
   * Resolves once etcd serves, with what the caller wanted of it; each rejection is a poll. `signal` aborts when
   * etcd exits while the poll runs: its answer is then no longer wanted, and the poll stops at once.
   */
  ready(endpoint: string, signal: AbortSignal): Promise<T>;
  /** How long etcd may take to serve: generous, since a busy machine is slow, not broken. */
  readyMs: number;
  /** How many starts on fresh ports, when another process bound a port first. */
  starts: number;
}

export interface LoopbackEtcd<T> {
  endpoint: string;
  /** What `ready` resolved with. */
  answer: T;
  /** Kills it and waits until it has gone, so its data folder can be removed. */
  stop(): Promise<void>;
}

/** One start: etcd on fresh ports until it serves, or why not (what it said when it exited, or the last poll's error). */
async function startOnce<T>(o: LoopbackEtcdOptions<T>, start: number): Promise<LoopbackEtcd<T> | { said: string; failure: string }> {
  const [client, peer] = (await freePorts(2)) as [number, number];
  const dataDir = await o.prepare(start, `http://127.0.0.1:${peer}`);
  // A server for as long as the caller needs it, not a tool run to completion: spawned directly so it can be killed and awaited.
  const server = spawn(o.bin, loopbackEtcdArgs(o.name, dataDir, client, peer), { stdio: ['ignore', 'ignore', 'pipe'], env: o.env });
  let said = '';
  server.stderr!.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-4000)));
  // Closed once it has exited and its last words are read; a failed spawn closes it too, with the error.
  const closed = once(server, 'close').then(
    () => undefined,
    (err: Error) => err,
  );
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null && server.pid !== undefined) server.kill('SIGKILL');
    await closed;
  };
  const endpoint = `http://127.0.0.1:${client}`;
  const deadline = Date.now() + o.readyMs;
  // Each failed poll is tried again until it serves, exits, or the deadline passes. An exit is seen at once, and the
  // poll in flight is aborted rather than left to its own timeout.
  for (;;) {
    const inFlight = new AbortController();
    const poll = o.ready(endpoint, inFlight.signal).then(
      (answer) => ({ answer }),
      (err: Error) => ({ failure: err.message }),
    );
    const first = await Promise.race([poll, closed.then((err) => ({ exited: err?.message ?? 'etcd exited' }))]);
    if ('answer' in first) return { endpoint, answer: first.answer, stop };
    if ('exited' in first) {
      inFlight.abort();
      await poll;
      return { said, failure: first.exited };
    }
    if (Date.now() > deadline) {
      await stop();
      return { said: '', failure: first.failure };
    }
    await delay(50);
  }
}

/** etcd serving on loopback, started again on fresh ports when another process took one first; else etcd's own last line. */
export async function startLoopbackEtcd<T>(o: LoopbackEtcdOptions<T>): Promise<LoopbackEtcd<T>> {
  for (let start = 1; ; start++) {
    const started = await startOnce(o, start);
    if ('answer' in started) return started;
    if (!/address already in use/.test(started.said) || start === o.starts)
      throw new Error(`${o.what} did not serve: ${started.said.trim().split('\n').at(-1) || started.failure}`);
  }
}
