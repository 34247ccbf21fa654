/**
 * The mutation lists judge each broken copy with a warm gate: parses, validators, CEL programs and check verdicts
 * remembered, by their inputs, from the runs before. That is only sound if what is remembered is keyed by all it
 * depends on. Here a warm verdict is held to a cold one: the same copy with the same break, judged again by a fresh
 * process with every warm-start store off (support/cold-gate.ts) on a copy of the tree as it then stood, so the
 * cold runs go on beside the next warm ones, for the unbroken copy and for one mutation of each
 * of several areas. Equal means every resource's status and findings, the warnings, what was not judged or not
 * rendered, and the coverage lines.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { output } from '../../../test-support/exec.ts';
import { runGate } from '../../gate/gate.ts';
import { copyGateOptions, copyRepo, type RepoCopy } from '../support/helpers.ts';
import { verdictOf } from '../support/verdict.ts';
import { MUTATION_LISTS } from '../mutations/all.ts';
import type { Mutation } from '../support/mutation-runner.ts';

const COLD_GATE = join(import.meta.dirname, '..', 'support', 'cold-gate.ts');

/**
 * One mutation of each of these areas, whose checks remember the most: the admission layer (validators, CEL
 * programs), the network policies (selector index), workloads, alert rules (PromQL parses) and app settings (data
 * files). With the parse cache keyed by file name alone, the first three fail here (tried on 2026-11-28).
 */
const AREAS = ['admission', 'network-policy', 'workload-hygiene', 'monitoring', 'media-settings'];
const CHOSEN: [string, Mutation][] = AREAS.map((area) => [area, MUTATION_LISTS[area]![0]![0]!]);

async function cold(root: string): Promise<unknown> {
  return JSON.parse(await output(process.execPath, [COLD_GATE, root], { env: { ...process.env, HOMELAB_GATE_STORES: 'off' } })) as unknown;
}

/** The tree as it stands, judged cold on a copy of its own: the next break is made while a fresh process judges this one. */
function coldOfSnapshot(root: string): Promise<unknown> {
  const snapshot = mkdtempSync(join(tmpdir(), 'cold-tree-'));
  cpSync(root, snapshot, { recursive: true });
  return cold(snapshot).finally(() => rmSync(snapshot, { recursive: true, force: true }));
}

describe('a warm gate and a cold one', () => {
  let copy: RepoCopy;
  const warm = async () => verdictOf(await runGate(copyGateOptions(copy.root)));
  /** Each case's warm verdict, and its cold one under way: the unbroken copy, then each area's break, in that order. */
  const judged = new Map<string, { warm: Awaited<ReturnType<typeof warm>>; cold: Promise<unknown> }>();
  beforeAll(async () => {
    copy = copyRepo();
    await warm(); // every memo filled from the unbroken copy, as the mutation lists find them
    for (const [name, mutation] of [['unbroken', undefined] as const, ...CHOSEN]) {
      try {
        mutation?.mutate(copy);
        const w = await warm();
        const c = coldOfSnapshot(copy.root);
        c.catch(() => undefined); // awaited by its test, which reports the failure
        judged.set(name, { warm: w, cold: c });
      } finally {
        copy.reset();
      }
    }
  });
  afterAll(async () => {
    await Promise.allSettled([...judged.values()].map((j) => j.cold));
    copy?.dispose();
  });

  it('give the unbroken repository the same verdict', async () => {
    const { warm: w, cold: c } = judged.get('unbroken')!;
    expect(w.summary.invalid).toBe(0);
    expect(w).toEqual(await c);
  });

  it.each(CHOSEN)('give the same verdict on a break of the %s area (%s)', async (area) => {
    const { warm: w, cold: c } = judged.get(area)!;
    expect(w.summary.invalid, 'the break must show').toBeGreaterThan(0);
    expect(w).toEqual(await c);
  });
});
