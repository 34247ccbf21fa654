/**
 * Warm-start stores, keyed by inputs, never by time. Each store is one file
 * under node_modules/.cache/homelab-gate/ (store-journal.ts: appended as a
 * run learns entries, values parsed on use) mapping a digest of every input
 * that decides a result (the tool's make-up, the value judged) to the result.
 * A key that matches is the same computation, so its result is reused;
 * anything else is a miss, computed and remembered. Where the make-up cannot be known (a
 * bundle run far from the gate's sources, as in the backup image) or nothing
 * can be written, a store keeps nothing: slower, never wrong. Users: the
 * parse store, the validation outcomes and the CEL outcomes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJournal, storedValue, writeJournal } from './store-journal.ts';

export const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');

const requireHere = createRequire(import.meta.url);

/** The installed version of a package: part of every make-up that runs it. */
export function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(packageJsonOf(name), 'utf8')) as { version: string }).version;
}

/** A package's package.json, also where its exports hide it (@bufbuild/cel): found above its entry point. */
function packageJsonOf(name: string): string {
  try {
    return requireHere.resolve(`${name}/package.json`);
  } catch {
    for (let dir = dirname(requireHere.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === name) return file;
    }
    throw new Error(`cannot find the package.json of ${name}`);
  }
}

/**
 * A digest of the gate's TypeScript sources in a folder of policy-tests/ (`model`, `admission/cel`): this
 * module sits one level below policy-tests/ both as a source (model/) and in the built bundle (dist/).
 */
export function sourcesDigest(folder: string): string {
  const dir = join(fileURLToPath(new URL('../', import.meta.url)), folder);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  if (files.length === 0) throw new Error(`no sources in ${dir}`);
  return digest(
    files
      .sort()
      .map((f) => `${f}\0${readFileSync(join(dir, f), 'utf8')}`)
      .join('\0'),
  );
}

export interface OutcomeStore<T> {
  /** The result stored for these inputs, if any. */
  get(inputs: readonly string[]): T | undefined;
  set(inputs: readonly string[], value: T): void;
}

interface State {
  /** What the file held when read, and what this process has written to it since. */
  known?: Map<string, unknown>;
  used: Map<string, unknown>;
  /** Set since the last flush, and not in the file yet. */
  fresh: Map<string, unknown>;
  /** Lines in the file: read, then appended. */
  lines: number;
}
const states = new Map<string, State>();

let folder: string | null | undefined;
function storeFolder(): string | null {
  // HOMELAB_GATE_STORES=off: every run computes everything (the benchmark's cold measurements).
  if (process.env.HOMELAB_GATE_STORES === 'off') return null;
  if (folder === undefined) {
    try {
      folder = join(dirname(dirname(requireHere.resolve('yaml/package.json'))), '.cache', 'homelab-gate');
    } catch {
      folder = null;
    }
  }
  return folder;
}

/** A store whose keys start with `makeup()` (computed once; if it throws, the store keeps nothing). */
export function outcomeStore<T>(name: string, makeup: () => string): OutcomeStore<T> {
  let state = states.get(name);
  if (!state) states.set(name, (state = { used: new Map(), fresh: new Map(), lines: 0 }));
  const s = state;
  let prefix: string | null | undefined;
  const keyOf = (inputs: readonly string[]): string | undefined => {
    // Asked on every use, not once: a process may turn the stores off for a while (the benchmark's cold part) and on again.
    if (storeFolder() === null) return undefined;
    if (prefix === undefined) {
      try {
        prefix = makeup();
      } catch {
        prefix = null;
      }
    }
    return prefix === null ? undefined : digest([prefix, ...inputs].join('\0'));
  };
  const known = (): Map<string, unknown> => {
    if (!s.known) {
      const journal = readJournal(join(storeFolder()!, `${name}.journal`));
      s.known = journal.entries;
      s.lines = journal.lines;
    }
    return s.known;
  };
  return {
    get(inputs) {
      const key = keyOf(inputs);
      if (key === undefined) return undefined;
      let value = s.used.get(key);
      if (value === undefined && known().has(key)) {
        value = storedValue(known().get(key));
        // Torn by a killed run: a miss, and the entry is written again once computed.
        if (value === undefined) known().delete(key);
      }
      if (value !== undefined) s.used.set(key, value);
      return value as T | undefined;
    },
    set(inputs, value) {
      const key = keyOf(inputs);
      if (key === undefined) return;
      if (!s.used.has(key) && !known().has(key)) s.fresh.set(key, value);
      s.used.set(key, value);
    },
  };
}

/** Writes what each store learnt since the last flush. Never fails the run: the stores only save time. */
export function flushOutcomeStores(): void {
  const dir = storeFolder();
  if (dir === null) return;
  for (const [name, s] of states) {
    if (s.fresh.size === 0) continue;
    try {
      const written = writeJournal(join(dir, `${name}.journal`), s.lines, s.used, s.fresh);
      if (written.rewritten) s.known = new Map(s.used);
      else for (const [key, value] of s.fresh) s.known!.set(key, value);
      s.lines = written.lines;
      s.fresh.clear();
    } catch {
      // A read-only node_modules: the next run computes again.
    }
  }
}
