/**
 * The file behind a warm-start store (outcome-store.ts): one line per entry,
 * the key, a tab, and the value as JSON, the last line of a key winning. New
 * entries are appended, so a process that learns a few entries per run writes
 * a few lines, not the whole store; once the file holds more than twice what
 * the process used, it is rewritten with only that, atomically. A value is
 * parsed only when a run asks for it (a run uses a fraction of a store, and
 * parsing every line cost the gate's start-up about 20 ms); one that does not
 * parse (a run killed mid-append) is a miss, never trusted.
 */
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

const entryLine = ([key, value]: [string, unknown]) => `${key}\t${value instanceof StoredText ? value.json : JSON.stringify(value)}\n`;

/** The entries of `file`, their values unparsed; none when it does not exist yet. */
export function readJournal(file: string): Journal {
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
    const tab = line.indexOf('\t');
    // No key: not a line this module wrote.
    if (tab > 0) journal.entries.set(line.slice(0, tab), new StoredText(line.slice(tab + 1)));
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
  lines: number,
  used: ReadonlyMap<string, unknown>,
  fresh: ReadonlyMap<string, unknown>,
): { lines: number; rewritten: boolean } {
  if (lines + fresh.size > 2 * used.size + COMPACTION_SLACK) {
    writeFileAtomic(file, [...used].map(entryLine).join(''));
    return { lines: used.size, rewritten: true };
  }
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, [...fresh].map(entryLine).join(''));
  return { lines: lines + fresh.size, rewritten: false };
}
