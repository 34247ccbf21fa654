/**
 * A warm verdict held to a cold one. The mutation lists judge each broken copy with a warm gate: parses,
 * validators, CEL programs and check verdicts remembered, by their inputs, from the runs before. That is only
 * sound if what is remembered is keyed by all it depends on. `useWarmAndCold` judges a copy of the real
 * repository warm, as the lists do, and the same copy with the same break again in a fresh process with every
 * warm-start store off (cold-gate.ts), on a snapshot of the tree as it then stood, so each cold run goes on
 * beside the next warm one. Equal means every resource's status and findings, the warnings, what was not judged
 * or not rendered, and the coverage lines. The cases are split over files by the memos they exercise
 * (policy-tests/test/gate/warm-equals-cold-*.test.ts), each file's cold processes a few seconds of work each.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { output } from '../../../test-support/exec.ts';
import { runGate } from '../../gate/gate.ts';
import { MUTATION_LISTS } from '../mutations/all.ts';
import { copyGateOptions, copyRepo, type RepoCopy } from './helpers.ts';
import type { Mutation } from './mutation-runner.ts';
import { verdictOf } from './verdict.ts';

type Verdict = ReturnType<typeof verdictOf>;

const COLD_GATE = join(import.meta.dirname, 'cold-gate.ts');

/** The unbroken copy, judged warm after the memos are filled from it. */
export const UNBROKEN = 'unbroken';

async function cold(root: string): Promise<unknown> {
  return JSON.parse(await output(process.execPath, [COLD_GATE, root], { env: { ...process.env, HOMELAB_GATE_STORES: 'off' } })) as unknown;
}

/** The tree as it stands, judged cold on a copy of its own: the next break is made while a fresh process judges this one. */
function coldOfSnapshot(root: string): Promise<unknown> {
  const snapshot = mkdtempSync(join(tmpdir(), 'cold-tree-'));
  cpSync(root, snapshot, { recursive: true });
  return cold(snapshot).finally(() => rmSync(snapshot, { recursive: true, force: true }));
}

/** The first mutation of an area's list: the break a file holds warm to cold for that area. */
export function firstMutation(area: string): Mutation {
  return MUTATION_LISTS[area]![0]![0]!;
}

export interface WarmAndCold {
  readonly warm: Verdict;
  /** Awaited by the case's test, which reports a cold run's failure. */
  readonly cold: Promise<unknown>;
}

/**
 * Registers the file's hooks: the memos filled from an unbroken copy, then each case judged warm in turn, its cold
 * run started on a snapshot. `cases` names UNBROKEN or an area of MUTATION_LISTS (its first mutation). Returns each
 * case's verdicts by name, once the hooks have run.
 */
export function useWarmAndCold(cases: readonly string[]): (name: string) => WarmAndCold {
  let copy: RepoCopy | undefined;
  const judged = new Map<string, WarmAndCold>();
  beforeAll(async () => {
    const repo = copyRepo();
    copy = repo;
    const warm = async () => verdictOf(await runGate(copyGateOptions(repo.root)));
    await warm(); // every memo filled from the unbroken copy, as the mutation lists find them
    for (const name of cases) {
      try {
        if (name !== UNBROKEN) firstMutation(name).mutate(repo);
        const w = await warm();
        const c = coldOfSnapshot(repo.root);
        c.catch(() => undefined); // awaited by its test, which reports the failure
        judged.set(name, { warm: w, cold: c });
      } finally {
        repo.reset();
      }
    }
  });
  afterAll(async () => {
    await Promise.allSettled([...judged.values()].map((j) => j.cold));
    copy?.dispose();
  });
  return (name) => {
    const found = judged.get(name);
    if (!found) throw new Error(`no warm and cold verdicts for ${name}: the file's hooks did not judge it`);
    return found;
  };
}

/**
 * The file's cases held warm to cold, a test each: the unbroken copy judged valid, each area's break shown, and the
 * warm verdict equal to the cold one.
 */
export function describeWarmAndCold(cases: readonly string[]): void {
  const judged = useWarmAndCold(cases);
  const label = (name: string) => (name === UNBROKEN ? 'the unbroken repository' : `a break of the ${name} area`);
  describe('a warm gate and a cold one', () => {
    it.each(cases.map((name) => [label(name), name] as const))('give the same verdict on %s', async (_label, name) => {
      const { warm, cold } = judged(name);
      if (name === UNBROKEN) expect(warm.summary.invalid).toBe(0);
      else expect(warm.summary.invalid, 'the break must show').toBeGreaterThan(0);
      expect(warm).toEqual(await cold);
    });
  });
}
