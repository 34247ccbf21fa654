/** The text format, modeled on conftest: the root causes first, one line per finding, what was not judged or not rendered never hidden, the summary last. */
import { styleText } from 'node:util';
import type { GateResult, NotRendered as NotRenderedEntry, ResourceResult } from '../../result.ts';
import { checkLabel, formatLocation, type Finding } from '../../../model/core/findings.ts';
import { label, printable, summaryLine, type OutputFormatter, type RenderOptions } from './common.ts';

/** One line for the sources nobody judged: how many, of which Applications, and the command that renders them. */
function notRenderedSummary(notRendered: readonly NotRenderedEntry[]): string {
  const apps = [...new Set(notRendered.map((n) => n.app))];
  const charts = notRendered.filter((n) => n.message.includes('charts:pull')).length;
  const shown = apps.slice(0, 4).join(', ') + (apps.length > 4 ? `, and ${apps.length - 4} more` : '');
  const fix = charts ? `; ${charts} of them are charts not in the cache: npm run charts:pull` : '';
  return `${notRendered.length} source${notRendered.length === 1 ? '' : 's'} not rendered, so not judged (${shown})${fix}; --verbose lists each with its cause`;
}

/** Sources nobody judged: always shown, so a green run never hides them. */
function notRenderedLines(result: GateResult, paint: (format: 'yellow', value: string) => string): string[] {
  return result.notRendered.map(
    (n) =>
      `${paint('yellow', 'NOT RENDERED')} - ${printable(formatLocation(n))} - Application ${printable(n.app)} - ${printable(n.source)}: ${printable(n.message)}`,
  );
}

function text(result: GateResult, options: RenderOptions): string {
  const paint = (format: 'red' | 'green' | 'yellow', value: string) => (options.color ? styleText(format, value, { validateStream: false }) : value);
  const lines: string[] = [];
  const fail = (r: ResourceResult, f: Finding) => {
    const folded = f.consequences
      ? `; and ${f.consequences} more finding${f.consequences === 1 ? '' : 's'} caused by this${options.verbose ? '' : ', --verbose lists them'}`
      : '';
    const under = f.causedBy ? ` (caused by ${printable(f.causedBy)})` : '';
    return `${paint('red', 'FAIL')} - ${printable(formatLocation(f))} - ${label(r)} - ${checkLabel(f)} ${printable(f.message)}${f.fix ? ` (fix: ${printable(f.fix)})` : ''}${folded}${under}`;
  };
  // The root causes first (gate/root-causes.ts), then the rest; what a cause explains is listed with --verbose.
  for (const r of result.resources) for (const f of r.findings) if (f.consequences) lines.push(fail(r, f));
  for (const r of result.resources) {
    for (const f of r.findings) if (!f.consequences && (options.verbose || !f.causedBy)) lines.push(fail(r, f));
    if (options.verbose && r.findings.length === 0)
      lines.push(
        `${r.status === 'skipped' ? paint('yellow', 'SKIP') : paint('green', 'PASS')} - ${printable(r.filename)} - ${label(r)}${r.renderedBy ? ` (rendered by ${printable(r.renderedBy)})` : ''}`,
      );
  }
  // Warnings are admitted by the API server: listed with --verbose, counted in the summary always.
  if (options.verbose)
    for (const w of result.warnings) lines.push(`${paint('yellow', 'WARN')} - ${printable(formatLocation(w))} - ${checkLabel(w)} ${printable(w.message)}`);
  if (options.verbose)
    for (const n of result.notJudged)
      lines.push(`${paint('yellow', 'NOT JUDGED')} - ${printable(formatLocation(n))} - ${checkLabel(n)} ${printable(n.message)}`);
  if (options.verbose)
    for (const n of result.celRules?.notJudged ?? [])
      lines.push(`${paint('yellow', 'NOT JUDGED')} - CEL rule of ${printable(n.crd)} at ${printable(String(n.at))}: ${printable(n.why)}`);
  // Sources nobody judged are never hidden, but offline there are many: one line with the count and the fix, each
  // listed with --verbose. With --require-rendered each one is already a finding above.
  const unlisted = result.notRendered.filter((n) => !lines.some((l) => l.includes(n.message)));
  if (options.verbose) lines.push(...notRenderedLines({ ...result, notRendered: unlisted }, paint));
  else if (unlisted.length) lines.push(`${paint('yellow', 'NOT RENDERED')} - ${notRenderedSummary(unlisted)}`);
  if (!options.verbose && result.warnings.length)
    lines.push(
      `${paint('yellow', 'WARN')} - ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}: the cluster or Argo CD takes them, with a caveat said; --verbose lists them`,
    );
  const notJudged = result.notJudged.length + (result.celRules?.notJudged.length ?? 0);
  if (!options.verbose && notJudged)
    lines.push(
      `${paint('yellow', 'NOT JUDGED')} - ${notJudged} thing${notJudged === 1 ? '' : 's'} the gate cannot judge, never counted as passing; --verbose lists them`,
    );
  // The summary is always the last line, on a failing run too.
  lines.push(summaryLine(result));
  return lines.join('\n');
}

export const textFormat: OutputFormatter = { render: text };
