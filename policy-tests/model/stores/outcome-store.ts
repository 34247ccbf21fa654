/**
 * Warm-start stores, keyed by inputs, never by time. Each store is one file
 * in the cache root's gate-stores/ folder, outside the checkout (store-journal.ts:
 * appended as a run learns entries, values parsed on use, each line signed
 * with that folder's secret), mapping a digest of every input that decides a
 * result to the result: the gate's whole code, Node's version, the engines'
 * versions (the store's make-up) and the value judged. A key that matches is
 * the same computation, so its result is reused; anything else is a miss,
 * computed and remembered.
 *
 * Nothing a pull request commits is read here: the folder is not in the
 * checkout, and a line the secret did not sign is no entry. Where the secret
 * cannot be kept private (a folder or key file others can read or write), or
 * the code cannot be read, or nothing can be written, a store keeps nothing:
 * slower, never wrong. Users: the parse store and its positions, the
 * validation outcomes and schema compiles, the CEL outcomes, PromQL parses,
 * cron verdicts, what crd-accepted says of each CRD, and the webhook bodies as
 * their senders fill them in. A whole run's verdict, a few hundred kilobytes,
 * is kept beside them one file each (kept-values.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from './cache-root.ts';
import { readJournal, storedValue, writeJournal } from './store-journal.ts';

export const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');

/**
 * An object as JSON, once per object: every store that keys by an object (the validation outcomes, a CRD's
 * acceptance) and every question asked of it key it the same way, and pay for it once. Objects judged are never
 * mutated.
 */
const texts = new WeakMap<object, string>();
export function jsonOf(data: unknown): string {
  if (typeof data !== 'object' || data === null) return JSON.stringify(data);
  let text = texts.get(data);
  if (text === undefined) texts.set(data, (text = JSON.stringify(data)));
  return text;
}

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

/** Every source file of the gate under `dir` (policy-tests/), its tests and build output left out. */
function gateSources(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true })
    .flatMap((e) => {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) return ['test', 'dist', 'node_modules'].includes(e.name) ? [] : gateSources(dir, path);
      return /\.(ts|mts|mjs|json)$/.test(e.name) ? [path] : [];
    })
    .sort();
}

let code: string | undefined;
/**
 * A digest of all the code the gate runs: the built bundle itself when this module runs from it, else every
 * source file of policy-tests/ (this module sits in model/stores/, two levels below). Not a list of folders: a change
 * anywhere on any floor (a parser, a quantity rule) changes every key.
 */
export function gateCodeDigest(): string {
  if (code === undefined) {
    const self = fileURLToPath(import.meta.url);
    if (self.endsWith('.mjs')) code = digest(readFileSync(self, 'utf8'));
    else {
      const dir = fileURLToPath(new URL('../../', import.meta.url));
      const files = gateSources(dir);
      if (files.length === 0) throw new Error(`no sources in ${dir}`);
      code = digest(files.map((f) => `${f}\0${readFileSync(join(dir, f), 'utf8')}`).join('\0'));
    }
  }
  return code;
}

/**
 * What every stored result's key starts with: the store's make-up (what else computes it: the engines' versions), the
 * gate's whole code and Node's version, so no run reads what other code computed. Throws where the code cannot be read.
 */
export const keyPrefix = (makeup: string): string => `${makeup}\0${gateCodeDigest()}\0${process.version}`;

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

/** The folder's secret: made on first use with mode 0600; refused (no store) when others could read or change it. */
function secretIn(dir: string): Buffer | null {
  const file = join(dir, 'secret');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const [folderMode, fileMode] = [statSync(dir).mode, statSync(file).mode];
    if ((folderMode & 0o022) !== 0 || (fileMode & 0o077) !== 0) return null;
    const secret = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    return secret.length === 32 ? secret : null;
  } catch {
    return null;
  }
}

const folders = new Map<string, { dir: string; secret: Buffer } | null>();
/** The store folder of this process's cache root, with its secret; null when stores are off or unusable. */
export function storeFolder(): { dir: string; secret: Buffer } | null {
  // HOMELAB_GATE_STORES=off: every run computes everything (the benchmark's cold measurements).
  if (process.env.HOMELAB_GATE_STORES === 'off') return null;
  const dir = join(cacheRoot(process.env), 'gate-stores');
  if (!folders.has(dir)) {
    const secret = secretIn(dir);
    folders.set(dir, secret ? { dir, secret } : null);
  }
  return folders.get(dir)!;
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
        prefix = keyPrefix(makeup());
      } catch {
        prefix = null;
      }
    }
    return prefix === null ? undefined : digest([prefix, ...inputs].join('\0'));
  };
  const known = (): Map<string, unknown> => {
    if (!s.known) {
      const { dir, secret } = storeFolder()!;
      const journal = readJournal(join(dir, `${name}.journal`), secret);
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
  const folder = storeFolder();
  if (folder === null) return;
  for (const [name, s] of states) {
    if (s.fresh.size === 0) continue;
    try {
      const written = writeJournal(join(folder.dir, `${name}.journal`), { lines: s.lines, used: s.used, fresh: s.fresh }, folder.secret);
      if (written.rewritten) s.known = new Map(s.used);
      else for (const [key, value] of s.fresh) s.known!.set(key, value);
      s.lines = written.lines;
      s.fresh.clear();
    } catch {
      // A read-only cache: the next run computes again.
    }
  }
}
