/** The suite's shared workers (vitest.config.ts, `isolate: false`) hold only while no test file changes the process for the next. */
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../model/repo.ts';
import { sharedWorkerProblems, testSources } from '../support/shared-worker.ts';

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
});
