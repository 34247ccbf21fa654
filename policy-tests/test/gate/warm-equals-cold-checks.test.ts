/**
 * A warm gate and a cold one (support/warm-cold.ts) on a break of the checks that index the objects they read:
 * the network policies (their selector index) and the workloads. With the parse cache keyed by file name alone,
 * both failed here (tried on 2026-11-28).
 */
import { describeWarmAndCold } from '../support/warm-cold.ts';

describeWarmAndCold(['network-policy', 'workload-hygiene']);
