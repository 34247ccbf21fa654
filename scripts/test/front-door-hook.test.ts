/**
 * The scripts load the gate's front door from the gate's build (scripts/front-door-hook.mjs): built at the first import
 * where it is missing or older than a source, never for a --help, and read from the sources where it cannot be built.
 * Run on a copy of the code (policy-tests/ without its build and tests, scripts/), so that the repository's own build
 * is never stale or missing for the other tests while these run.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { exec } from '../../test-support/exec.ts';

let copy = '';
const built = () => join(copy, 'policy-tests/dist/front-door.mjs');
/** A script of the copy that imports the front door: where its import resolves to, and a name the door exports. */
const PROBE = `const door = await import('../policy-tests/index.ts');
process.stdout.write(\`\${import.meta.resolve('../policy-tests/index.ts')}\\n\${door.REPO_ROOT}\\n\${'PROBE' in door ? String(door.PROBE) : 'no probe'}\\n\`);
`;
/** The copy's own cache: its builds are kept in a store of their own (policy-tests/build.mjs), not the machine's. */
const env = () => ({ ...process.env, HOMELAB_CACHE_DIR: join(copy, 'cache') });
const runScript = (...args: string[]) => exec(process.execPath, [join(copy, 'scripts/run.mjs'), ...args], { cwd: copy, env: env() });
/** An esbuild that never answers, under a time limit of 0.2 s: a build fails, and only the store can answer. */
const hungEsbuild = () => {
  writeFileSync(join(copy, 'hung-esbuild.sh'), '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
  return { ESBUILD_BINARY_PATH: join(copy, 'hung-esbuild.sh'), HOMELAB_BUILD_TIMEOUT: '0.2' };
};

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'front-door-'));
  cpSync(join(REPO_ROOT, 'policy-tests'), join(copy, 'policy-tests'), {
    recursive: true,
    filter: (src) => !/\/policy-tests\/(dist|test)$/.test(src),
  });
  cpSync(join(REPO_ROOT, 'scripts'), join(copy, 'scripts'), { recursive: true, filter: (src) => !src.endsWith('/scripts/test') });
  for (const file of ['package.json', '.node-version']) cpSync(join(REPO_ROOT, file), join(copy, file));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
  writeFileSync(join(copy, 'scripts/probe-door.ts'), PROBE);
});

afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

