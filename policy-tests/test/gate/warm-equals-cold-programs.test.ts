/**
 * A warm gate and a cold one (support/warm-cold.ts) on a break of the checks that parse what they read: the alert
 * rules (PromQL) and the apps' settings (their data files).
 */
import { describe, expect, it } from 'vitest';
import { useWarmAndCold } from '../support/warm-cold.ts';

const AREAS = ['monitoring', 'media-settings'];
const judged = useWarmAndCold(AREAS);

describe('a warm gate and a cold one', () => {
  it.each(AREAS)('give the same verdict on a break of the %s area', async (area) => {
    const { warm, cold } = judged(area);
    expect(warm.summary.invalid, 'the break must show').toBeGreaterThan(0);
    expect(warm).toEqual(await cold);
  });
});
