/**
 * A gate run's whole verdict as plain data, to compare two runs of one tree: every resource's status and findings,
 * the warnings, what was not judged, what was not rendered, and the coverage lines.
 */
import type { GateResult } from '../../gate/gate.ts';
import type { Finding } from '../../model/core/findings.ts';

const place = (f: Finding) => `${f.file}:${f.line}:${f.col} ${f.check} ${f.message}${f.fix ? ` (fix: ${f.fix})` : ''}`;

export function verdictOf(result: GateResult) {
  return {
    summary: result.summary,
    resources: result.resources.map((r) => `${r.filename} ${r.version}/${r.kind}/${r.name} ${r.status} ${r.findings.map(place).join(' | ')}`).sort(),
    warnings: result.warnings.map(place).sort(),
    notJudged: result.notJudged.map(place).sort(),
    notRendered: result.notRendered.map((n) => JSON.stringify(n)).sort(),
    celRules: result.celRules,
    podSecurity: result.podSecurity,
  };
}
