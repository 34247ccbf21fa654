/**
 * Output formats of the gate CLI, modeled on kubeconform (json, junit, tap)
 * and conftest (text), plus GitHub workflow annotations and SARIF.
 */
import { styleText } from 'node:util';
import type { GateResult, NotRendered as NotRenderedEntry, ResourceResult } from '../gate.ts';
import { formatFinding, formatLocation, type Finding } from '../../model/core/findings.ts';
import { sarif, type RuleInfo } from './sarif.ts';

export const OUTPUT_FORMATS = ['text', 'json', 'junit', 'tap', 'github', 'sarif'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface RenderOptions {
  summary: boolean;
  /** Also list valid and skipped resources (json, tap, junit always list them). */
  verbose: boolean;
  /** Colour the text format (a terminal without NO_COLOR). */
  color?: boolean;
  /** Rule metadata and the tool's name, for SARIF. */
  rules?: readonly RuleInfo[];
  tool?: { name: string; version: string; uri: string };
}

/**
 * Text a pull request wrote (names, file paths, values in messages), made safe
 * for a terminal or a CI log: control characters, ANSI escapes among them,
 * and line breaks are shown as \uXXXX, so a hostile name cannot recolour,
 * rewrite or forge lines of the report.
 */
export function printable(value: string): string {
  // oxlint-disable-next-line no-control-regex -- control characters are exactly what this escapes, so a file name cannot rewrite the terminal
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function label(r: ResourceResult): string {
  return r.kind ? `${r.kind} ${printable(r.name) || '(unnamed)'}` : 'file';
}

function message(r: ResourceResult): string {
  return r.findings.map(formatFinding).join('; ');
}

function summaryLine(result: GateResult): string {
  const s = result.summary;
  const total = s.valid + s.invalid + s.errors + s.skipped;
  const notRendered = s.notRendered ? `, Not rendered: ${s.notRendered}` : '';
  const warnings = s.warnings ? `, Warnings: ${s.warnings}` : '';
  const notJudged = s.notJudged ? `, Not judged: ${s.notJudged}` : '';
  const cel = result.celRules
    ? `, CEL rules compiled: ${result.celRules.compiled}/${result.celRules.found}${result.celRules.notJudged.length ? ` (not judged: ${result.celRules.notJudged.length})` : ''}`
    : '';
  return `Summary: ${total} resource${total === 1 ? '' : 's'} found - Valid: ${s.valid}, Invalid: ${s.invalid}, Errors: ${s.errors}, Skipped: ${s.skipped}${notRendered}${warnings}${notJudged}${cel}${result.policy ? '' : ' (schema layer only)'}`;
}

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
    return `${paint('red', 'FAIL')} - ${printable(formatLocation(f))} - ${label(r)} - [${f.check}] ${printable(f.message)}${f.fix ? ` (fix: ${printable(f.fix)})` : ''}${folded}${under}`;
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
    for (const w of result.warnings) lines.push(`${paint('yellow', 'WARN')} - ${printable(formatLocation(w))} - [${w.check}] ${printable(w.message)}`);
  if (options.verbose)
    for (const n of result.notJudged) lines.push(`${paint('yellow', 'NOT JUDGED')} - ${printable(formatLocation(n))} - [${n.check}] ${printable(n.message)}`);
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
      `${paint('yellow', 'WARN')} - ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}: the cluster admits them, and says so; --verbose lists them`,
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
      summary: result.summary,
    },
    null,
    2,
  );
}

/** One finding as fields, for tools that read JSON (the kubeconform-style `msg` string stays beside them). */
function structured(f: Finding): {
  check: string;
  file: string;
  line: number;
  column: number;
  message: string;
  fix?: string;
  causedBy?: string;
  consequences?: number;
} {
  return {
    check: f.check,
    file: f.file,
    line: f.line,
    column: f.col,
    message: f.message,
    ...(f.fix ? { fix: f.fix } : {}),
    ...(f.causedBy ? { causedBy: f.causedBy } : {}),
    ...(f.consequences ? { consequences: f.consequences } : {}),
  };
}

