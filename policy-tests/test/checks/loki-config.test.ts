/**
 * monitoring-loki-config on a broken copy of the real repository (offline, on the blocks the values write into Loki's
 * file); what Loki takes passes, what it takes from its environment is not judged, and a reference read for another
 * chart judges nothing and says so.
 */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import type { RepoCopy } from '../support/helpers.ts';
import { lokiConfigMutations, lokiRenderedMutations, standInLoki } from '../mutations/loki-config.ts';
import { streamSelectorProblem } from '../../model/loki/validate.ts';

const VALUES = 'monitoring/loki/values.yaml';
const CHECK = 'monitoring-loki-config';

describeMutations('monitoring-loki-config bites on a broken copy of the real repository, offline', lokiConfigMutations);
describeMutations('monitoring-loki-config bites on a broken copy of the real repository, the chart rendered', lokiRenderedMutations, standInLoki());

/** What the check says of every copy offline: Loki's checks of the whole file wait for the chart's render. */
const OFFLINE = expect.stringContaining(
  "Loki's checks of its whole file (schema periods, structured metadata, retention, index directories) are judged once the chart renders",
);

describe('monitoring-loki-config', () => {
  it("passes what Loki takes: YAML 1.1's words into a bool, a byte size in KB or a bare number, a Prometheus duration, a field the reference leaves out", async () => {
    const takes = swap(
      VALUES,
      '  limits_config:\n',
      '  limits_config:\n    max_line_size: 256kb\n    max_label_names_per_series: 1_000\n    reject_old_samples: yes\n    max_query_lookback: 4w\n    ruler_alertmanager_config: {}\n',
    );
    expect(await onBrokenCopy(CHECK, takes)).toEqual({ failed: [], warned: [], notJudged: [OFFLINE] });
  });

  it('says a value Loki expands from its environment is not judged, and judges the rest', async () => {
    const expanded = swap(VALUES, '  limits_config:\n', '  limits_config:\n    max_line_size: ${MAX_LINE}\n    max_line_sise: 1\n');
    const { failed, notJudged } = await onBrokenCopy(CHECK, expanded);
    expect(failed.map((f) => f.message)).toEqual([expect.stringContaining('max_line_sise: field max_line_sise not found in type limits_config')]);
    expect(notJudged).toEqual([OFFLINE]);
  });

  it('judges nothing, and says so, where the chart is not the one the reference was read for', async () => {
    const bumped = (copy: RepoCopy) => {
      swap('monitoring/loki/application.yaml', 'targetRevision: 18.11.0', 'targetRevision: 19.0.0')(copy);
      swap(VALUES, '    retention_enabled: true\n', '    retention_enabled: true\n    retention_delete_dela: 2h\n')(copy);
    };
    const { failed, notJudged } = await onBrokenCopy(CHECK, bumped);
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([expect.stringContaining('deploys chart loki 19.0.0, the reference was read for 18.11.0')]);
  });

  it('fails a reference it cannot read, on its line', async () => {
    const { failed } = await onBrokenCopy(CHECK, swap('monitoring/loki/facts/config-reference.yaml', 'version: 3.7.6\n', 'version: [3]\n'));
    expect(failed.map((f) => `${f.file}: ${f.message}`)).toEqual([
      expect.stringMatching(/^monitoring\/loki\/facts\/config-reference.yaml: .* cannot be read \(it needs version/),
    ]);
  });
});

describe("Loki's stream selectors, as ParseMatchers(selector, true) reads them", () => {
  it("takes and refuses what Loki's own TestParseMatchers does (pkg/logql/syntax/parser_test.go, v3.7.6)", () => {
    expect(streamSelectorProblem(`{app="foo",cluster=~".+bar"}`)).toBeUndefined();
    expect(streamSelectorProblem(`{app!="foo",cluster=~".+bar",bar!~".?boo"}`)).toBeUndefined();
    expect(streamSelectorProblem(`{app!="foo",cluster=~".+bar",bar!~".?boo"`)).toBeDefined();
    expect(streamSelectorProblem(`{app!="foo",cluster=~".+bar",bar!~".?boo"} |= "test"`)).toBeDefined();
  });

  it('refuses a selector every matcher of which takes the empty value, a metric name, and a regex Go cannot compile', () => {
    expect(streamSelectorProblem(`{app=~".*", env!="prod"}`)).toContain('at least one regexp or equality matcher');
    expect(streamSelectorProblem(`{app=~".+"}`)).toBeUndefined();
    expect(streamSelectorProblem(`up{app="x"}`)).toBe('only label matchers are supported');
    expect(streamSelectorProblem(`{app=~"(x"}`)).toContain('error parsing regexp');
  });
});
