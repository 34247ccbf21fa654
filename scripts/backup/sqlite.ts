/** SQLite through its own CLI: online copies with VACUUM INTO, integrity checks, and the backup sentinel. */
import { execFileSync } from 'node:child_process';

function sql(db: string, statement: string): string {
  // The app keeps writing while we work: wait for its locks instead of failing with SQLITE_BUSY.
  return execFileSync('sqlite3', ['-batch', '-bail', '-cmd', '.timeout 15000', db, statement], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

export interface Sentinel {
  id: string;
  at: string;
}

/** Written into the live database just before the copy, so a restore can prove which backup it came from. */
export function writeSentinel(db: string, sentinel: Sentinel): void {
  sql(db, `CREATE TABLE IF NOT EXISTS _backup_sentinel (id TEXT NOT NULL, at TEXT NOT NULL); INSERT INTO _backup_sentinel (id, at) VALUES (${quote(sentinel.id)}, ${quote(sentinel.at)});`);
}

export function latestSentinel(db: string): Sentinel | undefined {
  const row = sql(db, 'SELECT id || char(9) || at FROM _backup_sentinel ORDER BY rowid DESC LIMIT 1;');
  if (!row) return undefined;
  const [id, at] = row.split('\t') as [string, string];
  return { id, at };
}

/** A consistent online copy (SQLite's own snapshot), never a byte copy of a live file. */
export function snapshot(db: string, target: string): void {
  sql(db, `VACUUM INTO ${quote(target)};`);
}

export function integrityCheck(db: string): string {
  try {
    return sql(db, 'PRAGMA integrity_check;');
  } catch (err) {
    return ((err as { stderr?: string }).stderr ?? (err as Error).message).trim().split('\n')[0]!;
  }
}
