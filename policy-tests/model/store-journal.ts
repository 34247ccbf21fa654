/**
 * The file behind a warm-start store (outcome-store.ts): one JSON line per
 * entry, `[key, value]`, the last line of a key winning. New entries are
 * appended, so a process that learns a few entries per run writes a few
 * lines, not the whole store; once the file holds more than twice what the
 * process used, it is rewritten with only that, atomically. A line that does
 * not parse (a run killed mid-append) is skipped, never trusted.
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

const entryLine = ([key, value]: [string, unknown]) => `${JSON.stringify([key, value])}\n`;

/** The entries of `file`; none when it does not exist yet. */
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
    try {
      const entry = JSON.parse(line) as unknown;
      if (Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string') journal.entries.set(entry[0], entry[1]);
    } catch {
      // torn by a killed run, or not ours
    }
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
