/**
 * A warm gate and a cold one (support/warm-cold.ts) on the unbroken repository and on a break of the admission
 * layer, whose validators and CEL programs are remembered: with the parse cache keyed by file name alone, the
 * admission case failed here (tried on 2026-11-28). The other areas: warm-equals-cold-checks and -programs.
 */
import { describe, expect, it } from 'vitest';
import { UNBROKEN, useWarmAndCold } from '../support/warm-cold.ts';

const judged = useWarmAndCold([UNBROKEN, 'admission']);

describe('a warm gate and a cold one', () => {
  it('give the unbroken repository the same verdict', async () => {
    const { warm, cold } = judged(UNBROKEN);
    expect(warm.summary.invalid).toBe(0);
    expect(warm).toEqual(await cold);
  });

  it('give the same verdict on a break of the admission layer', async () => {
    const { warm, cold } = judged('admission');
    expect(warm.summary.invalid, 'the break must show').toBeGreaterThan(0);
    expect(warm).toEqual(await cold);
  });
});
