/**
 * What each database engine provides to the engine-neutral backup, check,
 * restore and drill flows in run.ts and restore.ts.
 */
import type { facts } from '../../../policy-tests/index.ts';
import type { Sentinel } from '../sentinel.ts';

export type EtcdTarget = facts.EtcdTarget;
export type PostgresTarget = facts.PostgresTarget;
export type SqliteTarget = facts.SqliteTarget;
export type Target = facts.Target;

/** What one swap replaced, and where the replaced data is kept to undo it (none when nothing was live). */
export interface Swapped {
  replaced: string;
  undo?: string;
}

/**
 * The suffix of an undo copy: the restore's UTC time, compact enough for a
 * PostgreSQL identifier, and sortable. Every restore keeps its own copy; the
 * retention removes them after RETENTION_DAYS.
 */
export const undoStamp = (date: Date) => date.toISOString().replace(/[-:.]/g, '');
/** The time an undo stamp was taken, or undefined when `text` ends in none. */
export function undoTime(text: string): Date | undefined {
  const m = /(\d{8}T\d{9}Z)$/.exec(text);
  if (!m) return undefined;
  const s = m[1]!;
  const date = new Date(`${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}.${s.slice(15, 18)}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export interface EngineContext {
  env: NodeJS.ProcessEnv;
  /** Prefix for SQLite paths, for running outside the app's pod (BACKUP_SOURCE_ROOT). */
  sourceRoot?: string;
  log: (line: string) => void;
  /** The time of this run: names undo copies and ages them. */
  now: Date;
  /** Test-only fault injection: fail between the two statements of an engine's atomic swap. */
  faultInsideSwap?: boolean;
}

export interface Engine<T extends facts.Target = facts.Target> {
  /** Whether a restore stops the app first (etcd is restored by re-bootstrapping the control plane instead). */
  readonly scalesApp: boolean;
  /** The plain names of the files `dump` produces for this target: the only files a backup of it may hold. */
  fileNames(target: T): string[];
  /** Writes the sentinel into the live source, just before the copy. */
  writeSentinel(target: T, sentinel: Sentinel, ctx: EngineContext): Promise<void>;
  /** The newest sentinel in the live source when it is reachable from here; undefined otherwise. */
  liveSentinel(target: T, ctx: EngineContext): Promise<Sentinel | undefined>;
  /** Takes consistent online copies into `work`; returns their paths. */
  dump(target: T, work: string, ctx: EngineContext): Promise<string[]>;
  /** The engine's own integrity check of one unpacked file: a problem, or undefined. */
  verify(file: string, ctx: EngineContext): Promise<string | undefined>;
  /** Restores the unpacked files into a scratch location under `scratch`, reads back the sentinel they carry, and removes the scratch copy. */
  restoredSentinel(target: T, files: ReadonlyMap<string, string>, scratch: string, ctx: EngineContext): Promise<Sentinel | undefined>;
  /**
   * Puts verified, unpacked files in place of the live data, keeping the
   * replaced data; returns what was replaced. `step(name)` marks the points a
   * crash is simulated at in tests.
   */
  swapIn(target: T, files: ReadonlyMap<string, string>, ctx: EngineContext, step: (name: string) => void): Promise<Swapped[]>;
}
