/**
 * Runtime security (S1-S10): the Falco sensor, its forwarder and network
 * policy, and the discipline of the custom tuning file.
 */

import { type PolicyCheck, type Area, staticArea } from '../../model/checks/kit.ts';
import { falcoChartChecks } from './chart-checks.ts';
import { falcoTuningChecks } from './tuning-checks.ts';
import { exemptionReachCheck } from './exemption-reach.ts';
import { knownNoiseCheck } from './known-noise.ts';
import { falcoctlConfigCheck } from './falcoctl-config.ts';
import { SECURITY_INVARIANTS } from './invariants.ts';

export const falcoChecks: PolicyCheck[] = [...falcoTuningChecks, exemptionReachCheck, knownNoiseCheck, ...falcoChartChecks, falcoctlConfigCheck];

export const falcoArea: Area = staticArea('falco', falcoChecks, SECURITY_INVARIANTS);
