/** Running the real tools (sqlite3, psql, pg_dump, zstd, restic, talosctl...) with one-line errors. */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
}

/** Runs `command` and returns its trimmed stdout; throws an Error whose message is the tool's first stderr line. */
export function run(command: string, args: readonly string[], o: RunOptions = {}): string {
  const options: ExecFileSyncOptions = { env: o.env, input: o.input, stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 };
  try {
    return (execFileSync(command, args, options) as Buffer).toString('utf8').trim();
  } catch (err) {
    throw new Error(`${command}: ${toolError(err)}`);
  }
}

/** The first meaningful line a failed tool printed (stderr first), or the spawn error. */
export function toolError(err: unknown): string {
  const e = err as { stderr?: Buffer | string; stdout?: Buffer | string; code?: string; message: string };
  if (e.code === 'ENOENT') return 'not installed (not found on PATH)';
  const text = `${e.stderr?.toString() ?? ''}\n${e.stdout?.toString() ?? ''}`.trim();
  return (text || e.message).split('\n').find((l) => l.trim())!.trim();
}

/** The message of any thrown value, as one line. */
export const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
