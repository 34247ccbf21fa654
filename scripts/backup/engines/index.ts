/** The engines a backup target can name in a backup-targets.yaml file. */
import { etcdEngine } from './etcd.ts';
import { postgresEngine } from './postgres.ts';
import { sqliteEngine } from './sqlite.ts';
import type { Engine, Target } from './types.ts';

const ENGINES = { sqlite: sqliteEngine, postgres: postgresEngine, etcd: etcdEngine } as const;
export const ENGINE_NAMES = Object.keys(ENGINES) as (keyof typeof ENGINES)[];

export function engineOf<T extends Target>(target: T): Engine<T> {
  return ENGINES[target.engine] as unknown as Engine<T>;
}
