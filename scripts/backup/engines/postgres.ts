/**
 * PostgreSQL through its own client tools: pg_dump in custom format (one
 * consistent snapshot of the database), pg_restore --list as the integrity
 * check, and a restore into a fresh database that is swapped in by renaming
 * both databases in one transaction, keeping the old one as
 * <db>_pre_restore_<UTC time> (every restore its own, dropped after the retention).
 * Connection settings come from libpq's environment (PGHOST, PGPORT, PGUSER,
 * PGPASSWORD).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { run } from '../../lib/exec.ts';
import type { Sentinel } from '../sentinel.ts';
import { RETENTION_DAYS } from '../store.ts';
import { undoStamp, undoTime, type Engine, type EngineContext, type PostgresTarget } from './types.ts';

const MAINTENANCE_DB = 'postgres';
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * One psql session. Statements in one command run in one transaction; several commands (DROP DATABASE and CREATE
 * DATABASE, which cannot share one) run each as a transaction of its own, in order, stopping at the first that
 * fails (ON_ERROR_STOP).
 */
function psql(ctx: EngineContext, database: string, ...commands: string[]): Promise<string> {
  return run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', database, ...commands.flatMap((c) => ['-c', c])], { env: ctx.env });
}

async function readSentinel(ctx: EngineContext, database: string): Promise<Sentinel | undefined> {
  const row = await psql(ctx, database, 'SELECT id || chr(9) || at FROM public._backup_sentinel ORDER BY seq DESC LIMIT 1');
  if (!row) return undefined;
  const [id, at] = row.split('\t') as [string, string];
  return { id, at };
}

async function restoreInto(ctx: EngineContext, database: string, file: string): Promise<void> {
  await psql(ctx, MAINTENANCE_DB, `DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`, `CREATE DATABASE ${ident(database)}`);
  await run('pg_restore', ['--exit-on-error', '--single-transaction', '--no-owner', '-d', database, file], { env: ctx.env });
}

const dumpFile = (files: ReadonlyMap<string, string>) => [...files.values()][0]!;

/** The live database's name, if it exists, and its undo copies: one query for both. */
async function liveAndUndoCopies(ctx: EngineContext, live: string): Promise<string[]> {
  const names = await psql(
    ctx,
    MAINTENANCE_DB,
    `SELECT datname FROM pg_database WHERE datname = ${literal(live)} OR starts_with(datname, ${literal(`${live}_pre_restore_`)})`,
  );
  return names.split('\n').filter(Boolean);
}

/** Drops the undo copies among `names` older than the retention, in one connection. */
async function dropExpiredUndoCopies(ctx: EngineContext, live: string, names: readonly string[]): Promise<void> {
  const expired = names.filter((name) => {
    if (!name.startsWith(`${live}_pre_restore_`)) return false;
    const taken = undoTime(name.toUpperCase());
    return taken !== undefined && ctx.now.getTime() - taken.getTime() > RETENTION_DAYS * 86_400_000;
  });
  if (expired.length) await psql(ctx, MAINTENANCE_DB, ...expired.map((name) => `DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
}

export const postgresEngine: Engine<PostgresTarget> = {
  scalesApp: true,
  fileNames: (target) => [`${target.database}.pgdump`],
  async writeSentinel(target, sentinel, ctx) {
    await psql(
      ctx,
      target.database,
      `CREATE TABLE IF NOT EXISTS public._backup_sentinel (seq bigserial PRIMARY KEY, id text NOT NULL, at text NOT NULL); INSERT INTO public._backup_sentinel (id, at) VALUES (${literal(sentinel.id)}, ${literal(sentinel.at)})`,
    );
  },
  async liveSentinel(target, ctx) {
    try {
      return await readSentinel(ctx, target.database);
    } catch {
      return undefined; // not reachable from here: the sentinel ledger speaks instead
    }
  },
  async dump(target, work, ctx) {
    // -Z0: the store compresses every file with zstd; compressing twice only costs time.
    const file = join(work, postgresEngine.fileNames(target)[0]!);
    await run('pg_dump', ['-Fc', '-Z0', '-d', target.database, '-f', file], { env: ctx.env });
    return [file];
  },
  async verify(file, ctx) {
    let list: string;
    try {
      list = await run('pg_restore', ['--list', file], { env: ctx.env });
    } catch (err) {
      return `fails pg_restore --list: ${(err as Error).message.replace(/^pg_restore: /, '')}`;
    }
    return /TABLE DATA public _backup_sentinel /.test(list) ? undefined : 'the dump has no sentinel table: it was not taken by backup';
  },
  async restoredSentinel(target, files, _scratch, ctx) {
    const scratch = `${target.database}_restore_test_${randomBytes(4).toString('hex')}`;
    try {
      await restoreInto(ctx, scratch, dumpFile(files));
      return await readSentinel(ctx, scratch);
    } finally {
      await psql(ctx, MAINTENANCE_DB, `DROP DATABASE IF EXISTS ${ident(scratch)} WITH (FORCE)`);
    }
  },
  async swapIn(target, files, ctx, step) {
    const live = target.database;
    const staged = `${live}_restore_tmp`;
    const kept = `${live}_pre_restore_${undoStamp(ctx.now).toLowerCase()}`;
    // PostgreSQL cuts identifiers at 63 bytes; a cut name could collide with another undo copy.
    if (Buffer.byteLength(kept) > 63) throw new Error(`database name ${live} is too long to keep an undo copy named ${kept} (63 bytes at most)`);
    const names = await liveAndUndoCopies(ctx, live);
    // Known before staging: if it changes meanwhile, the renames below fail together and change nothing.
    const exists = names.includes(live);
    await dropExpiredUndoCopies(ctx, live, names);
    await restoreInto(ctx, staged, dumpFile(files));
    step('staged');
    // Both renames commit together or not at all: an interruption leaves the old database or the new one under the live name.
    const crashInside = ctx.faultInsideSwap ? 'SELECT 1/0; ' : '';
    await psql(
      ctx,
      MAINTENANCE_DB,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname IN (${literal(live)}, ${literal(staged)}) AND pid <> pg_backend_pid(); ` +
        (exists ? `ALTER DATABASE ${ident(live)} RENAME TO ${ident(kept)}; ` : '') +
        crashInside +
        `ALTER DATABASE ${ident(staged)} RENAME TO ${ident(live)}`,
    );
    step('swapped');
    return [{ replaced: live, ...(exists ? { undo: kept } : {}) }];
  },
};
