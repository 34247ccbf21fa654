/**
 * Running the real tools (sqlite3, psql, pg_dump, zstd, restic, talosctl...)
 * through zx's `$`: its quoting of every argument, its process handling, and
 * errors folded into one line that names the tool and what it said.
 */
import { $, ProcessOutput } from 'zx';
import { oneLine } from './command.ts';

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** The directory the tool runs in (Renovate's local platform reads the repository it is started in). */
  cwd?: string;
}

/** Runs `command` and resolves to its trimmed stdout; rejects with an Error whose message is the tool's first stderr line. */
export async function run(command: string, args: readonly string[], o: RunOptions = {}): Promise<string> {
  // No input: stdin is closed, so a tool that would wait for a terminal fails at once instead of hanging a CronJob.
  const stdio = o.input === undefined ? (['ignore', 'pipe', 'pipe'] as const) : (['pipe', 'pipe', 'pipe'] as const);
  try {
    const out = await $({ env: o.env ?? process.env, cwd: o.cwd, input: o.input, quiet: true, verbose: false, stdio: [...stdio] })`${command} ${args}`;
    return out.stdout.trim();
  } catch (err) {
    throw new Error(`${command}: ${toolError(err)}`);
  }
}

/** The first meaningful line a failed tool printed (stderr first), or why it did not start. */
export function toolError(err: unknown): string {
  if (err instanceof ProcessOutput) {
    // zx runs tools through bash, which reports a missing command with status 127.
    if (err.exitCode === 127 && /not found|No such file/.test(err.stderr)) return 'not installed (not found on PATH)';
    const text = `${err.stderr}\n${err.stdout}`.trim();
    return text ? text.split('\n').find((l) => l.trim())!.trim() : `exited with status ${err.exitCode ?? err.signal}`;
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
  try {
    const out = await $({ env: o.env ?? process.env, cwd: o.cwd, quiet: true, verbose: false, nothrow: true, stdio: ['ignore', 'pipe', 'pipe'] })`${command} ${args}`;
    if (out.exitCode === 127 && /not found|No such file/.test(out.stderr)) throw new Error('not installed (not found on PATH)');
    return { exitCode: out.exitCode ?? 1, stdout: out.stdout, stderr: out.stderr };
  } catch (err) {
    throw new Error(`${command}: ${toolError(err)}`);
  }
}
