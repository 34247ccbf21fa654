/**
 * Loki's own configuration files (grafana/loki at the tag the repository's reference was read at: the configs
 * `cmd/loki/` runs with, the configuration examples of its docs, the getting-started example), each of which Loki
 * loads: held to the gate's decoding of Loki's file and Loki's checks of a whole one (model/loki/), which must refuse
 * none of them.
 */
import { parse as parseYaml } from 'yaml';
import { goDecodeProblems, type GoStruct } from '../../model/yaml/go-decode.ts';
import { lokiValidationProblems } from '../../model/loki/validate.ts';
import { dig } from '../../model/core/dig.ts';
import type { TextCase, UpstreamTable } from './agreement.ts';
import { textAgreement } from './agreement.ts';

/** The files of a Loki checkout that are Loki configurations Loki loads as they are (not Helm values, not templates). */
export const LOKI_CONFIG_FILES =
  /^(cmd\/loki\/loki-[a-z-]*config[a-z-]*\.yaml|cmd\/loki\/loki-local-with-memcached\.yaml|docs\/sources\/configure\/examples\/yaml\/[^/]+\.yaml|examples\/getting-started\/loki-config\.yaml)$/;

/** The first refusal of the decode, then (for a whole file: one with a schema; the docs' snippets are parts) of Loki's checks; or "loads". */
function loadVerdict(text: string, type: GoStruct): string {
  const doc: unknown = parseYaml(text);
  const decoded = goDecodeProblems(doc, type);
  const first = decoded.length || dig(doc, ['schema_config']) === undefined ? decoded[0] : lokiValidationProblems(doc)[0];
  return first ? `${first.path.join('.')}: ${first.message}` : 'loads';
}

/** One case per file: Loki loads it. */
export function lokiConfigCases(files: readonly { name: string; text: string }[], type: GoStruct): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  for (const { name, text } of files)
    table.cases.push({ test: name.split('/').slice(0, -1).join('/'), name, judge: () => loadVerdict(text, type), want: 'loads' });
  return table;
}

export const lokiConfigAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'Loki');
