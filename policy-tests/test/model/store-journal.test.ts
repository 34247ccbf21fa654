/** The file behind a warm-start store: appended a few lines per run, cut back when it grows, values parsed on use, a torn one a miss. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACTION_SLACK, readJournal, storedValue, writeJournal, type Journal } from '../../model/store-journal.ts';
import { exec } from '../../../test-support/exec.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'store-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What a journal holds, each value parsed as a run would ask for it. */
const values = (j: Journal) => new Map([...j.entries].map(([k, v]) => [k, storedValue(v)]));

const entries = (n: number, prefix = 'k') => new Map<string, unknown>(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { i }]));

describe('a store journal', () => {
  it('is empty when there is no file yet, and creates its folder on the first write', () => {
    const file = join(dir, 'deep', 'store.journal');
    expect(readJournal(file)).toEqual({ entries: new Map(), lines: 0 });
    const fresh = entries(2);
    expect(writeJournal(file, 0, fresh, fresh)).toEqual({ lines: 2, rewritten: false });
    const journal = readJournal(file);
    expect([values(journal), journal.lines]).toEqual([fresh, 2]);
  });

  it('appends only the fresh entries, leaving the lines already written as they were', () => {
    const file = join(dir, 'store.journal');
    const first = entries(3);
    writeJournal(file, 0, first, first);
    const before = readFileSync(file, 'utf8');
    const used = new Map([...first, ['new', 'value']]);
    expect(writeJournal(file, 3, used, new Map([['new', 'value']]))).toEqual({ lines: 4, rewritten: false });
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe('new\t"value"\n');
    expect(values(readJournal(file))).toEqual(used);
  });

  it('reads a value a killed run tore as a miss, skips a line that is no entry, and keeps every other entry', () => {
    const file = join(dir, 'store.journal');
    writeFileSync(file, 'a\t1\nb\t{"tor\nno key here\nc\t3\n');
    const journal = readJournal(file);
    expect(journal.lines).toBe(4);
    expect(values(journal)).toEqual(
      new Map<string, unknown>([
        ['a', 1],
        ['b', undefined],
        ['c', 3],
      ]),
    );
  });

  it('parses a value only when it is asked for', () => {
    const file = join(dir, 'store.journal');
    writeFileSync(file, 'a\t{"big":[1,2,3]}\n');
    const raw = readJournal(file).entries.get('a');
    expect(raw).not.toEqual({ big: [1, 2, 3] });
    expect(storedValue(raw)).toEqual({ big: [1, 2, 3] });
  });

  it('lets the last line of a key win', () => {
    const file = join(dir, 'store.journal');
    appendFileSync(file, 'a\t1\na\t2\n');
    expect(storedValue(readJournal(file).entries.get('a'))).toBe(2);
  });

  it('rewrites the file with only what the process used once it holds more than twice that', () => {
    const file = join(dir, 'store.journal');
    const others = entries(COMPACTION_SLACK + 10, 'other');
    writeJournal(file, 0, others, others);
    const used = entries(5);
    expect(writeJournal(file, others.size, used, used)).toEqual({ lines: 5, rewritten: true });
    const journal = readJournal(file);
    expect([values(journal), journal.lines]).toEqual([used, 5]);
  });

  it('keeps appending while the file holds no more than twice what is used', () => {
    const file = join(dir, 'store.journal');
    const used = entries(COMPACTION_SLACK);
    writeJournal(file, 0, used, used);
    expect(writeJournal(file, used.size, used, entries(COMPACTION_SLACK, 'more'))).toMatchObject({ rewritten: false });
  });
});

describe('an outcome store', () => {
  it('follows HOMELAB_GATE_STORES on every use: off for a while (the cold part of the benchmark), then on again in the same process', async () => {
    // In a process of its own: a test never changes its worker's environment.
    const store = new URL('../../model/outcome-store.ts', import.meta.url).href;
    const script = `const { outcomeStore } = await import(${JSON.stringify(store)});
      const s = outcomeStore('probe-${process.pid}', () => 'make-up');
      process.env.HOMELAB_GATE_STORES = 'off';
      s.set(['a'], 1);
      const off = s.get(['a']) ?? 'none';
      delete process.env.HOMELAB_GATE_STORES;
      s.set(['a'], 2);
      console.log(JSON.stringify({ off, on: s.get(['a']) ?? 'none' }));`;
    const run = await exec(process.execPath, ['--input-type=module', '-e', script]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ off: 'none', on: 2 });
  });
});
