/**
 * Backup targets are declared in the repository, next to the apps that own
 * the data: each backup-targets.yaml names a namespace and its targets (an
 * app, its engine, and its database paths or name). The contract lives on
 * the gate's lowest floor because both the backup checks and the backup
 * scripts read it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import schema from './backup-targets.schema.json' with { type: 'json' };
import { cachedValidator } from '../stores/validation-cache.ts';

export interface TargetBase {
  name: string;
  /** Namespace of the app (and of its backup jobs). */
  namespace: string;
  /** The Deployment scaled to zero during a restore (defaults to the target name). */
  deployment: string;
}
export interface SqliteTarget extends TargetBase {
  engine: 'sqlite';
  /** Database files inside the app's pod. */
  paths: string[];
}
export interface PostgresTarget extends TargetBase {
  engine: 'postgres';
  /** Database name; the server and role come from libpq's PGHOST, PGPORT, PGUSER, PGPASSWORD. */
  database: string;
}
export interface EtcdTarget extends TargetBase {
  engine: 'etcd';
}
export type Target = SqliteTarget | PostgresTarget | EtcdTarget;

export const TARGET_FILES = [
  'apps/media/facts/backup-targets.yaml',
  'apps/media/gluetun/facts/backup-targets.yaml',
  'apps/platform/backups/facts/backup-targets.yaml',
] as const;

// The schema is this repository's own and a test validates it; skipping the
// meta-schema check keeps the gate's start-up short. Compiled only when an
// outcome is not in the validation store (model/stores/validation-cache.ts).
const AJV_OPTIONS = { allErrors: false, strict: true, validateSchema: false };
const validate = cachedValidator(JSON.stringify(schema), `Ajv2020 ${JSON.stringify(AJV_OPTIONS)}`, () => new Ajv2020(AJV_OPTIONS).compile(schema));

interface TargetsFile {
  namespace: string;
  volumeOnly?: Record<string, string>;
  targets: Record<string, { engine: Target['engine']; deployment?: string; paths?: string[]; database?: string }>;
}

/** The targets one file declares; throws with the file and the first schema error when it is malformed. */
export function targetsOfDocument(doc: unknown, file: string): Target[] {
  if (!validate(doc)) {
    const e = validate.errors![0]!;
    throw new Error(`${file}: ${e.instancePath || '/'} ${e.message}`);
  }
  const { namespace, targets } = doc as unknown as TargetsFile;
  return Object.entries(targets).map(([name, t]) => ({ ...t, name, namespace, deployment: t.deployment ?? name }) as Target);
}

/** Every declared target, by name; throws one line naming the file when one is unreadable, malformed or repeats a name. */
export function loadTargets(repoRoot: string): Map<string, Target> {
  const out = new Map<string, Target>();
  for (const file of TARGET_FILES) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(join(repoRoot, file), 'utf8'));
    } catch (err) {
      throw new Error(`${file}: ${(err as Error).message.split('\n')[0]}`);
    }
    for (const target of targetsOfDocument(doc, file)) {
      if (out.has(target.name)) throw new Error(`${file}: target ${target.name} is declared twice`);
      out.set(target.name, target);
    }
  }
  return out;
}

/** The apps a targets file lists as having no database to back up (their volume is copied by VolSync only). */
export const volumeOnlyApps = (doc: unknown): string[] => Object.keys((doc as Partial<TargetsFile> | null)?.volumeOnly ?? {});

export function loadTarget(repoRoot: string, name: string): Target {
  const targets = loadTargets(repoRoot);
  const t = targets.get(name);
  if (!t) throw new Error(`unknown target "${name}"; declared: ${[...targets.keys()].join(', ')}`);
  return t;
}
