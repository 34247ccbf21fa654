/**
 * Output formats of the gate CLI, modeled on kubeconform (json, junit, tap)
 * and conftest (text), plus GitHub workflow annotations and SARIF: one module
 * each, behind one interface (common.ts).
 */
import type { GateResult } from '../../result.ts';
import type { OutputFormatter, RenderOptions } from './common.ts';
import { githubFormat } from './github.ts';
import { jsonFormat } from './json.ts';
import { junitFormat } from './junit.ts';
import { sarifFormat } from './sarif.ts';
import { tapFormat } from './tap.ts';
import { textFormat } from './text.ts';

export type { RenderOptions };

const FORMATTERS = { text: textFormat, json: jsonFormat, junit: junitFormat, tap: tapFormat, github: githubFormat, sarif: sarifFormat } as const;

export type OutputFormat = keyof typeof FORMATTERS;
export const OUTPUT_FORMATS = Object.keys(FORMATTERS) as OutputFormat[];

export function render(result: GateResult, format: OutputFormat, options: RenderOptions): string {
  const formatter: OutputFormatter = FORMATTERS[format];
  return formatter.render(result, options);
}
