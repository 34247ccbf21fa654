/**
 * Restoring a SQLite target from a verified backup, and the monthly drill.
 * The live file is replaced in one rename, with the replaced data kept as
 * <db>.pre-restore: an interruption at any step leaves either the old data or
 * the new data in place, never a mix.
 */
import { closeSync, copyFileSync, existsSync, fsyncSync, linkSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { integrityCheck, latestSentinel } from './sqlite.ts';
import { gunzipFile, listBackups, readManifest, verifyChecksums, type Manifest } from './store.ts';
import type { BackupOptions, Target } from './run.ts';
import { execFileSync } from 'node:child_process';

export interface Scaler {
  /** Scales the app's workload and waits until it has that many ready replicas (0: none running). */
  scale(replicas: number): void;
  replicas(): number;
}

export interface RestoreOptions extends BackupOptions {
  from?: string;
  dryRun?: boolean;
  scaler: Scaler;
  /** Test hook: throw at a named step, as a crash there would. */
  crashAt?: string;
  log?: (line: string) => void;
}

function pickBackup(o: BackupOptions, target: Target, from = 'latest') {
  const backups = listBackups(o.backupDir, target.name);
  const chosen = from === 'latest' ? backups[0] : backups.find((b) => b.name === from || b.time.toISOString() === from);
  if (!chosen) throw new Error(`${target.name}: no backup ${from === 'latest' ? 'at all' : `named ${from}`}`);
  return chosen;
}

/** Verifies a backup and unpacks it into `dir`; throws with one line when it cannot be trusted. */
export function unpackVerified(path: string, dir: string): { manifest: Manifest; files: Map<string, string> } {
  const problem = verifyChecksums(path);
  if (problem) throw new Error(`refusing ${basename(path)}: ${problem}`);
  const manifest = readManifest(path);
  const files = new Map<string, string>();
  for (const f of manifest.files) {
    const out = join(dir, f.name.replace(/\.gz$/, ''));
    writeFileSync(out, gunzipFile(join(path, f.name)));
    const check = integrityCheck(out);
    if (check !== 'ok') throw new Error(`refusing ${basename(path)}: ${f.name} fails integrity_check: ${check}`);
    files.set(basename(out), out);
  }
  return { manifest, files };
}

const fsyncFile = (path: string) => {
  const fd = openSync(path, 'r');
  fsyncSync(fd);
  closeSync(fd);
};

export function restore(target: Target, o: RestoreOptions): { backup: string; replaced: string[] } {
  const log = o.log ?? (() => undefined);
  const crash = (step: string) => {
    if (o.crashAt === step) throw new Error(`simulated crash at ${step}`);
  };
  const backup = pickBackup(o, target, o.from);
  const work = mkdtempSync(join(tmpdir(), `restore-${target.name}-`));
  try {
    const { manifest, files } = unpackVerified(backup.path, work);
    log(`verified ${backup.name} (sentinel ${manifest.sentinel.id})`);
    if (o.dryRun) {
      for (const p of target.paths) log(`would replace ${p} with ${backup.name}, keeping ${p}.pre-restore`);
      return { backup: backup.name, replaced: [] };
    }
    const before = o.scaler.replicas();
    o.scaler.scale(0);
    log(`scaled ${target.name} to 0`);
    const replaced: string[] = [];
    try {
      for (const p of target.paths) {
        const live = join(o.sourceRoot ?? '', p);
        const staged = `${live}.restore-tmp`;
        // Stage next to the live file, so the final rename stays on one file system.
        copyFileSync(files.get(basename(p))!, staged);
        fsyncFile(staged);
        crash('staged');
        if (existsSync(live)) {
          rmSync(`${live}.pre-restore`, { force: true });
          linkSync(live, `${live}.pre-restore`);
          for (const side of ['-wal', '-shm']) if (existsSync(`${live}${side}`)) renameSync(`${live}${side}`, `${live}.pre-restore${side}`);
        }
        crash('kept');
        renameSync(staged, live);
        fsyncFile(dirname(live));
        crash('swapped');
        replaced.push(p);
      }
    } finally {
      o.scaler.scale(before);
      log(`scaled ${target.name} back to ${before}`);
    }
    return { backup: backup.name, replaced };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The monthly drill: restore the newest backup into a scratch folder, check it,
 * and prove it is the newest: its sentinel must equal the newest backup's, and
 * the live source must not carry a newer sentinel than any published backup.
 * Its exit status is what RestoreTestFailed reads (through the CronJob's last success).
 */
export function restoreTest(target: Target, o: BackupOptions): string[] {
  const newest = listBackups(o.backupDir, target.name)[0];
  if (!newest) return [`${target.name}: no backup to restore`];
  const work = mkdtempSync(join(tmpdir(), `restore-test-${target.name}-`));
  try {
    let unpacked: ReturnType<typeof unpackVerified>;
    try {
      unpacked = unpackVerified(newest.path, work);
    } catch (err) {
      return [`${target.name}: ${(err as Error).message}`];
    }
    const problems: string[] = [];
    for (const p of target.paths) {
      const restoredFile = unpacked.files.get(basename(p))!;
      const restored = latestSentinel(restoredFile);
      if (restored?.id !== unpacked.manifest.sentinel.id) problems.push(`${target.name}: the restored ${basename(p)} carries sentinel ${restored?.id ?? 'none'}, not the newest backup's ${unpacked.manifest.sentinel.id}`);
      const live = join(o.sourceRoot ?? '', p);
      const source = existsSync(live) ? latestSentinel(live) : undefined;
      if (source && Date.parse(source.at) > Date.parse(unpacked.manifest.sentinel.at)) problems.push(`${target.name}: the source has a newer sentinel (${source.at}) than the newest backup (${unpacked.manifest.sentinel.at}): a later backup was taken but is not the one restored`);
    }
    return problems;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** kubectl scale on the target's Deployment (namespace media), waiting for the rollout. */
export function kubectlScaler(namespace: string, deployment: string, kubectl = process.env.KUBECTL ?? 'kubectl'): Scaler {
  const run = (...args: string[]) => execFileSync(kubectl, ['-n', namespace, ...args], { encoding: 'utf8' }).trim();
  return {
    replicas: () => Number(run('get', `deployment/${deployment}`, '-o', 'jsonpath={.spec.replicas}')),
    scale(replicas) {
      run('scale', `deployment/${deployment}`, `--replicas=${replicas}`);
      if (replicas === 0) run('wait', '--for=delete', 'pod', '-l', `app.kubernetes.io/name=${deployment}`, '--timeout=120s');
      else run('rollout', 'status', `deployment/${deployment}`, '--timeout=300s');
    },
  };
}
