/** JUnit XML, as kubeconform writes it: a suite per file, a case per resource; warnings, not judged and not rendered each a suite of their own. */
import type { GateResult, ResourceResult } from '../../result.ts';
import { checkLabel, formatFinding, formatLocation, type Finding } from '../../../model/core/findings.ts';
import { label, type OutputFormatter } from './common.ts';

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
    items: readonly { file: string; line: number; col: number; check: string; message: string; layer?: Finding['layer'] }[],
    tag: 'system-out' | 'skipped',
  ) => {
    if (items.length === 0) return;
    out.push(`  <testsuite name="${xml(name)}" tests="${items.length}" failures="0" errors="0"${tag === 'skipped' ? ` skipped="${items.length}"` : ''}>`);
    for (const i of items) {
      out.push(`    <testcase classname="${xml(i.file)}" name="${xml(`${formatLocation(i)} ${checkLabel(i)}`)}">`);
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

export const junitFormat: OutputFormatter = { render: junit };
