/** Shared by the checks that read Helm values: run on each values file of a chart, failing at a path inside it. */
import { chartValues, type ChartValues } from '../model/chart-values.ts';
import type { Path } from '../model/positions.ts';
import type { CheckContext } from './types.ts';

export type ValuesFail = (path: Path, message: string) => void;

/** Runs `body` on the values of `chart`; no Application deploying it is itself a finding, reported at `whereMissing`. */
export function onChartValues(ctx: CheckContext, chart: string, whereMissing: string, body: (v: ChartValues, fail: ValuesFail) => void): void {
  const found = chartValues(ctx.repo, chart);
  if (found.length === 0) ctx.failAtFile(whereMissing, `no Application deploys the ${chart} chart with values from this repo`);
  for (const v of found) {
    body(v, (path, message) => {
      const { line, col } = v.source.positions.at(path, 'key');
      ctx.failAt(v.file, line, col, message);
    });
  }
}
