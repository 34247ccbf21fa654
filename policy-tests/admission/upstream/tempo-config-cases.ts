/**
 * Tempo's own example configurations (grafana/tempo example/docker-compose at the tag the repository's reference was
 * read at), each of which Tempo loads: held to the gate's reading of Tempo's keys (model/tempo/), which must refuse
 * none of them. A key it takes without judging counts as agreeing: Tempo takes it too.
 */
import { parse as parseYaml } from 'yaml';
import { tempoKeys, type TempoFields } from '../../model/tempo/config.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

/** The example files that are Tempo configurations (not Grafana's, not the load generator's). */
export const TEMPO_CONFIG_FILES = /^example\/docker-compose\/[^/]+\/tempo[^/]*\.ya?ml$/;

export function tempoConfigCases(files: readonly { name: string; text: string }[], reference: TempoFields): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  for (const { name, text } of files)
    table.cases.push({
      test: name.split('/')[2] ?? name,
      name,
      judge: () => {
        const first = tempoKeys(parseYaml(text), [], reference).refused[0];
        return first ? `${first.path.join('.')}: ${first.message}` : 'loads';
      },
      want: 'loads',
    });
  return table;
}

export const tempoConfigAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'Tempo');