describe("a script's import of the front door", () => {
  it('builds nothing for a --help, which never loads the door', async () => {
    expect(await runScript('scripts/fork.ts', '--help')).toMatchObject({ code: 0 });
    expect(existsSync(join(copy, 'policy-tests/dist'))).toBe(false);
  });

  it('builds the door where it is missing, and loads the built file', async () => {
    const probe = await runScript('scripts/probe-door.ts');
    expect(probe).toEqual({ code: 0, stdout: `${pathToFileURL(built()).href}\n${copy}/\nno probe\n`, stderr: '' });
    // One build makes the gate's bundle too: the gate's next run does not build again.
    expect(existsSync(join(copy, 'policy-tests/dist/homelab-gate.mjs'))).toBe(true);
  });

  it('builds it again where a source changed since, and the script sees the change', async () => {
    const index = join(copy, 'policy-tests/index.ts');
    writeFileSync(index, `${readFileSync(index, 'utf8')}export const PROBE = 'rebuilt';\n`);
    // Written after the build, whatever the file system's clock grain.
    const before = statSync(built()).mtimeMs;
    const later = new Date(before + 2_000);
    utimesSync(index, later, later);
    const probe = await runScript('scripts/probe-door.ts');
    expect(probe).toEqual({ code: 0, stdout: `${pathToFileURL(built()).href}\n${copy}/\nrebuilt\n`, stderr: '' });
    expect(statSync(built()).mtimeMs).toBeGreaterThan(before);
  });

  it('takes the build from the store where the same sources were built before, and builds again where its entry was altered', async () => {
    const store = join(copy, 'cache/gate-builds');
    const kept = readFileSync(built());
    // The entry the last build kept: the one that holds its door.
    const entries = readdirSync(store).filter((name) => /^[0-9a-f]{64}$/.test(name));
    const key = entries.find((name) => readFileSync(join(store, name, 'front-door.mjs')).equals(kept));
    expect(key).toBeDefined();
    rmSync(join(copy, 'policy-tests/dist'), { recursive: true, force: true });
    // A fresh checkout of the same sources: no esbuild answers, and the door is the one built before.
    const fromStore = await exec(process.execPath, [join(copy, 'scripts/run.mjs'), 'scripts/probe-door.ts'], {
      cwd: copy,
      env: { ...env(), ...hungEsbuild() },
    });
    expect(fromStore).toEqual({ code: 0, stdout: `${pathToFileURL(built()).href}\n${copy}/\nrebuilt\n`, stderr: '' });
    expect(readFileSync(built()).equals(kept)).toBe(true);
    // An entry whose bundle was altered is not taken: the door is built again, and the entry replaced.
    for (const name of entries) writeFileSync(join(store, name, 'front-door.mjs'), 'export const PROBE = "forged";\n');
    rmSync(join(copy, 'policy-tests/dist'), { recursive: true, force: true });
    expect(await runScript('scripts/probe-door.ts')).toEqual({ code: 0, stdout: `${pathToFileURL(built()).href}\n${copy}/\nrebuilt\n`, stderr: '' });
    expect(readFileSync(join(store, key!, 'front-door.mjs')).equals(readFileSync(built()))).toBe(true);
  });

  it('stops a build that hangs at its time limit, in one line, and the script reads the sources', async () => {
    rmSync(join(copy, 'policy-tests/dist'), { recursive: true, force: true });
    // An esbuild that never answers: the build's time limit is all that ends it (a store that never kept these sources).
    const hung = { ...env(), ...hungEsbuild(), HOMELAB_CACHE_DIR: join(copy, 'empty-cache') };
    const stopped = 'esbuild did not finish within 0.2 s (HOMELAB_BUILD_TIMEOUT); stopped';
    const probe = await exec(process.execPath, [join(copy, 'scripts/run.mjs'), 'scripts/probe-door.ts'], { cwd: copy, env: hung });
    expect(probe).toEqual({
      code: 0,
      stdout: `${pathToFileURL(join(copy, 'policy-tests/index.ts')).href}\n${copy}/\nrebuilt\n`,
      stderr: `scripts: reading the gate's sources, since its front door cannot be built: build: ${stopped}\n`,
    });
    // The gate's own start builds the same way, and stops the same way: one line, exit 1.
    const gate = await exec(process.execPath, [join(copy, 'policy-tests/bin/homelab-gate.mjs'), '--help'], { cwd: copy, env: hung });
    expect(gate).toEqual({ code: 1, stdout: '', stderr: `homelab-gate: cannot build the gate: ${stopped}\n` });
    expect(existsSync(built())).toBe(false);
    const misset = await exec(process.execPath, [join(copy, 'policy-tests/bin/homelab-gate.mjs'), '--help'], {
      cwd: copy,
      env: { ...hung, HOMELAB_BUILD_TIMEOUT: 'soon' },
    });
    expect(misset).toEqual({
      code: 1,
      stdout: '',
      stderr: 'homelab-gate: cannot build the gate: HOMELAB_BUILD_TIMEOUT must be a positive number of seconds, got "soon"\n',
    });
  });

  it('reads the sources where the door cannot be built, and says why', async () => {
    rmSync(join(copy, 'policy-tests/dist'), { recursive: true, force: true });
    // A file where the build's folder would be: nothing can be written there.
    writeFileSync(join(copy, 'policy-tests/dist'), 'not a folder\n');
    const probe = await runScript('scripts/probe-door.ts');
    expect(probe).toMatchObject({ code: 0, stdout: `${pathToFileURL(join(copy, 'policy-tests/index.ts')).href}\n${copy}/\nrebuilt\n` });
    expect(probe.stderr).toMatch(/^scripts: reading the gate's sources, since its front door cannot be built: build: .*dist.*\n$/);
  });
});
