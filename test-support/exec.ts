/**
 * Child processes for tests, always asynchronous: a test worker blocked on a
 * child cannot answer its runner, which on a busy machine ends the whole run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { wantedNode } from '../scripts/node-version.mjs';

export interface Finished {
  /** Exit status; null when a signal ended the process. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A hang guard, not a speed limit: the same ten minutes as a test and the static checks; a slow machine never trips it. */
const HANG_GUARD_MS = 10 * 60_000;

export interface ExecOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; without it stdin is closed at once. */
  input?: string | Buffer;
}

/** Runs `command` to completion; resolves with its status and output, never rejects on a non-zero status. */
export function exec(command: string, args: readonly string[], o: ExecOptions = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: o.cwd,
      env: o.env,
      stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: HANG_GUARD_MS,
      killSignal: 'SIGKILL',
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    if (o.input !== undefined) child.stdin!.end(o.input);
  });
}

/** Runs `command` and resolves to its trimmed stdout; rejects with its stderr when it fails. */
export async function output(command: string, args: readonly string[], o: ExecOptions = {}): Promise<string> {
  const r = await exec(command, args, o);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout.trim();
}

/** Whether `command` is installed: it answers one of the usual version flags. */
export async function installed(command: string, flags: readonly string[] = ['--version', 'version']): Promise<boolean> {
  for (const flag of flags) {
    try {
      if ((await exec(command, [flag])).code === 0) return true;
    } catch {
      return false; // ENOENT: not on PATH
    }
  }
  return false;
}

let older: Promise<{ path: string; version: string } | undefined> | undefined;
/**
 * The Node the machine came with, when it is older than .node-version's (scripts/node-version.mjs; the 2-core
 * machine's /usr/bin/node is 20): what a user whose Node is too old runs. Undefined where there is none, or it
 * is not older.
 */
export function olderNode(): Promise<{ path: string; version: string } | undefined> {
  older ??= output('node', ['-p', 'process.execPath + " " + process.versions.node'], { env: { PATH: '/usr/bin:/bin' } }).then(
    (out) => {
      const [path, version] = out.split(' ');
      return Number(version!.split('.')[0]) < wantedNode ? { path: path!, version: version! } : undefined;
    },
    () => undefined, // no node there
  );
  return older;
}

/**
 * Stops a server the test started and waits until it has exited: a server writes its state on a signal (Alertmanager
 * its snapshots, etcd its WAL), so its folder can be removed only after, or the removal races the last write.
 */
export function stopped(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  return exited;
}
