/** The file behind a warm-start store: appended a few lines per run, cut back when it grows, values parsed on use, a torn one a miss. */
import { createHmac } from 'node:crypto';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACTION_SLACK, readJournal, storedValue, writeJournal, type Journal } from '../../model/stores/store-journal.ts';
import { exec } from '../../../test-support/exec.ts';

let dir: string;
const SECRET = Buffer.alloc(32, 7);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'store-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What a journal holds, each value parsed as a run would ask for it. */
const values = (j: Journal) => new Map([...j.entries].map(([k, v]) => [k, storedValue(v)]));

/** A line as the gate signs it. */
const signed = (key: string, json: string) => `${key}\t${json}\t${createHmac('sha256', SECRET).update(`${key}\t${json}`).digest('base64url')}\n`;

const entries = (n: number, prefix = 'k') => new Map<string, unknown>(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { i }]));

describe('a store journal', () => {
  it('is empty when there is no file yet, and creates its folder on the first write', () => {
    const file = join(dir, 'deep', 'store.journal');
    expect(readJournal(file, SECRET)).toEqual({ entries: new Map(), lines: 0 });
    const fresh = entries(2);
    expect(writeJournal(file, { lines: 0, used: fresh, fresh }, SECRET)).toEqual({ lines: 2, rewritten: false });
    const journal = readJournal(file, SECRET);
    expect([values(journal), journal.lines]).toEqual([fresh, 2]);
  });

  it('appends only the fresh entries, leaving the lines already written as they were', () => {
    const file = join(dir, 'store.journal');
    const first = entries(3);
    writeJournal(file, { lines: 0, used: first, fresh: first }, SECRET);
    const before = readFileSync(file, 'utf8');
    const used = new Map([...first, ['new', 'value']]);
    expect(writeJournal(file, { lines: 3, used, fresh: new Map([['new', 'value']]) }, SECRET)).toEqual({ lines: 4, rewritten: false });
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe(signed('new', '"value"'));
    expect(values(readJournal(file, SECRET))).toEqual(used);
  });

  it('reads a value a killed run tore as a miss, skips a line that is no entry, and keeps every other entry', () => {
    const file = join(dir, 'store.journal');
    writeFileSync(file, `${signed('a', '1')}b\t{"tor\nno key here\n${signed('c', '3')}`);
    const journal = readJournal(file, SECRET);
    expect(journal.lines).toBe(4);
    // A line a killed run tore has no signature yet: no entry, so a miss, like one whose JSON is cut.
    expect(values(journal)).toEqual(
      new Map<string, unknown>([
        ['a', 1],
        ['c', 3],
      ]),
    );
    writeFileSync(file, signed('b', '{"tor'));
    expect(values(readJournal(file, SECRET))).toEqual(new Map([['b', undefined]]));
  });

  it('is no entry when another secret signed it, or nothing did: a planted line is never read', () => {
    const file = join(dir, 'store.journal');
    const forged = `a\t1\t${createHmac('sha256', Buffer.alloc(32, 9)).update('a\t1').digest('base64url')}\n`;
    writeFileSync(file, `${forged}b\t2\n${signed('c', '3')}c\t4\tnot-a-signature\n`);
    const journal = readJournal(file, SECRET);
    expect(values(journal)).toEqual(new Map([['c', 3]]));
    expect(journal.lines).toBe(4);
  });

  it('parses a value only when it is asked for', () => {
    const file = join(dir, 'store.journal');
    writeFileSync(file, signed('a', '{"big":[1,2,3]}'));
    const raw = readJournal(file, SECRET).entries.get('a');
    expect(raw).not.toEqual({ big: [1, 2, 3] });
    expect(storedValue(raw)).toEqual({ big: [1, 2, 3] });
  });

  it('lets the last line of a key win', () => {
    const file = join(dir, 'store.journal');
    appendFileSync(file, signed('a', '1') + signed('a', '2'));
    expect(storedValue(readJournal(file, SECRET).entries.get('a'))).toBe(2);
  });

  it('rewrites the file with only what the process used once it holds more than twice that', () => {
    const file = join(dir, 'store.journal');
    const others = entries(COMPACTION_SLACK + 10, 'other');
    writeJournal(file, { lines: 0, used: others, fresh: others }, SECRET);
    const used = entries(5);
    expect(writeJournal(file, { lines: others.size, used, fresh: used }, SECRET)).toEqual({ lines: 5, rewritten: true });
    const journal = readJournal(file, SECRET);
    expect([values(journal), journal.lines]).toEqual([used, 5]);
  });

  it('keeps appending while the file holds no more than twice what is used', () => {
    const file = join(dir, 'store.journal');
    const used = entries(COMPACTION_SLACK);
    writeJournal(file, { lines: 0, used, fresh: used }, SECRET);
    expect(writeJournal(file, { lines: used.size, used, fresh: entries(COMPACTION_SLACK, 'more') }, SECRET)).toMatchObject({ rewritten: false });
  });
});

describe('an outcome store', () => {
  it('follows HOMELAB_GATE_STORES on every use: off for a while (the cold part of the benchmark), then on again in the same process', async () => {
    // In a process of its own: a test never changes its worker's environment.
    const store = new URL('../../model/stores/outcome-store.ts', import.meta.url).href;
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

  it('keeps its files and its secret in the cache outside the checkout, reads back only what it signed, and keeps nothing when the secret is not private', async () => {
    const store = new URL('../../model/stores/outcome-store.ts', import.meta.url).href;
    const cache = join(dir, 'cache');
    const script = (value: string) => `const { outcomeStore, flushOutcomeStores } = await import(${JSON.stringify(store)});
      const s = outcomeStore('probe', () => 'make-up');
      const before = s.get(['a']) ?? 'none';
      s.set(['a'], ${JSON.stringify(value)});
      flushOutcomeStores();
      console.log(JSON.stringify(before));`;
    const env: NodeJS.ProcessEnv = { ...process.env, HOMELAB_CACHE_DIR: cache };
    delete env.HOMELAB_GATE_STORES;
    const first = await exec(process.execPath, ['--input-type=module', '-e', script('one')], { env });
    expect([first.stderr, JSON.parse(first.stdout)]).toEqual(['', 'none']);
    const journal = join(cache, 'gate-stores', 'probe.journal');
    expect(statSync(join(cache, 'gate-stores', 'secret')).mode & 0o777).toBe(0o600);
    // A line planted under the same key, without the secret: no entry, the stored value stands.
    const [key] = readFileSync(journal, 'utf8').split('\t');
    appendFileSync(journal, `${key}\t"planted"\tforged\n`);
    const second = await exec(process.execPath, ['--input-type=module', '-e', script('two')], { env });
    expect(JSON.parse(second.stdout)).toBe('one');
    // A secret others may read: no store at all, every result computed.
    chmodSync(join(cache, 'gate-stores', 'secret'), 0o644);
    const third = await exec(process.execPath, ['--input-type=module', '-e', script('three')], { env });
    expect(JSON.parse(third.stdout)).toBe('none');
  });
});
