/** The scripts write into the checkout only regular files inside it (scripts/lib/checkout-write.ts). */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkoutWriteRefusal, writeInCheckout } from '../lib/checkout-write.ts';

const root = mkdtempSync(join(tmpdir(), 'checkout-write-'));
const outside = mkdtempSync(join(tmpdir(), 'checkout-outside-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('writing into the checkout', () => {
  it('writes a regular file, new or existing, and makes nothing else', () => {
    mkdirSync(join(root, 'docs'), { recursive: true });
    writeInCheckout(root, 'docs/a.md', 'one\n');
    writeInCheckout(root, 'docs/a.md', 'two\n');
    expect(readFileSync(join(root, 'docs/a.md'), 'utf8')).toBe('two\n');
  });

  it('refuses a symlinked file and names it, leaving its target untouched', () => {
    writeFileSync(join(outside, 'victim'), 'keep\n');
    symlinkSync(join(outside, 'victim'), join(root, 'docs/link.md'));
    expect(() => writeInCheckout(root, 'docs/link.md', 'owned\n')).toThrow(/^refusing to write: docs\/link\.md is a symlink \(to .*victim\)/);
    expect(readFileSync(join(outside, 'victim'), 'utf8')).toBe('keep\n');
  });

  it('refuses a path through a symlinked folder, and a path outside the checkout', () => {
    symlinkSync(outside, join(root, 'linked'));
    expect(checkoutWriteRefusal(root, 'linked/victim')).toMatch(/^linked is a symlink/);
    expect(checkoutWriteRefusal(root, '../elsewhere')).toMatch(/lies outside the checkout/);
    expect(checkoutWriteRefusal(root, 'docs')).toMatch(/^docs is not a regular file/);
    expect(checkoutWriteRefusal(root, 'docs/new.md')).toBeUndefined();
  });
});
