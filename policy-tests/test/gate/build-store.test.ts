/**
 * The store of builds (policy-tests/build.mjs): its key covers what the build may read and nothing else, an
 * entry is taken only whole and as kept, and only where its key vouches for every input; the last few are kept. The
 * scripts' use of it, end to end with an esbuild that never answers: scripts/test/front-door-hook.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildKey, keepBuild, keptBuild } from '../../build.mjs';
import { REPO_ROOT } from '../../model/repository/repo.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'build-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const BUILD_FILE = join(REPO_ROOT, 'policy-tests/build.mjs');

/** A tree of the gate's shape: package.json, policy-tests/ with a module, a test and a README. */
function tree(): string {
  const root = join(dir, 'tree');
  mkdirSync(join(root, 'policy-tests/test'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{}\n');
  writeFileSync(join(root, 'policy-tests/index.ts'), 'export const A = 1;\n');
  writeFileSync(join(root, 'policy-tests/test/a.test.ts'), '// a test\n');
  writeFileSync(join(root, 'policy-tests/README.md'), '# the gate\n');
  return root;
}

const build = (inputs: string[]) => [
  { name: 'front-door.mjs', contents: Buffer.from('export const A = 1;\n') },
  { name: 'meta.json', contents: Buffer.from(JSON.stringify({ inputs: Object.fromEntries(inputs.map((i) => [i, {}])) })) },
];

describe('the key of a build', () => {
  it('changes with a source the build may read, and not with a test or a README', () => {
    const root = tree();
    const key = () => buildKey(root, join(root, 'policy-tests'), BUILD_FILE).key;
    const first = key();
    writeFileSync(join(root, 'policy-tests/test/a.test.ts'), '// another test\n');
    writeFileSync(join(root, 'policy-tests/README.md'), '# the gate, again\n');
    expect(key()).toBe(first);
    writeFileSync(join(root, 'policy-tests/index.ts'), 'export const A = 2;\n');
    expect(key()).not.toBe(first);
    expect([...buildKey(root, join(root, 'policy-tests'), BUILD_FILE).files]).toEqual(['package.json', 'policy-tests/index.ts']);
  });
});

describe('an entry of the store', () => {
  it('is taken as it was kept', () => {
    const built = { key: 'a'.repeat(64), files: new Set(['policy-tests/index.ts']) };
    keepBuild(dir, built.key, build(['policy-tests/index.ts']));
    expect(keptBuild(dir, built)?.map((f) => [f.name, f.contents.toString()])).toEqual(
      build(['policy-tests/index.ts']).map((f) => [f.name, f.contents.toString()]),
    );
  });

  it('is not taken where a file was altered or is missing, or an input lies outside what its key covers', () => {
    const built = { key: 'b'.repeat(64), files: new Set(['policy-tests/index.ts']) };
    keepBuild(dir, built.key, build(['policy-tests/index.ts']));
    writeFileSync(join(dir, built.key, 'front-door.mjs'), 'export const A = "forged";\n');
    expect(keptBuild(dir, built)).toBeUndefined();
    keepBuild(dir, built.key, build(['policy-tests/index.ts']));
    rmSync(join(dir, built.key, 'meta.json'));
    expect(keptBuild(dir, built)).toBeUndefined();
    // Built from a file of scripts/, which the key does not cover: a change there would not change the key.
    keepBuild(dir, built.key, build(['policy-tests/index.ts', 'scripts/lib/x.ts']));
    expect(keptBuild(dir, built)).toBeUndefined();
  });

  it('is one of the last eight kept or taken; what a killed run left aside goes after an hour', () => {
    const old = new Date(Date.now() - 7_200_000);
    for (let i = 0; i < 8; i++) {
      keepBuild(dir, String(i).repeat(64), build([]));
      const at = new Date(Date.now() - (8 - i) * 60_000);
      utimesSync(join(dir, String(i).repeat(64)), at, at);
    }
    // Entry 0, the oldest, taken again: the newest now.
    expect(keptBuild(dir, { key: '0'.repeat(64), files: new Set() })).toBeDefined();
    mkdirSync(join(dir, `${'c'.repeat(64)}.123.tmp`));
    utimesSync(join(dir, `${'c'.repeat(64)}.123.tmp`), old, old);
    keepBuild(dir, 'd'.repeat(64), build([]));
    // Kept: d and 0 (now), 7 to 2; 1, the oldest, dropped, and the abandoned folder.
    expect(readdirSync(dir).sort()).toEqual(['0', '2', '3', '4', '5', '6', '7', 'd'].map((c) => c.repeat(64)));
  });
});
