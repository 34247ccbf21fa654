/** Shared by the backup tests: which real tools are missing, a real restic repository, and a recording stand-in for kubectl scale. */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { signManifest } from '../backup/integrity.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { listBackups, stamp } from '../backup/store.ts';
import { installed } from '../../test-support/exec.ts';
import { copyTemplate, loadTemplate, RESTIC_TEST_PASSWORD, type ResticTemplate } from './restic-fixture.ts';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';

export { startLoopbackEtcd } from '../backup/engines/loopback-etcd.ts';
export { freePort } from '../lib/free-ports.ts';

/** The tools a test file needs that are not installed; the file skips loudly instead of failing when any is missing. */
export async function missingTools(...tools: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const t of tools) if (!(await installed(t))) missing.push(t);
  if (missing.length) console.warn(`\n*** ${missing.join(', ')} not found: SKIPPING these backup tests. bash .ci/run installs them from Debian. ***\n`);
  return missing;
}

/**
 * A restic base per test file, with the repositories of `targets` under it;
 * returns the env that reaches the base, and `addRepository` for a target a
 * test creates itself. The repositories are real, made by restic, with a key
 * that opens cheaply (restic-fixture.ts): `restic init`'s output, checked in, laid out again per target.
 */
export function useResticRepository(skip: boolean, targets: readonly string[]) {
  let dir = '';
  let template: ResticTemplate | undefined;
  beforeAll(async () => {
    if (skip) return;
    dir = mkdtempSync(join(tmpdir(), 'restic-test-'));
    template = loadTemplate(RESTIC_TEST_PASSWORD);
    for (const target of targets) copyTemplate(template, join(dir, target));
  });
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));
  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    RESTIC_REPOSITORY: dir,
    RESTIC_PASSWORD: RESTIC_TEST_PASSWORD,
    BACKUP_MANIFEST_KEY: TEST_MANIFEST_KEY,
  });
  return Object.assign(env, {
    /** An empty repository for `target`, as `restic init` would leave it. */
    addRepository: (target: string) => copyTemplate(template!, join(dir, target)),
  });
}

/** The manifest key the tests' backup jobs hold (in the cluster: the Secret backup-manifest-key). */
export const TEST_MANIFEST_KEY = 'test-manifest-key-0123456789abcdef0123456789';

/** Re-signs a manifest a test edited, as a job holding the key would: the test then reaches the checks behind the signature. */
export function resign(path: string): void {
  const file = join(path, 'manifest.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  manifest.hmac = signManifest(manifest, Buffer.from(TEST_MANIFEST_KEY));
  writeFileSync(file, JSON.stringify(manifest));
}

/** A stand-in for the cluster: records the scale calls a restore makes (kubectl cannot reach a cluster here). */
export function fakeScaler(initial = 1) {
  const calls: number[] = [];
  let replicas = initial;
  return {
    calls,
    scaler: {
      replicas: async () => replicas,
      scale: async (n: number) => {
        calls.push(n);
        replicas = n;
      },
    },
  };
}

/** Flips one byte in the middle of a file. */
export function flipByte(data: Buffer): Buffer {
  const at = data.length >> 1;
  data.writeUInt8(data.readUInt8(at) ^ 0x01, at);
  return data;
}

/**
 * The folders of a backup test file. `fresh` makes a test's folder (source, backups) and returns it: it
 * runs before every test, and the folder goes after it. Once per file, one real backup is taken by
 * `backup` into a folder of its own, the golden one (each costs a restic backup, retention and prune):
 * tests that only need "a backup" start from a copy of it (seedBackup), tests about taking a backup take
 * their own. Returns the golden folder.
 */
export function useGoldenBackup(skip: boolean, fresh: () => string | Promise<string>, backup: () => Promise<unknown>): () => string {
  let golden = '';
  let current = '';
  beforeAll(async () => {
    if (skip) return;
    golden = await fresh();
    await backup();
  });
  afterAll(() => golden && rmSync(golden, { recursive: true, force: true }));
  beforeEach(async () => {
    if (!skip) current = await fresh();
  });
  afterEach(() => current && rmSync(current, { recursive: true, force: true }));
  return () => golden;
}

/** Copies the golden backups into `backupDir`, at a path restic never saw, dated `ageMs` ago; returns the backup's path. */
export function seedBackup(goldenBackups: string, backupDir: string, target: string, ageMs = 0): string {
  cpSync(goldenBackups, backupDir, { recursive: true });
  const { path } = listBackups(backupDir, target)[0]!;
  if (!ageMs) return path;
  // A backup taken then: its folder and its signed manifest say the same time, as the backup job writes them.
  const when = new Date(Date.now() - ageMs);
  const dated = join(backupDir, target, stamp(when));
  renameSync(path, dated);
  const file = join(dated, 'manifest.json');
  writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), createdAt: when.toISOString() }));
  resign(dated);
  return dated;
}

/** Runs a restore in a process of its own (scripts/test/fixtures/restore-driver.ts), which kills itself at `crashAt`; resolves with its signal. */
export function killedRestore(options: Record<string, unknown>): Promise<NodeJS.Signals | null> {
  const driver = join(REPO_ROOT, 'scripts/test/fixtures/restore-driver.ts');
  return new Promise((resolve, reject) => {
    const env = { BACKUP_MANIFEST_KEY: TEST_MANIFEST_KEY, ...(options.env as Record<string, string> | undefined) };
    const child = spawn(process.execPath, [driver, JSON.stringify({ repoRoot: REPO_ROOT, ...options, env })], {
      cwd: REPO_ROOT,
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve(signal));
  });
}

/** A scaler that takes its time, as kubectl does, and records nothing: a restore's events say when it was called. */
export const slowScaler = (replicas = 1) => ({
  replicas: async () => replicas,
  scale: async () => {
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  },
});

/**
 * A real SQLite writer beside a test (sqlite-writer.mjs: one process, one
 * committed row per transaction at `rate` a second, WAL as the media apps
 * run), with the ids it has committed so far; `stop` ends it and waits.
 */
export function startSqliteWriter(db: string, rate: number) {
  const writer = spawn(process.execPath, [join(import.meta.dirname, 'sqlite-writer.mjs'), db, String(rate)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const committed: number[] = [];
  const exited = new Promise((resolve) => writer.once('exit', resolve));
  // Whole lines only: a pipe may cut an id in two between reads.
  let partial = '';
  writer.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    committed.push(...lines.filter(Boolean).map(Number));
  });
  return {
    committed,
    async stop(): Promise<void> {
      writer.kill('SIGTERM');
      await exited;
    },
    /** For a finally: no writer outlives its test, whatever failed. */
    kill: () => writer.kill('SIGKILL'),
  };
}
