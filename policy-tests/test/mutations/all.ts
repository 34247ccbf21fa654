/** Every mutation list, by area: the coverage test holds them against the registry. */
import { backupMutations } from './backups.ts';
import { coreMutations } from './core.ts';
import { componentMutations, fixtureMutations } from './falco.ts';
import { mediaMutations, mediaSettingsMutations } from './media.ts';
import { metricsMutations, monitoringMutations, routingMutations, wiringMutations } from './monitoring.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { renderMutations } from './render.ts';
import { platformMutations } from './platform.ts';
import { admissionMutations } from './admission.ts';

export const MUTATION_LISTS: Record<string, readonly Mutation[]> = {
  core: coreMutations,
  'falco tuning': fixtureMutations,
  'falco components': componentMutations,
  'watchdog wiring': wiringMutations,
  'alert routing': routingMutations,
  monitoring: monitoringMutations,
  metrics: metricsMutations,
  media: mediaMutations,
  'media settings': mediaSettingsMutations,
  backups: backupMutations,
  render: renderMutations,
  platform: platformMutations,
  admission: admissionMutations,
};

export const ALL_MUTATIONS: readonly Mutation[] = Object.values(MUTATION_LISTS).flat();