function xml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function junit(result: GateResult): string {
  const byFile = new Map<string, ResourceResult[]>();
  for (const r of result.resources) byFile.set(r.filename, [...(byFile.get(r.filename) ?? []), r]);
  const s = result.summary;
  const out = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="homelab-gitops gate" tests="${result.resources.length}" failures="${s.invalid}" errors="${s.errors}" skipped="${s.skipped}">`,
  ];
  for (const [file, rs] of byFile) {
    const failures = rs.filter((r) => r.status === 'invalid').length;
    const errors = rs.filter((r) => r.status === 'error').length;
    out.push(`  <testsuite name="${xml(file)}" tests="${rs.length}" failures="${failures}" errors="${errors}">`);
    for (const r of rs) {
      out.push(`    <testcase classname="${xml(file)}" name="${xml(label(r))}">`);
      if (r.status === 'invalid')
        out.push(`      <failure message="${xml(r.findings[0]?.message ?? 'invalid')}">${xml(r.findings.map(formatFinding).join('\n'))}</failure>`);
      if (r.status === 'error')
        out.push(`      <error message="${xml(r.findings[0]?.message ?? 'error')}">${xml(r.findings.map(formatFinding).join('\n'))}</error>`);
      if (r.status === 'skipped') out.push('      <skipped/>');
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  // The same report as the text: what the cluster warns about, what is not judged and what was not rendered, each a
  // suite of its own, so a JUnit reader counts them as the summary does.
  const noted = (
    name: string,
    items: readonly { file: string; line: number; col: number; check: string; message: string }[],
    tag: 'system-out' | 'skipped',
  ) => {
    if (items.length === 0) return;
    out.push(`  <testsuite name="${xml(name)}" tests="${items.length}" failures="0" errors="0"${tag === 'skipped' ? ` skipped="${items.length}"` : ''}>`);
    for (const i of items) {
      out.push(`    <testcase classname="${xml(i.file)}" name="${xml(`${formatLocation(i)} [${i.check}]`)}">`);
      out.push(tag === 'skipped' ? `      <skipped message="${xml(i.message)}"/>` : `      <system-out>${xml(i.message)}</system-out>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  };
  noted('warnings', result.warnings, 'system-out');
  noted('not judged', result.notJudged, 'skipped');
  noted(
    'not rendered',
    result.notRendered.map((n) => ({ ...n, check: 'not-rendered', message: `${n.source}: ${n.message}` })),
    'skipped',
  );
  out.push('</testsuites>');
  return out.join('\n');
}

function tap(result: GateResult): string {
  const notes = [
    ...result.warnings.map((w) => `${printable(formatLocation(w))} [${w.check}] warning: ${printable(w.message)}`),
    ...result.notJudged.map((n) => `${printable(formatLocation(n))} [${n.check}] # SKIP not judged: ${printable(n.message)}`),
    ...result.notRendered.map(
      (n) => `${printable(formatLocation(n))} Application ${printable(n.app)} # SKIP not rendered: ${printable(`${n.source}: ${n.message}`)}`,
    ),
  ];
  const out = ['TAP version 13', `1..${result.resources.length + notes.length}`];
  result.resources.forEach((r, i) => {
    const name = `${printable(r.filename)} - ${label(r)}`;
    if (r.status === 'skipped') out.push(`ok ${i + 1} - ${name} # SKIP`);
    else if (r.findings.length === 0) out.push(`ok ${i + 1} - ${name}`);
    else {
      out.push(`not ok ${i + 1} - ${name}`, '  ---', '  findings:');
      for (const f of r.findings) out.push(`    - ${JSON.stringify(formatFinding(f))}`);
      out.push('  ...');
    }
  });
  // Warnings pass (the cluster admits them); what nobody judged is a SKIP, never a pass.
  notes.forEach((n, i) => out.push(`ok ${result.resources.length + i + 1} - ${n}`));
  return out.join('\n');
}

/** GitHub's workflow command syntax; `%`, CR and LF must be escaped in data and properties. */
function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function github(result: GateResult, options: RenderOptions): string {
  const lines = result.resources.flatMap((r) =>
    r.findings.map(
      (f) =>
        `::error file=${escapeProperty(f.file)},line=${f.line},col=${f.col},title=${escapeProperty(f.check)}::${escapeData(`${f.message}${f.fix ? ` (fix: ${f.fix})` : ''}`)}`,
    ),
  );
  lines.push(
    ...result.warnings.map(
      (w) => `::warning file=${escapeProperty(w.file)},line=${w.line},col=${w.col},title=${escapeProperty(w.check)}::${escapeData(w.message)}`,
    ),
  );
  lines.push(
    ...result.notJudged.map(
      (n) => `::notice file=${escapeProperty(n.file)},line=${n.line},col=${n.col},title=${escapeProperty(`${n.check} (not judged)`)}::${escapeData(n.message)}`,
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

export function render(result: GateResult, format: OutputFormat, options: RenderOptions): string {
  switch (format) {
    case 'json':
      return json(result, options);
    case 'junit':
      return junit(result);
    case 'tap':
      return tap(result);
    case 'github':
      return github(result, options);
    case 'sarif':
      return sarif(result, options.rules ?? [], options.tool ?? { name: 'homelab-gate', version: '0.0.0', uri: '' });
    default:
      return text(result, options);
  }
}
