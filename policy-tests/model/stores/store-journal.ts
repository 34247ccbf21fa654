/**
 * The file behind a warm-start store (outcome-store.ts): one line per entry,
 * the key, a tab, the value as JSON, a tab, and an HMAC of the two with the
 * store folder's own secret; the last line of a key winning. New entries are
 * appended, so a process that learns a few entries per run writes a few
 * lines, not the whole store; once the file holds more than twice what the
 * process used, it is rewritten with only that, atomically. A value is parsed
 * only when a run asks for it (a run uses a fraction of a store, and parsing
 * every line cost the gate's start-up about 20 ms); one that does not parse
 * (a run killed mid-append) is a miss, never trusted. A line whose HMAC does
 * not verify (written by anything but this machine's gate) is no entry.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from './write-atomic.ts';

export interface Journal {
  entries: Map<string, unknown>;
  /** Lines in the file, the skipped ones included: what a rewrite would shed. */
  lines: number;
}

/** Lines a file may hold beyond twice what the process used before it is rewritten. */
export const COMPACTION_SLACK = 256;

/** A value as the file holds it: JSON text, parsed on first use. */
export class StoredText {
  readonly json: string;
  constructor(json: string) {
    this.json = json;
  }
}

/** The value of an entry: parsed from the file's text if need be; undefined when that text does not parse. */
export function storedValue(value: unknown): unknown {
  if (!(value instanceof StoredText)) return value;
  try {
    return JSON.parse(value.json) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The secret as a key object, made once: given as bytes, every HMAC made a key object of its own, and a warm run
 * verifying two thousand lines spent about 25 ms there (a sixth of a start-up); with one, about 4.
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObject(secret: Buffer): KeyObject {
  let key = keyObjects.get(secret);
  if (!key) keyObjects.set(secret, (key = createSecretKey(secret)));
  return key;
}

/** The signature of an entry: the key and its value's JSON, with the store folder's secret. */
export const mac = (secret: Buffer, key: string, json: string): string => createHmac('sha256', keyObject(secret)).update(`${key}\t${json}`).digest('base64url');

const entryLine =
  (secret: Buffer) =>
  ([key, value]: [string, unknown]) => {
    const json = value instanceof StoredText ? value.json : JSON.stringify(value);
    return `${key}\t${json}\t${mac(secret, key, json)}\n`;
  };

export function verifies(secret: Buffer, key: string, json: string, given: string): boolean {
  const want = Buffer.from(mac(secret, key, json));
  const got = Buffer.from(given);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** The entries of `file` that `secret` signed, their values unparsed; none when it does not exist yet. */
export function readJournal(file: string, secret: Buffer): Journal {
  const journal: Journal = { entries: new Map(), lines: 0 };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return journal;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    journal.lines++;
    const first = line.indexOf('\t');
    const last = line.lastIndexOf('\t');
    // No key, no signature, or one this secret did not make: not a line this machine's gate wrote.
    if (first <= 0 || last <= first) continue;
    const [key, json] = [line.slice(0, first), line.slice(first + 1, last)];
    if (verifies(secret, key, json, line.slice(last + 1))) journal.entries.set(key, new StoredText(json));
  }
  return journal;
}

/**
 * Adds `fresh` to a file of `lines` lines: appended, or, when the file would hold more than twice `used`
 * (entries of other trees and older make-ups), the whole file rewritten as `used`. Returns the file's lines.
 * Throws what the file system throws; the caller decides that a store is only a cache.
 */
export function writeJournal(
  file: string,
  { lines, used, fresh }: { lines: number; used: ReadonlyMap<string, unknown>; fresh: ReadonlyMap<string, unknown> },
  secret: Buffer,
): { lines: number; rewritten: boolean } {
  if (lines + fresh.size > 2 * used.size + COMPACTION_SLACK) {
    writeFileAtomic(file, [...used].map(entryLine(secret)).join(''));
    return { lines: used.size, rewritten: true };
  }
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, [...fresh].map(entryLine(secret)).join(''));
  return { lines: lines + fresh.size, rewritten: false };
}
