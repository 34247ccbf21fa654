/** `npm run fuzz`: seeded broken copies of the repository, judged by the gate, none of them making a check throw. */
import { describe, expect, it } from 'vitest';
import { fuzz, fuzzCommand, misspell, type FuzzMode, type FuzzRun } from '../fuzz-gate.ts';

async function runsOf(mode: FuzzMode): Promise<FuzzRun[]> {
  const out: FuzzRun[] = [];
  await fuzz({ seed: 7, runs: 3, env: process.env, mode }, (r) => out.push(r));
  return out;
}

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let [out, err] = ['', ''];
  const code = await fuzzCommand(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
  return { code, out, err };
}

describe('npm run fuzz', () => {
  it('judges a few seeded broken copies, each red or passed, with no check and no gate thrown', async () => {
    const { code, out, err } = await run(['--seed', '7', '--runs', '3', '--greens']);
    expect(err).toBe('');
    expect(out.trim().split('\n').at(-1)).toMatch(/^seed 7: 3 runs, \d red, \d passed, 0 with a check that threw, 0 with the gate thrown$/);
    expect(code).toBe(0);
  });
  it('removes a node instead with --remove: the nodes the seed names, each said removed, and no check thrown', async () => {
    const [replaced, removed] = [await runsOf('replace'), await runsOf('remove')];
    expect(removed.map((r) => [r.file, r.path])).toEqual(replaced.map((r) => [r.file, r.path]));
    for (const r of removed) {
      expect(r).toMatchObject({ removed: true });
      expect(r).not.toHaveProperty('value');
      expect(['red', 'green']).toContain(r.outcome);
    }
    const { code, out } = await run(['--seed', '7', '--runs', '3', '--greens', '--remove']);
    expect(code).toBe(0);
    const greens = out.split('\n').filter((l) => l.startsWith('GREEN '));
    expect(greens).toHaveLength(removed.filter((r) => r.outcome === 'green').length);
    for (const line of greens) expect(line).toMatch(/^GREEN \S+ \[.*\] removed(: \d+ more not judged or not rendered)?$/);
  });
  it('writes a node with a typo with --misspell: its key or its text, one letter pair swapped or one letter changed', async () => {
    const misspelt = await runsOf('misspell');
    expect(misspelt).toHaveLength(3);
    for (const r of misspelt) {
      expect(r.misspelt).toBeDefined();
      const { key, from, to } = r.misspelt!;
      expect(to).not.toBe(from);
      expect(to).toHaveLength(from.length);
      if (key) expect(r.path.at(-1)).toBe(from);
      expect(['red', 'green']).toContain(r.outcome);
    }
    const { code, out } = await run(['--seed', '7', '--runs', '3', '--greens', '--misspell']);
    expect(code).toBe(0);
    for (const line of out.split('\n').filter((l) => l.startsWith('GREEN ')))
      expect(line).toMatch(/^GREEN \S+ \[.*\] (key|text) ".*" -> ".*"(: \d+ more not judged or not rendered)?$/);
  });
  it('misspells as a hand does: the letter drawn swapped with the next, or changed where they are alike or it is last', () => {
    expect(misspell('metrics', 0)).toBe('emtrics');
    expect(misspell('metrics', 0.99)).toBe('metrict');
    expect(misspell('app', 0.34)).toBe('aqp');
    expect(misspell('app', 0.7)).toBe('apq');
    expect(misspell('a-b', 0)).toBe('b-b');
    expect(misspell('port9', 0.9)).toBe('port0');
    expect(misspell('zz', 0)).toBe('yz');
    expect(misspell('--', 0.5)).toBeUndefined();
  });
  it('says its usage: --help exits 0, a count that is no whole number exits 2 in one line', async () => {
    expect((await run(['--help'])).code).toBe(0);
    expect(await run(['--runs', 'many'])).toEqual({
      code: 2,
      out: '',
      err: 'fuzz: --runs must be a whole number, got "many" (usage: fuzz [--seed N] [--runs N] [--greens] [--remove | --misspell])\n',
    });
    expect((await run(['--remove', '--misspell'])).code).toBe(2);
  });
});
