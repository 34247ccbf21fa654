/**
 * npm run traefik:reference -- --from <clone of traefik/traefik> [--ref <tag>]: rewrites
 * apps/platform/facts/traefik-options.yaml, the options of Traefik's static configuration the gate holds its flags to
 * (closure-traefik-flags): every row of the table Traefik generates from its configuration struct
 * (docs/content/reference/install-configuration/configuration-options.md), at the tag the proxies' image runs.
 */
import { stringify } from 'yaml';
import type { CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { readUpstreamFile } from '../lib/upstream-source.ts';
import { facts } from '../../policy-tests/index.ts';
import { referenceCommand, refreshTarget, type RefreshOptions } from '../monitoring/program-reference.ts';

export const TRAEFIK_TABLE = 'docs/content/reference/install-configuration/configuration-options.md';

/** The options of the generated table: each row's first cell, the option's path, as the link's text. */
export function tableOptions(markdown: string): string[] {
  const options = [...markdown.matchAll(/^\|\s*<a id="opt-[^"]*"[^>]*>([^<]+)<\/a>\s*\|/gm)].map((m) => m[1]!.trim());
  if (options.length === 0) throw new Error(`${TRAEFIK_TABLE} has no table of options`);
  return [...new Set(options)].sort();
}

export async function refreshTraefikReference(o: RefreshOptions): Promise<string> {
  const file = facts.TRAEFIK_OPTIONS;
  const { repository, ref } = refreshTarget(o, file, 'https://github.com/traefik/traefik', { chart: false });
  const options = tableOptions(await readUpstreamFile(repository, { ref, file: TRAEFIK_TABLE }, o.from));
  const body = { program: 'traefik', version: ref.replace(/^v/, ''), source: { repository, ref, files: [TRAEFIK_TABLE] }, options };
  const header = `# The options of Traefik's static configuration, as the gate holds a proxy's flags to them (closure-traefik-flags;
# policy-tests/model/traefik/options.ts). Written by npm run traefik:reference -- --from <clone of traefik/traefik>:
# every row of ${TRAEFIK_TABLE} at source.ref, which Traefik generates
# from its configuration struct; _name_ stands for a map's key, [0] for a list's index.
`;
  writeInCheckout(o.root, file, header + stringify(body, { lineWidth: 0 }));
  return `wrote ${file}: ${options.length} options, Traefik ${body.version}`;
}

export const main = (argv: string[], io?: CommandIo): Promise<number> =>
  referenceCommand(
    {
      name: 'traefik:reference',
      project: 'traefik/traefik',
      help: `Rewrites ${facts.TRAEFIK_OPTIONS}: the options of Traefik's static configuration at --ref (default: the tag it
was read at), from ${TRAEFIK_TABLE} in the local clone --from names.`,
      refresh: refreshTraefikReference,
      chart: false,
    },
    argv,
    io,
  );

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
