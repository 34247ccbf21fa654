/**
 * A warm gate and a cold one (support/warm-cold.ts) on a break of the checks that index the objects they read:
 * the network policies (their selector index) and the workloads. With the parse cache keyed by file name alone,
 * both failed here (tried on 2026-11-28).
 */
import { describe, expect, it } from 'vitest';
import { useWarmAndCold } from '../support/warm-cold.ts';

const AREAS = ['network-policy', 'workload-hygiene'];
const judged = useWarmAndCold(AREAS);

describe('a warm gate and a cold one', () => {
  it.each(AREAS)('give the same verdict on a break of the %s area', async (area) => {
    const { warm, cold } = judged(area);
    expect(warm.summary.invalid, 'the break must show').toBeGreaterThan(0);
    expect(warm).toEqual(await cold);
  });
});
