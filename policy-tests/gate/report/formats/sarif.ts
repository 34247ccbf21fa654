/**
 * SARIF 2.1.0 for GitHub code scanning and other SARIF readers, built with
 * node-sarif-builder. Rules carry the registry's metadata: the description,
 * the remediation as help, and the invariant ids as tags.
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SarifBuilder, SarifResultBuilder, SarifRuleBuilder, SarifRunBuilder } from 'node-sarif-builder';
import type { GateResult } from '../../result.ts';
import type { OutputFormatter, RuleInfo } from './common.ts';

/**
 * A finding's file as SARIF's artifact URI: a repository path as a relative reference with each segment
 * percent-encoded, a path outside the repository as a file: URL. Given raw, a space made the log invalid, and a
 * `#` or `?` cut the path short, so a reader opened another file.
 */
export function artifactUri(file: string): string {
  return isAbsolute(file) ? pathToFileURL(file).href : file.split('/').map(encodeURIComponent).join('/');
}

export function sarif(result: GateResult, rules: readonly RuleInfo[], tool: { name: string; version: string; uri: string }): string {
  const run = new SarifRunBuilder().initSimple({ toolDriverName: tool.name, toolDriverVersion: tool.version, url: tool.uri });
  for (const rule of rules) {
    run.addRule(
      new SarifRuleBuilder({
        id: rule.id,
        shortDescription: { text: rule.description },
        ...(rule.remediation ? { help: { text: rule.remediation } } : {}),
        defaultConfiguration: { level: 'error' },
        properties: { tags: [rule.layer, ...(rule.invariants ?? [])] },
      }),
    );
  }
  const add = (level: 'error' | 'warning' | 'note', f: { check: string; message: string; fix?: string; file: string; line: number; col: number }) => {
    const result = new SarifResultBuilder().initSimple({
      level,
      ruleId: f.check,
      messageText: f.fix ? `${f.message} (fix: ${f.fix})` : f.message,
      fileUri: artifactUri(f.file),
    });
    // A finding is a point, not a span: the builder's default end (column 1 of the same line) ended the region
    // before it began. Without an end, the region runs to the end of the start line, as SARIF defines it.
    result.setLocationRegion({ startLine: Math.max(1, f.line), startColumn: Math.max(1, f.col) });
    run.addResult(result);
  };
  // The same report as the text: failures as errors, what the API server warns about as warnings, and what
  // nobody judged (a check's not-judged, a source not rendered) as notes.
  for (const r of result.resources) for (const f of r.findings) add('error', f);
  for (const w of result.warnings) add('warning', w);
  for (const n of result.notJudged) add('note', { ...n, message: `not judged: ${n.message}` });
  for (const n of result.notRendered) add('note', { ...n, check: 'not-rendered', message: `${n.source}: ${n.message}` });
  const log = new SarifBuilder();
  log.addRun(run);
  return log.buildSarifJsonString({ indent: true });
}

export const sarifFormat: OutputFormatter = {
  render: (result, options) => sarif(result, options.rules ?? [], options.tool ?? { name: 'homelab-gate', version: '0.0.0', uri: '' }),
};
