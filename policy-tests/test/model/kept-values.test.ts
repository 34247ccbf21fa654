/** Large values kept whole, one signed file each, the newest few: a file not signed whole is a miss, never trusted. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKept, writeKept } from '../../model/stores/kept-values.ts';

let dir: string;
const SECRET = Buffer.alloc(32, 7);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kept-values-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const VALUE = { summary: { valid: 3, invalid: 0 }, resources: ['a', 'b'] };

describe('a kept value', () => {
  it('is read back as written, and is a miss under another key or secret', () => {
    writeKept(dir, { key: 'k1', secret: SECRET, value: VALUE }, 8);
    expect(readKept(dir, 'k1', SECRET)).toEqual(VALUE);
    expect(readKept(dir, 'k2', SECRET)).toBeUndefined();
    expect(readKept(dir, 'k1', Buffer.alloc(32, 8))).toBeUndefined();
  });

  it('is a miss when its text was changed, or copied under another key', () => {
    writeKept(dir, { key: 'k1', secret: SECRET, value: VALUE }, 8);
    const text = readFileSync(join(dir, 'k1'), 'utf8');
    writeFileSync(join(dir, 'k1'), text.replace('"invalid":0', '"invalid":1'));
    expect(readKept(dir, 'k1', SECRET)).toBeUndefined();
    writeFileSync(join(dir, 'k2'), text);
    expect(readKept(dir, 'k2', SECRET)).toBeUndefined();
  });

  it('is a miss when torn by a killed run', () => {
    writeKept(dir, { key: 'k1', secret: SECRET, value: VALUE }, 8);
    const text = readFileSync(join(dir, 'k1'), 'utf8');
    for (const torn of [text.slice(0, 10), text.slice(0, text.length - 5), ''])
      expect((writeFileSync(join(dir, 'k1'), torn), readKept(dir, 'k1', SECRET))).toBeUndefined();
  });

  it('keeps only the newest values past its limit', () => {
    for (const [i, key] of ['old', 'middle', 'new'].entries()) {
      writeKept(dir, { key, secret: SECRET, value: VALUE }, 2);
      // Each written a minute after the one before, whatever the file system's clock granularity.
      utimesSync(join(dir, key), 1_000_000 + i * 60, 1_000_000 + i * 60);
    }
    writeKept(dir, { key: 'newest', secret: SECRET, value: VALUE }, 2);
    expect(readdirSync(dir).sort()).toEqual(['new', 'newest']);
  });
});
