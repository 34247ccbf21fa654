/**
 * A warm gate and a cold one (support/warm-cold.ts) on the unbroken repository and on a break of the admission
 * layer, whose validators and CEL programs are remembered: with the parse cache keyed by file name alone, the
 * admission case failed here (tried on 2026-11-28). The other areas: warm-equals-cold-checks and -programs.
 */
import { describeWarmAndCold, UNBROKEN } from '../support/warm-cold.ts';

describeWarmAndCold([UNBROKEN, 'admission']);
