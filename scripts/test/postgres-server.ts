/**
 * A real PostgreSQL server from Debian's packages for the tests: a fresh
 * cluster in a temp folder (initdb), listening on 127.0.0.1 on a free port,
 * stopped and deleted afterwards. PostgreSQL refuses to run as root, so as
 * root the server runs as the `postgres` user the package creates.
 */
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec, output } from '../../test-support/exec.ts';
import { freePort } from './backup-helpers.ts';

const PG_ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin folder, or undefined when no server is installed. */
export function postgresBinDir(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(PG_ROOT, versions[0], 'bin');
}

export interface PostgresServer {
  /** libpq environment that reaches the server as its superuser. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startPostgres(bin: string): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chownSync(dir, Number(await output('id', ['-u', 'postgres'])), Number(await output('id', ['-g', 'postgres'])));
  }
  const as = (command: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]);
  await output(...as(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']));
  const port = await freePort();
  // fsync off: the tests prove what the backup tools do, not the server's durability.
  const server = spawn(
    ...as(join(bin, 'postgres'), ['-D', join(dir, 'data'), '-k', dir, '-h', '127.0.0.1', '-p', String(port), '-c', 'fsync=off', '-c', 'full_page_writes=off']),
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => server.on('exit', () => resolve()));
  // The server's own bin folder first: Debian's /usr/bin/psql, pg_dump and pg_restore are one Perl wrapper
  // (pg_wrapper) that picks a version and then runs these binaries; started 200 times a run, Perl's start-up
  // was a good part of this file's CPU time. The tools are the same binaries either way.
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    PGHOST: '127.0.0.1',
    PGPORT: String(port),
    PGUSER: 'postgres',
    PGDATABASE: 'postgres',
  };
  // Ready when pg_isready says so; a server that exits instead fails at once.
  while ((await exec(join(bin, 'pg_isready'), ['-q'], { env })).code !== 0) {
    if (server.exitCode !== null) throw new Error('the test PostgreSQL server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    env,
    async stop() {
      // Signal the postmaster itself (runuser does not pass SIGINT on): SIGINT is PostgreSQL's fast shutdown.
      const pid = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
