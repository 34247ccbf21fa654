/**
 * The labels an alert's templates print of the series that fires it (model/monitoring/promql-expressions.ts), which
 * metrics-join holds to the labels the catalog gives those series.
 */
import { describe, expect, it } from 'vitest';
import { labelsReadBy } from '../../model/monitoring/promql-expressions.ts';

describe('the labels a template of an alert prints', () => {
  it('reads $labels.x, .Labels.x and index $labels "x", each at its offset', () => {
    const text = 'RAID {{ $labels.raidName }} on {{ .Labels.instance }} ({{ index $labels "disk-id" }})';
    expect(labelsReadBy(text)).toEqual([
      { label: 'raidName', offset: text.indexOf('$labels.raidName') },
      { label: 'instance', offset: text.indexOf('.Labels.instance') },
      { label: 'disk-id', offset: text.indexOf('index $labels') },
    ]);
  });
  it('reads nothing outside an action, nor $value or $externalLabels', () => {
    expect(labelsReadBy('the $labels.pod text {{ $value | humanize }} {{ $externalLabels.cluster }}')).toEqual([]);
  });
  it('reads every label of an action that prints several', () => {
    expect(labelsReadBy('{{ $labels.namespace }}/{{ $labels.pod }}{{ if $labels.container }} ({{ $labels.container }}){{ end }}').map((r) => r.label)).toEqual([
      'namespace',
      'pod',
      'container',
      'container',
    ]);
  });
});
