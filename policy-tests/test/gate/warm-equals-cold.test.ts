/**
 * The mutation lists judge each broken copy with a warm gate: parses, validators, CEL programs and check verdicts
 * remembered, by their inputs, from the runs before. That is only sound if what is remembered is keyed by all it
 * depends on. Here a warm verdict is held to a cold one: the same copy with the same break, judged again by a fresh
 * process with every warm-start store off (support/cold-gate.ts), for the unbroken copy and for one mutation of each
 * of several areas. Equal means every resource's status and findings, the warnings, what was not judged or not
 * rendered, and the coverage lines.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { output } from '../../../test-support/exec.ts';
import { runGate } from '../../gate/gate.ts';
import { copyRepo, type RepoCopy } from '../support/helpers.ts';
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

describe('a warm gate and a cold one', () => {
  let copy: RepoCopy;
  const warm = async () =>
    verdictOf(await runGate({ root: copy.root, cwd: copy.root, env: { ...process.env, HOMELAB_CHART_CACHE: join(copy.root, '.no-charts') } }));
  beforeAll(async () => {
    copy = copyRepo();
    await warm(); // every memo filled from the unbroken copy, as the mutation lists find them
  });
  afterAll(() => copy?.dispose());

  it('give the unbroken repository the same verdict', async () => {
    const [w, c] = [await warm(), await cold(copy.root)];
    expect(w.summary.invalid).toBe(0);
    expect(w).toEqual(c);
  });

  it.each(CHOSEN)('give the same verdict on a break of the %s area (%s)', async (_area, mutation) => {
    try {
      mutation.mutate(copy);
      const w = await warm();
      expect(w.summary.invalid, 'the break must show').toBeGreaterThan(0);
      expect(w).toEqual(await cold(copy.root));
    } finally {
      copy.reset();
    }
  });
});
