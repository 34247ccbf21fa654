/** `npm run fuzz`: seeded broken copies of the repository, judged by the gate, none of them making a check throw. */
import { describe, expect, it } from 'vitest';
import { fuzz, fuzzCommand, type FuzzRun } from '../fuzz-gate.ts';

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
    const runsOf = async (remove: boolean) => {
      const out: FuzzRun[] = [];
      await fuzz({ seed: 7, runs: 3, env: process.env, remove }, (r) => out.push(r));
      return out;
    };
    const [replaced, removed] = [await runsOf(false), await runsOf(true)];
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
  it('says its usage: --help exits 0, a count that is no whole number exits 2 in one line', async () => {
    expect((await run(['--help'])).code).toBe(0);
    expect(await run(['--runs', 'many'])).toEqual({
      code: 2,
      out: '',
      err: 'fuzz: --runs must be a whole number, got "many" (usage: fuzz [--seed N] [--runs N] [--greens] [--remove])\n',
    });
  });
});
