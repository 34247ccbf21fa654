/** GitHub workflow commands: an ::error annotation per finding at its line, warnings and not rendered as ::warning, not judged as ::notice. */
import type { GateResult } from '../../result.ts';
import type { Finding } from '../../../model/core/findings.ts';
import { summaryLine, type OutputFormatter, type RenderOptions } from './common.ts';

/** GitHub's workflow command syntax; `%`, CR and LF must be escaped in data and properties. */
function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** An annotation's title: the check, and its layer after it where the finding carries one (`pod-security (admission)`). */
const titleOf = (f: Finding): string => (f.layer ? `${f.check} (${f.layer})` : f.check);

function github(result: GateResult, options: RenderOptions): string {
  const lines = result.resources.flatMap((r) =>
    r.findings.map(
      (f) =>
        `::error file=${escapeProperty(f.file)},line=${f.line},col=${f.col},title=${escapeProperty(titleOf(f))}::${escapeData(`${f.message}${f.fix ? ` (fix: ${f.fix})` : ''}`)}`,
    ),
  );
  lines.push(
    ...result.warnings.map(
      (w) => `::warning file=${escapeProperty(w.file)},line=${w.line},col=${w.col},title=${escapeProperty(titleOf(w))}::${escapeData(w.message)}`,
    ),
  );
  lines.push(
    ...result.notJudged.map(
      (n) =>
        `::notice file=${escapeProperty(n.file)},line=${n.line},col=${n.col},title=${escapeProperty(`${titleOf(n)} (not judged)`)}::${escapeData(n.message)}`,
    ),
  );
  lines.push(
    ...result.notRendered.map(
      (n) => `::warning file=${escapeProperty(n.file)},line=${n.line},col=${n.col},title=not-rendered::${escapeData(`${n.source}: ${n.message}`)}`,
    ),
  );
  if (options.summary || lines.length === 0) lines.push(summaryLine(result));
  return lines.join('\n');
}

export const githubFormat: OutputFormatter = { render: github };
