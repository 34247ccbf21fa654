/**
 * What every output format shares: the interface one format meets, the
 * options the CLI passes, and the pieces several formats print alike (a
 * resource's label, the summary line, a finding as fields, text made safe
 * for a terminal).
 */
import type { GateResult, ResourceResult } from '../../result.ts';
import { formatFinding, type Finding } from '../../../model/core/findings.ts';

/** A check's metadata, as SARIF's rules carry it. */
export interface RuleInfo {
  id: string;
  description: string;
  remediation?: string;
  invariants?: readonly string[];
  layer: string;
}

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

/** One output format: the gate's result as the text a reader of that format expects. */
export interface OutputFormatter {
  render(result: GateResult, options: RenderOptions): string;
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

export function label(r: ResourceResult): string {
  return r.kind ? `${r.kind} ${printable(r.name) || '(unnamed)'}` : 'file';
}

export function message(r: ResourceResult): string {
  return r.findings.map(formatFinding).join('; ');
}

export function summaryLine(result: GateResult): string {
  const s = result.summary;
  const total = s.valid + s.invalid + s.errors + s.skipped;
  const notRendered = s.notRendered ? `, Not rendered: ${s.notRendered}` : '';
  const warnings = s.warnings ? `, Warnings: ${s.warnings}` : '';
  const notJudged = s.notJudged ? `, Not judged: ${s.notJudged}` : '';
  const cel = result.celRules
    ? `, CEL rules compiled: ${result.celRules.compiled}/${result.celRules.found}${result.celRules.notJudged.length ? ` (not judged: ${result.celRules.notJudged.length})` : ''}`
    : '';
  return `Summary: ${total} resource${total === 1 ? '' : 's'} found - Valid: ${s.valid}, Invalid: ${s.invalid}, Errors: ${s.errors}, Skipped: ${s.skipped}${notRendered}${warnings}${notJudged}${cel}${podSecurityText(result.podSecurity)}${result.policy ? '' : ' (schema layer only)'}`;
}

/** The Pod Security levels the namespaces holding pods were judged at: ", Pod Security: 9 namespaces (7 restricted, 1 baseline, 1 privileged; 2 exempt)". */
function podSecurityText(p: GateResult['podSecurity']): string {
  if (!p) return '';
  const { restricted, baseline, privileged } = p.enforced;
  const judged = restricted + baseline + privileged;
  const levels = [`${restricted} restricted`, `${baseline} baseline`, `${privileged} privileged`].join(', ');
  return `, Pod Security: ${judged} namespace${judged === 1 ? '' : 's'} (${levels}${p.exempt ? `; ${p.exempt} exempt` : ''})`;
}

/** One finding as fields, for tools that read JSON (the kubeconform-style `msg` string stays beside them). */
export function structured(f: Finding): {
  check: string;
  layer?: string;
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
    ...(f.layer ? { layer: f.layer } : {}),
    file: f.file,
    line: f.line,
    column: f.col,
    message: f.message,
    ...(f.fix ? { fix: f.fix } : {}),
    ...(f.causedBy ? { causedBy: f.causedBy } : {}),
    ...(f.consequences ? { consequences: f.consequences } : {}),
  };
}
