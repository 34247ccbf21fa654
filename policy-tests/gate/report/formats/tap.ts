/** TAP version 13, as kubeconform writes it: a test per resource, findings as YAML diagnostics; what nobody judged is a SKIP, never a pass. */
import type { GateResult } from '../../result.ts';
import { checkLabel, formatFinding, formatLocation } from '../../../model/core/findings.ts';
import { label, printable, type OutputFormatter } from './common.ts';

function tap(result: GateResult): string {
  const notes = [
    ...result.warnings.map((w) => `${printable(formatLocation(w))} ${checkLabel(w)} warning: ${printable(w.message)}`),
    ...result.notJudged.map((n) => `${printable(formatLocation(n))} ${checkLabel(n)} # SKIP not judged: ${printable(n.message)}`),
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
  // Warnings pass (the cluster or Argo CD takes them, with a caveat); what nobody judged is a SKIP, never a pass.
  notes.forEach((n, i) => out.push(`ok ${result.resources.length + i + 1} - ${n}`));
  return out.join('\n');
}

export const tapFormat: OutputFormatter = { render: tap };
