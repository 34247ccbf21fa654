/** What the monitoring checks share: the values of a monitoring chart, and the Alloy configuration inside them. */
import type { ChartValues } from '../../model/helm/chart-values.ts';
import { dig } from '../../model/core/dig.ts';
import { eachChartValues, type CheckContext, type ValuesFail } from '../../model/checks/kit.ts';
import { scalarText } from '../../model/core/text.ts';

export type Fail = ValuesFail;

/** The Alloy configuration a values file gives the alloy chart. */
export const alloyConfig = (values: unknown): string => scalarText(dig(values, ['alloy', 'configMap', 'content']) ?? '');
/** Each values file of `chart`, with a failer that points into it; the README is where the fix is explained. */
export const onValues = (ctx: CheckContext, chart: string, body: (v: ChartValues, fail: Fail) => void) =>
  eachChartValues(ctx, chart, 'monitoring/README.md', body);
