/**
 * Running the real tools (sqlite3, psql, pg_dump, zstd, restic, talosctl...)
 * through zx's `$`: its quoting of every argument, its process handling, and
 * errors folded into one line that names the tool and what it said.
 */
import type { Readable } from 'node:stream';
import { $, ProcessOutput } from 'zx';
import { oneLine } from './command.ts';

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** Written to the tool's stdin; a stream is piped as it comes (a question asked after the tool has started). */
  input?: string | Readable;
  /** The directory the tool runs in (Renovate's local platform reads the repository it is started in). */
  cwd?: string;
  /** Killed (SIGKILL) after this long; default TOOL_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Killed when this aborts: the caller no longer wants the answer (the server it asks has exited). */
  signal?: AbortSignal;
}

/**
 * A hang guard for every tool, not a speed limit: a restic backup or prune of
 * a large repository over a slow link can take hours, a hung one never ends.
 * A caller that knows its tool is quick passes less.
 */
export const TOOL_TIMEOUT_MS = 6 * 60 * 60 * 1000;

const limits = (o: RunOptions) => ({ timeout: o.timeoutMs ?? TOOL_TIMEOUT_MS, timeoutSignal: 'SIGKILL' as const });

/** The tool's own error, or that it ran out of time. */
function failure(command: string, err: unknown, o: RunOptions, started: number): Error {
  const limit = o.timeoutMs ?? TOOL_TIMEOUT_MS;
  if (err instanceof ProcessOutput && err.signal === 'SIGKILL' && Date.now() - started >= limit)
    return new Error(`${command}: timed out after ${limit >= 1000 ? `${Math.round(limit / 1000)} s` : `${limit} ms`} (killed)`);
  return new Error(`${command}: ${toolError(err)}`);
}

/** Runs `command` and resolves to its trimmed stdout; rejects with an Error whose message is the tool's first stderr line. */
export async function run(command: string, args: readonly string[], o: RunOptions = {}): Promise<string> {
  // No input: stdin is closed, so a tool that would wait for a terminal fails at once instead of hanging a CronJob.
  const stdio = o.input === undefined ? (['ignore', 'pipe', 'pipe'] as const) : (['pipe', 'pipe', 'pipe'] as const);
  const started = Date.now();
  try {
    const out = await $({
      env: o.env ?? process.env,
      cwd: o.cwd,
      input: o.input,
      quiet: true,
      verbose: false,
      stdio: [...stdio],
      signal: o.signal,
      ...limits(o),
    })`${command} ${args}`;
    return out.stdout.trim();
  } catch (err) {
    throw failure(command, err, o, started);
  }
}

/** The first meaningful line a failed tool printed (stderr first), or why it did not start. */
export function toolError(err: unknown): string {
  if (err instanceof ProcessOutput) {
    // zx runs tools through bash, which reports a missing command with status 127.
    if (err.exitCode === 127 && /not found|No such file/.test(err.stderr)) return 'not installed (not found on PATH)';
    const text = `${err.stderr}\n${err.stdout}`.trim();
    return text
      ? text
          .split('\n')
          .find((l) => l.trim())!
          .trim()
      : `exited with status ${err.exitCode ?? err.signal}`;
  }
  const e = err as { code?: string; message?: string };
  if (e.code === 'ENOENT') return 'not installed (not found on PATH)';
  return oneLine(err);
}

export { oneLine } from './command.ts';

export interface Finished {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` to the end, whatever its exit status: for a tool whose failure is an answer to read (a validator), not an error. */
export async function runToEnd(command: string, args: readonly string[], o: RunOptions = {}): Promise<Finished> {
  const started = Date.now();
  let out: ProcessOutput;
  try {
    out = await $({
      env: o.env ?? process.env,
      cwd: o.cwd,
      input: o.input,
      quiet: true,
      verbose: false,
      nothrow: true,
      // No input: stdin is /dev/null, as in `run`.
      stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...limits(o),
    })`${command} ${args}`;
  } catch (err) {
    throw failure(command, err, o, started);
  }
  // nothrow: a kill by the time limit comes back as an output, not an error.
  if (out.signal === 'SIGKILL' && Date.now() - started >= (o.timeoutMs ?? TOOL_TIMEOUT_MS)) throw failure(command, out, o, started);
  if (out.exitCode === 127 && /not found|No such file/.test(out.stderr)) throw new Error(`${command}: not installed (not found on PATH)`);
  return { exitCode: out.exitCode ?? 1, stdout: out.stdout, stderr: out.stderr };
}
