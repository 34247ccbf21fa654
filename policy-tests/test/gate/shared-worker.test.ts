/** The suite's scheduling (vitest.config.ts): shared workers (`isolate: false`) hold only while no test file changes the process for the next, and the longest files start first. */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { childEnv } from '../../../test-support/child-env.ts';
import { LONGEST_FILES, LongestFirst } from '../../../test-support/longest-first.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { MAIN_PROCESS_MODULES, sharedWorkerProblems, testSources } from '../support/shared-worker.ts';

const sources = testSources(REPO_ROOT);
const file = 'scripts/test/backup.test.ts';
const withLine = (line: string) => new Map([...sources, [file, `${line}\n${sources.get(file)}`]]);

describe('shared test workers', () => {
  it('no test file changes the environment, the globals, the clock, the modules or the process for the next', () => {
    expect(sources.size).toBeGreaterThan(60);
    expect(sharedWorkerProblems(sources)).toEqual([]);
  });

  it.each([
    ["process.env.RESTIC_PASSWORD = 'x';", 'assigns to process.env'],
    ["process.env['TZ'] ??= 'UTC';", 'assigns to process.env'],
    ['delete process.env.HOME;', 'deletes from process.env'],
    ['process.exitCode = 1;', 'sets process.exitCode'],
    ["vi.mock('node:fs');", 'calls vi.mock'],
    ["vi.stubEnv('TZ', 'UTC');", 'calls vi.stubEnv'],
    ['vi.useFakeTimers();', 'calls vi.useFakeTimers'],
    ["process.chdir('/tmp');", 'calls process.chdir'],
    ["process.on('SIGTERM', () => undefined);", 'calls process.on'],
    ['globalThis.fetch = async () => new Response();', 'assigns globalThis.fetch'],
  ])('fails on %s, at its line', (line, what) => {
    expect(sharedWorkerProblems(withLine(line))).toEqual([`${file}:1: ${what}`]);
  });

  it('leaves child scripts alone: they run in processes of their own', () => {
    const child = new Map([['scripts/test/writer.mjs', "process.on('SIGTERM', () => process.exit(0));"]]);
    expect(sharedWorkerProblems(child)).toEqual([]);
  });

  it("leaves alone exactly the config's global setup, which runs in vitest's main process before any worker", () => {
    const config = readFileSync(join(REPO_ROOT, 'vitest.config.ts'), 'utf8');
    const listed = [...(/globalSetup: \[([^\]]*)\]/.exec(config)?.[1] ?? '').matchAll(/'\.\/([^']+)'/g)].map((m) => m[1]);
    expect(listed).toEqual([...MAIN_PROCESS_MODULES]);
    const setup = new Map([...MAIN_PROCESS_MODULES].map((f) => [f, 'process.env.TMPDIR = dir;']));
    expect(sharedWorkerProblems(setup)).toEqual([]);
    expect(sharedWorkerProblems(new Map([['test-support/other.ts', 'process.env.TMPDIR = dir;']]))).toEqual([
      'test-support/other.ts:1: assigns to process.env',
    ]);
  });
});

describe('the order test files start in', () => {
  const spec = (file: string) =>
    ({ moduleId: join(REPO_ROOT, file), project: { name: '', config: { sequence: { groupOrder: 0 }, isolate: false } } }) as unknown as TestSpecification;
  const files = [
    'policy-tests/test/gate/layout.test.ts',
    'monitoring/watchdog/test/watchdog.test.ts',
    'scripts/test/backup.test.ts',
    'scripts/test/backup-postgres.test.ts',
  ];
  const order = (results: (file: string) => object | undefined) =>
    new LongestFirst({ cache: { getTestSpecificationResult: (s: TestSpecification) => results(s.moduleId) } } as unknown as Vitest)
      .sort(files.map(spec))
      .then((sorted) => sorted.map((s) => relative(REPO_ROOT, s.moduleId)));

  it('with no timings (a clean clone), starts the longest files first, in the listed order, then the rest', async () => {
    for (const file of LONGEST_FILES) expect(existsSync(join(REPO_ROOT, file)), file).toBe(true);
    expect(await order(() => undefined)).toEqual([
      'scripts/test/backup-postgres.test.ts',
      'scripts/test/backup.test.ts',
      'monitoring/watchdog/test/watchdog.test.ts',
      'policy-tests/test/gate/layout.test.ts',
    ]);
  });

  it('with timings of its own, follows them', async () => {
    const took = (file: string) => ({ failed: false, duration: file.endsWith('layout.test.ts') ? 9_000 : 1_000 });
    expect((await order(took))[0]).toBe('policy-tests/test/gate/layout.test.ts');
  });
});

describe('what the workers and the processes they start run with', () => {
  it("Go's collector off up to half a gigabyte, and Node's compile cache in node_modules/.cache; what the caller set wins", () => {
    expect(childEnv('/repo', {})).toEqual({
      GOGC: 'off',
      GOMEMLIMIT: '512MiB',
      NODE_COMPILE_CACHE: '/repo/node_modules/.cache/homelab-tests/node-compile-cache',
    });
    expect(childEnv('/repo', { GOGC: '100', NODE_COMPILE_CACHE: '/elsewhere' })).toEqual({ GOMEMLIMIT: '512MiB' });
  });

  it('reaches this worker, so every process a test starts inherits it', () => {
    const config = readFileSync(join(REPO_ROOT, 'vitest.config.ts'), 'utf8');
    expect(config).toContain('env: childEnv(import.meta.dirname),');
    for (const name of ['GOGC', 'GOMEMLIMIT', 'NODE_COMPILE_CACHE']) expect(process.env[name], name).toBeDefined();
  });
});
