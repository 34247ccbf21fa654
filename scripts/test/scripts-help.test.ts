/**
 * Every npm script (package.json's, and the API's) answers --help as the contract says, and the docs name only what
 * the scripts are: split from command.test.ts, the contract's other half, as each proves its own.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { exec } from '../../test-support/exec.ts';

/** npm's scripts (package.json). */
const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/**
 * Each item through `work`, at most `width` at once, the results in the items' order: forty Node processes started
 * together each load their modules while the others do, and take longer in all than the cores' width of them in turn.
 */
async function inTurns<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, width) }, lane));
  return results;
}

/**
 * The flags a --help text lists as options (a line that starts with them, indented) that its usage line does not
 * name: a flag the script takes but its one-line usage, printed with every usage error, hides.
 */
function unlistedFlags(help: string): string[] {
  const [usage = '', ...body] = help.split('\n');
  // A usage line of `[options]` (the gate's, as kubeconform writes it) stands for all of them.
  if (/\[options\]/.test(usage)) return [];
  const listed = body.map((line) => /^\s+(--[a-z][a-z-]*)/.exec(line)?.[1]).filter((f): f is string => f !== undefined);
  return listed.filter((flag) => !new RegExp(`${flag}(?![a-z-])`).test(usage));
}

/**
 * Each `npm run` a tracked Markdown file tells a reader to type: the script (with `-w portfolio-api`, the API's),
 * and the flags given after `--`, as `name` and `flags`, with the file and line.
 */
async function documentedRuns(): Promise<{ at: string; name: string; flags: string[] }[]> {
  const files = (await exec('git', ['ls-files', '-z', '*.md', '*.yaml', '*.yml'], { cwd: REPO_ROOT })).stdout.split('\0').filter(Boolean);
  // A manifest's or settings file's comments are read at 2 a.m. as much as the READMEs: their commands are held alike.
  const said = (file: string, line: string) => (file.endsWith('.md') ? line : (/#(.*)$/.exec(line)?.[1] ?? ''));
  return files.flatMap((file) =>
    readFileSync(join(REPO_ROOT, file), 'utf8')
      .split('\n')
      .map((line) => said(file, line))
      .flatMap((line, i) =>
        [...line.matchAll(/npm run (?:--silent )?([a-z][a-z:-]*)( -w portfolio-api)?(?: -- ([^`|]*))?/g)].map((m) => ({
          at: `${file}:${i + 1}`,
          name: `${m[1]}${m[2] ?? ''}`,
          flags: m[3]?.match(/--[a-z][a-z-]*/g) ?? [],
        })),
      ),
  );
}

describe('every npm script', () => {
  const apiScripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'portfolio-api/package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const entries = [
    ...Object.entries(scripts).map(([name, line]) => ({ name, line, cwd: REPO_ROOT })),
    ...Object.entries(apiScripts).map(([name, line]) => ({ name: `${name} -w portfolio-api`, line, cwd: join(REPO_ROOT, 'portfolio-api') })),
  ];
  /** Each script's --help, run once for the tests below. */
  let helps: Promise<{ name: string; code: number | null; stdout: string; stderr: string }[]> | undefined;
  const helpOfEach = () =>
    (helps ??= inTurns(entries, availableParallelism(), async (e) => {
      // As npm runs it: the script's words, then --help (npm appends the arguments after --).
      const [command, ...args] = e.line.split(' ');
      const bin = command === 'node' ? process.execPath : join(REPO_ROOT, 'node_modules/.bin', command!);
      return { name: e.name, ...(await exec(bin, [...args, '--help'], { cwd: e.cwd, env: { ...process.env, npm_lifecycle_event: e.name } })) };
    }));

  it('--help prints its usage and exits 0, and writes nothing', async () => {
    expect(entries.length).toBeGreaterThan(20);
    const status = async () => (await exec('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: REPO_ROOT })).stdout;
    const before = await status();
    const results = (await helpOfEach()).map((r) => ({ ...r, usage: /^usage: /i.test(r.stdout), unlisted: unlistedFlags(r.stdout) }));
    // The tools' own --help (oxlint, oxfmt) print no "usage:" line of ours; every other script does.
    expect(results.filter((r) => r.code !== 0 || (!r.usage && !['lint', 'format'].includes(r.name)) || r.stderr !== '')).toEqual([]);
    const ours = results.filter((r) => !['lint', 'format'].includes(r.name));
    expect(ours.filter((r) => r.unlisted.length > 0).map((r) => `${r.name}: ${r.unlisted.join(' ')}`)).toEqual([]);
    expect(await status()).toBe(before);
  });

  it('is what the docs say to run: every `npm run` in a tracked Markdown file or YAML comment names a script, with flags its --help knows', async () => {
    const help = new Map((await helpOfEach()).map((r) => [r.name, r.stdout]));
    const runs = await documentedRuns();
    expect(runs.length).toBeGreaterThan(50);
    const wrong = runs.flatMap(({ at, name, flags }) => {
      const text = help.get(name);
      if (text === undefined) return [`${at}: npm run ${name}: no such script`];
      return flags.filter((f) => !new RegExp(`${f}(?![a-z-])`).test(text)).map((f) => `${at}: npm run ${name} -- ${f}: not a flag of the script`);
    });
    expect(wrong).toEqual([]);
  });
});
