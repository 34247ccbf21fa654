/** The layer of the gate a finding comes from, in the order a run judges: the file, its schema, the render, the API server's admission, the repository's policy. */
export type Layer = 'loader' | 'schema' | 'render' | 'admission' | 'policy';

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
  /** The layer it comes from, set when a run's result is assembled (gate/result.ts); every format prints it. */
  layer?: Layer;
}

/**
 * Why a reader refuses a text (a data file, a values text), at its place, with the loader's check the same error in a
 * manifest falls under: the reader that made the error knows which it is.
 */
export interface ParseError {
  line: number;
  col: number;
  message: string;
  check: 'yaml-syntax' | 'duplicate-key' | 'nesting-depth';
}

/**
 * How the `yaml` library words its own stack overflow, which it catches and reports as a syntax error: the call stack's
 * words, or a regular expression's it ran with the stack nearly spent.
 */
export const STACK_OVERFLOW = /Maximum call stack size exceeded|: Stack overflow$/;

/** A parse error in one line, as a reader prints it: `file:line:col: why`. */
export const parseErrorLine = (file: string, e: ParseError): string => `${file}:${e.line}:${e.col}: ${e.message}`;

/** The check id as a report shows it: `[check]`, after its layer when the finding carries one (`admission [pod-security]`). */
export function checkLabel(f: Pick<Finding, 'check' | 'layer'>): string {
  return `${f.layer ? `${f.layer} ` : ''}[${f.check}]`;
}

export function formatLocation(f: Pick<Finding, 'file' | 'line' | 'col'>): string {
  return `${f.file}:${f.line}:${f.col}`;
}

export function formatFinding(f: Finding): string {
  const fix = f.fix ? ` (fix: ${f.fix})` : '';
  return `${formatLocation(f)} ${checkLabel(f)} ${f.message}${fix}`;
}

/** Code-unit order: the same on every machine (a locale's collation is not), and no collator to start (some 9 ms a run). */
export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function byLocation(a: Finding, b: Finding): number {
  return byText(a.file, b.file) || a.line - b.line || a.col - b.col || byText(a.check, b.check);
}
