/**
 * A warm-start store of parsed files, keyed by inputs, never by time: the
 * digest of the parser's own make-up (the yaml package's version and every
 * source file of this floor, where the parser lives), the file's path and its
 * text. A file unchanged since the last run is read back as JSON instead of
 * parsed as YAML with positions, which is most of a warm start's parse phase.
 * Positions are not stored: a finding that needs a line parses the file then
 * (model/manifest.ts lazyPositions). Values JSON cannot carry (an .inf or .nan
 * scalar) are never stored, so what is read back is what a parse would give.
 * Kept under node_modules/.cache/homelab-gate/ beside the validation cache;
 * each flush writes what this process used, so the file stays the size of
 * the trees it parsed, and a torn or foreign file is just a miss.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from './write-atomic.ts';

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');

let storeFile: string | undefined;
let makeup: string | undefined;
let known: Map<string, unknown> | undefined;
const used = new Map<string, unknown>();
let dirty = false;

function fileOfStore(): string {
  if (storeFile) return storeFile;
  const yamlPackage = createRequire(import.meta.url).resolve('yaml/package.json');
  return (storeFile = join(dirname(dirname(yamlPackage)), '.cache', 'homelab-gate', 'parsed.json'));
}

/** What decides a parse besides the text: the yaml version and this floor's code (its sources sit beside this file, or beside the built bundle's folder). */
function parserMakeup(): string {
  if (makeup !== undefined) return makeup;
  const yamlVersion = (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('yaml/package.json'), 'utf8')) as { version: string }).version;
  const dir = fileURLToPath(new URL('../model/', import.meta.url));
  const sources = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => `${f}\0${readFileSync(join(dir, f), 'utf8')}`);
  return (makeup = digest([yamlVersion, ...sources].join('\0')));
}

function stored(): Map<string, unknown> {
  if (known) return known;
  try {
    known = new Map(Object.entries(JSON.parse(readFileSync(fileOfStore(), 'utf8')) as Record<string, unknown>));
  } catch {
    known = new Map(); // none yet, torn, or not ours: made again
  }
  return known;
}

const keyOf = (kind: string, file: string, text: string): string => digest(`${parserMakeup()}\0${kind}\0${file}\0${text}`);

/** What a parse of this text gave before, if this make-up parsed it. Shared, never to be mutated (parsed files never are). */
export function recall<T>(kind: 'manifest' | 'data', file: string, text: string): T | undefined {
  const key = keyOf(kind, file, text);
  const value = used.get(key) ?? stored().get(key);
  if (value === undefined) return undefined;
  used.set(key, value);
  return value as T;
}

/** Whether JSON carries a value unchanged: plain data, no non-finite number, no hole in a list. */
function jsonSafe(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every((v) => v !== undefined && jsonSafe(v));
  // An absent property reads as undefined either way (a cluster-scoped resource's namespace).
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value as object).every((v) => v === undefined || jsonSafe(v));
  return false;
}

/** Remembers a parse for the next run, when JSON carries it exactly. */
export function remember(kind: 'manifest' | 'data', file: string, text: string, value: unknown): void {
  if (!jsonSafe(value)) return;
  const key = keyOf(kind, file, text);
  if (!used.has(key)) dirty ||= !stored().has(key);
  used.set(key, value);
}

/** Writes what this process used, when anything was new. Never fails the run: the store only saves time. */
export function flushParseStore(): void {
  if (!dirty) return;
  try {
    writeFileAtomic(fileOfStore(), JSON.stringify(Object.fromEntries(used)));
    known = new Map(used);
    dirty = false;
  } catch {
    // A read-only node_modules: the next run parses again.
  }
}
