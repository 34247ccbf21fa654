/** Every mutation list, by area: the coverage test holds them against the registry. */
import { backupMutations } from './backup-mutations.ts';
import { coreMutations } from './core-mutations.ts';
import { componentMutations, fixtureMutations } from './falco-mutations.ts';
import { mediaMutations, mediaSettingsMutations } from './media-mutations.ts';
import { metricsMutations, monitoringMutations, routingMutations, wiringMutations } from './monitoring-mutations.ts';
import type { Mutation } from './mutation-runner.ts';
import { renderMutations } from './render-mutations.ts';
import { platformMutations } from './platform-mutations.ts';
import { admissionMutations } from './admission-mutations.ts';

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
