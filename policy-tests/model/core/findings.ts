/** One problem the gate found, always pinned to a place in a file. */
export interface Finding {
  file: string;
  line: number;
  col: number;
  /** The check id (schema-layer ids such as `schema` or policy ids such as `argocd-sync-policy`). */
  check: string;
  message: string;
  /** How to fix it; shown next to the message. */
  fix?: string;
  /** Index of the YAML document inside `file`, when the finding belongs to one resource. */
  doc?: number;
  /** Index of the item, when that resource is an item of a List. */
  item?: number;
  /** The rendered resource's id (`<application>#<index>`), when the finding is about one. */
  rendered?: string;
  /**
   * `warning`: what the API server admits but warns about (Pod Security's
   * warn and audit levels). Listed apart, and never fails the gate.
   * `not-judged`: what a check could not judge, with the reason (a port an
   * upstream process may serve undeclared). Counted and listed apart: never
   * a failure, never reported as fine.
   */
  severity?: 'warning' | 'not-judged';
  /** `file:line:col` of the finding that causes this one (gate/root-causes.ts): listed under it, with --verbose. */
  causedBy?: string;
  /** How many findings follow from this one. */
  consequences?: number;
}

export function formatLocation(f: Pick<Finding, 'file' | 'line' | 'col'>): string {
  return `${f.file}:${f.line}:${f.col}`;
}

export function formatFinding(f: Finding): string {
  const fix = f.fix ? ` (fix: ${f.fix})` : '';
  return `${formatLocation(f)} [${f.check}] ${f.message}${fix}`;
}

export function byLocation(a: Finding, b: Finding): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.check.localeCompare(b.check);
}
