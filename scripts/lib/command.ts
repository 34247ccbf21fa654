/**
 * The one argument layer every operator script runs through, so they all
 * keep the same contract: --help prints usage and exits 0; a wrong or extra
 * argument is one line and exit 2; a failure at run time is one line and
 * exit 1; no stack trace reaches the user. Arguments are parsed by node:util's
 * parseArgs, strictly.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** A wrong argument the body finds itself (exit 2). */
export class UsageError extends Error {}

export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  /** The name the one-line errors start with, as the user typed it (npm run <name>). */
  name: string;
  /** One line: what to type, e.g. "check-hardlinks <share root> --qbittorrent <url>". */
  usage: string;
  /** A few lines on what it does, its environment and exit statuses, for --help. */
  help: string;
  options: O;
  positionals: { min: number; max: number };
  run(args: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] }): Promise<number>;
}

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: CommandIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };

/** Runs a command with `argv`; resolves to its exit status, having printed every error as one line. */
export async function runCommand<O extends ParseArgsOptionsConfig>(spec: CommandSpec<O>, argv: string[], io: CommandIo = processIo): Promise<number> {
  const usage = `usage: ${spec.usage}`;
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${usage}\n\n${spec.help.trim()}\n`);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: spec.options, allowPositionals: true, strict: true });
  } catch (err) {
    io.stderr(`${spec.name}: ${firstLine(err)} (${usage})\n`);
    return 2;
  }
  const { positionals } = parsed;
  if (positionals.length < spec.positionals.min || positionals.length > spec.positionals.max) {
    const what = positionals.length > spec.positionals.max ? `unexpected argument "${positionals[spec.positionals.max]}"` : 'missing argument';
    io.stderr(`${spec.name}: ${what} (${usage})\n`);
    return 2;
  }
  try {
    return await spec.run({ values: parsed.values as never, positionals });
  } catch (err) {
    io.stderr(`${spec.name}: ${describeError(err)}${err instanceof UsageError ? ` (${usage})` : ''}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}

/**
 * For a script whose body runs at the top of its module (a benchmark, a generator): the same contract as
 * runCommand, before any work. --help prints and exits 0; a wrong argument is one line and exit 2; otherwise the
 * parsed arguments come back.
 */
export async function commandArgs<O extends ParseArgsOptionsConfig>(
  spec: Omit<CommandSpec<O>, 'run'>,
  argv: string[] = process.argv.slice(2),
  io: CommandIo = processIo,
): Promise<{ values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] }> {
  let parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] } | undefined;
  const code = await runCommand({ ...spec, run: async (args) => ((parsed = args), 0) }, argv, io);
  if (parsed === undefined) process.exit(code);
  return parsed;
}

/** The message of any thrown value, as one line. */
export const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

// parseArgs appends advice on positionals that does not fit one line.
const firstLine = (err: unknown) => oneLine(err).replace(/\. To specify a positional argument.*$/, '');

const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host (DNS)',
  EAI_AGAIN: 'DNS lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_SOCKET: 'connection closed',
};

/**
 * One line for any error. fetch() reports every network failure as "fetch
 * failed"; the reason sits in its cause chain, so it is named here
 * (ECONNREFUSED, a DNS failure, a timeout).
 */
export function describeError(err: unknown): string {
  const message = firstLine(err);
  const chain: unknown[] = [];
  for (let e: unknown = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  if ((err as Error)?.name === 'TimeoutError' || chain.some((e) => (e as Error)?.name === 'TimeoutError'))
    return `${message.replace(/: (The operation was aborted due to timeout|fetch failed)$/, '')}: timed out`;
  for (const e of chain.slice(1)) {
    const code = (e as { code?: string }).code;
    if (code && NETWORK_CAUSES[code]) {
      const host = (e as { hostname?: string; address?: string; port?: number }).hostname ?? (e as { address?: string }).address;
      const port = (e as { port?: number }).port;
      return `${message.replace(/: fetch failed$/, '').replace(/^fetch failed$/, 'cannot connect')}: ${NETWORK_CAUSES[code]} (${code}${host ? ` ${host}${port ? `:${port}` : ''}` : ''})`;
    }
  }
  // No network code (fetch refuses some ports itself, "bad port"): name the innermost reason.
  const inner = chain
    .slice(1)
    .map((e) => firstLine(e))
    .filter((m) => m && m !== 'fetch failed')
    .pop();
  return inner && /fetch failed$/.test(message) ? message.replace(/fetch failed$/, inner) : message;
}
