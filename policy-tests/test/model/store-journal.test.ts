/** The file behind a warm-start store: appended a few lines per run, cut back when it grows, never trusting a torn line. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACTION_SLACK, readJournal, writeJournal } from '../../model/store-journal.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'store-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entries = (n: number, prefix = 'k') => new Map<string, unknown>(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { i }]));

describe('a store journal', () => {
  it('is empty when there is no file yet, and creates its folder on the first write', () => {
    const file = join(dir, 'deep', 'store.jsonl');
    expect(readJournal(file)).toEqual({ entries: new Map(), lines: 0 });
    const fresh = entries(2);
    expect(writeJournal(file, 0, fresh, fresh)).toEqual({ lines: 2, rewritten: false });
    expect(readJournal(file)).toEqual({ entries: fresh, lines: 2 });
  });

  it('appends only the fresh entries, leaving the lines already written as they were', () => {
    const file = join(dir, 'store.jsonl');
    const first = entries(3);
    writeJournal(file, 0, first, first);
    const before = readFileSync(file, 'utf8');
    const used = new Map([...first, ['new', 'value']]);
    expect(writeJournal(file, 3, used, new Map([['new', 'value']]))).toEqual({ lines: 4, rewritten: false });
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe('["new","value"]\n');
    expect(readJournal(file).entries).toEqual(used);
  });

  it('skips a line a killed run tore, and a line that is not an entry, keeping every other entry', () => {
    const file = join(dir, 'store.jsonl');
    writeFileSync(file, '["a",1]\n["b",{"tor\n{"an":"object"}\n["c",3]\n');
    expect(readJournal(file)).toEqual({
      entries: new Map<string, unknown>([
        ['a', 1],
        ['c', 3],
      ]),
      lines: 4,
    });
  });

  it('lets the last line of a key win', () => {
    const file = join(dir, 'store.jsonl');
    appendFileSync(file, '["a",1]\n["a",2]\n');
    expect(readJournal(file).entries.get('a')).toBe(2);
  });

  it('rewrites the file with only what the process used once it holds more than twice that', () => {
    const file = join(dir, 'store.jsonl');
    const others = entries(COMPACTION_SLACK + 10, 'other');
    writeJournal(file, 0, others, others);
    const used = entries(5);
    expect(writeJournal(file, others.size, used, used)).toEqual({ lines: 5, rewritten: true });
    expect(readJournal(file)).toEqual({ entries: used, lines: 5 });
  });

  it('keeps appending while the file holds no more than twice what is used', () => {
    const file = join(dir, 'store.jsonl');
    const used = entries(COMPACTION_SLACK);
    writeJournal(file, 0, used, used);
    expect(writeJournal(file, used.size, used, entries(COMPACTION_SLACK, 'more'))).toMatchObject({ rewritten: false });
  });
});
