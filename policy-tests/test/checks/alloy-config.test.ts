/**
 * alloy-config-loads beyond its mutations: the stability level and community components the chart's command line
 * gives Alloy (the values' stabilityLevel and extraArgs, offline) let a component through that it refuses by default.
 */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { swap } from '../mutations/edits.ts';
import type { RepoCopy } from '../support/helpers.ts';

const CHECK = 'alloy-config-loads';
const ALLOY = 'monitoring/alloy/values.yaml';
const addFilter = swap(
  ALLOY,
  '      loki.write "default" {\n',
  '      loki.secretfilter "redact" {\n        forward_to = [loki.write.default.receiver]\n      }\n      loki.write "default" {\n',
);

describe(CHECK, () => {
  it('takes an experimental component where the chart runs Alloy at that stability level, and refuses it otherwise', async () => {
    expect((await onBrokenCopy(CHECK, addFilter)).failed.map((f) => f.message)).toEqual([expect.stringContaining('is at stability level "experimental"')]);
    const experimental = (c: RepoCopy) => {
      addFilter(c);
      c.edit(ALLOY, 0, (d) => d.setIn(['alloy', 'stabilityLevel'], 'experimental'));
    };
    expect((await onBrokenCopy(CHECK, experimental)).failed).toEqual([]);
  });

  it('takes a community component only with community components on', async () => {
    const pubsub = swap(
      ALLOY,
      '      loki.write "default" {\n',
      '      otelcol.receiver.googlecloudpubsub "x" {\n        subscription = "projects/lab/subscriptions/logs"\n        output {\n        }\n      }\n      loki.write "default" {\n',
    );
    expect((await onBrokenCopy(CHECK, pubsub)).failed.map((f) => f.message)).toEqual([expect.stringContaining('is a community component')]);
    const on = (c: RepoCopy) => {
      pubsub(c);
      c.edit(ALLOY, 0, (d) => d.setIn(['alloy', 'extraArgs'], d.createNode(['--feature.community-components.enabled=true'])));
    };
    expect((await onBrokenCopy(CHECK, on)).failed).toEqual([]);
  });
});
