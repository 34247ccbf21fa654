/**
 * A warm gate and a cold one (support/warm-cold.ts) on a break of the checks that parse what they read: the alert
 * rules (PromQL) and the apps' settings (their data files).
 */
import { describeWarmAndCold } from '../support/warm-cold.ts';

describeWarmAndCold(['monitoring', 'media-settings']);
