/**
 * Traefik's own command-line examples: every flag of its documentation's "CLI" tabs (traefik/traefik docs/content at
 * the tag the repository's reference was read at; the migration guides aside, which show older versions' flags), each
 * one its docs say Traefik takes: held to the gate's reading of Traefik's options (model/traefik/options.ts).
 */
import { flagOf, knownFlag, meantOption, type TraefikOptions } from '../../model/traefik/options.ts';
import { suggesting } from '../../model/core/did-you-mean.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

/** The documentation pages read: Markdown under docs/content, the migration guides aside. */
export const TRAEFIK_DOC_PAGES = /^docs\/content\/(?!migrat)[^]*\.md$/;

const CLI_TAB = /```[a-z]*\s+tab="CLI"\n([\s\S]*?)```/g;

export function traefikFlagCases(pages: readonly { name: string; text: string }[], reference: TraefikOptions): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  for (const { name, text } of pages)
    for (const tab of text.matchAll(CLI_TAB))
      for (const line of tab[1]!.split('\n').map((l) => l.trim())) {
        if (!line.startsWith('-')) continue;
        const flag = flagOf(line.split(/\s+/)[0]!);
        if (!flag) {
          table.unread.push({ name: `${name}: ${line}`, why: 'no flag paerser parses' });
          continue;
        }
        table.cases.push({
          test: name.replace(/^docs\/content\//, ''),
          name: flag.name,
          judge: () => (knownFlag(flag.name, reference) ? 'takes' : `refuses${suggesting(meantOption(flag.name, reference))}`),
          want: 'takes',
        });
      }
  return table;
}

export const traefikFlagAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, "Traefik's docs");
