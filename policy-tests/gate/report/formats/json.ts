/** kubeconform's JSON output (resources with a status and a `msg`), with each finding as fields and what was not judged or not rendered beside them. */
import type { GateResult } from '../../result.ts';
import { message, structured, type OutputFormatter, type RenderOptions } from './common.ts';

function json(result: GateResult, options: RenderOptions): string {
  const resources = result.resources
    .filter((r) => options.verbose || r.status === 'invalid' || r.status === 'error')
    .map((r) => ({
      filename: r.filename,
      kind: r.kind,
      version: r.version,
      name: r.name,
      status: `status${r.status[0]!.toUpperCase()}${r.status.slice(1)}`,
      msg: message(r),
      findings: r.findings.map(structured),
      ...(r.renderedBy ? { renderedBy: r.renderedBy } : {}),
    }));
  return JSON.stringify(
    {
      resources,
      notRendered: result.notRendered,
      warnings: result.warnings.map(structured),
      notJudged: result.notJudged.map(structured),
      ...(result.celRules ? { celRules: result.celRules } : {}),
      ...(result.podSecurity ? { podSecurity: result.podSecurity } : {}),
      summary: result.summary,
    },
    null,
    2,
  );
}

export const jsonFormat: OutputFormatter = { render: json };
