/**
 * npm run loki:reference -- --from <clone of grafana/loki> [--ref <tag>] [--chart-version <v>]: rewrites
 * monitoring/loki/facts/config-reference.yaml, the blocks and fields of Loki's configuration the gate decodes Loki's
 * file against (monitoring-loki-config), from the configuration reference Loki's doc-generator writes of its structs,
 * and the names of the fields that reference leaves out (`doc:"hidden"`), at the tag.
 */
import { stringify } from 'yaml';
import type { CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { grepUpstream, readUpstreamFile } from '../lib/upstream-source.ts';
import { facts } from '../../policy-tests/index.ts';
import { referenceCommand, refreshTarget, type RefreshOptions } from './program-reference.ts';
import { byType, cliFlags, hiddenFieldNames, lines, parseReference, registeredFlags, wrapperFlags } from './loki-reference-parse.ts';

const REFERENCE_DOC = 'docs/sources/shared/configuration.md';
const WRAPPER = 'pkg/loki/config_wrapper.go';
const HIDDEN_TAG = 'doc:"hidden"';

const HEADER = `# Loki's configuration structs, as the gate decodes Loki's file against them (monitoring-loki-config; the
# reading in policy-tests/model/loki/). Written by npm run loki:reference -- --from <clone of grafana/loki>: the
# blocks and fields of ${REFERENCE_DOC} at source.ref, which Loki's doc-generator writes of its config structs, and
# hidden: the fields it leaves out (doc:"hidden" under pkg/), which Loki takes and the gate does not judge; and
# flags: every command-line flag the reference names (each <prefix> written out), with ${WRAPPER}'s own, under the type
# of the value it takes (boolean, int, float, duration, bytes or string), one to a line; undocumented: the flags Loki's
# source under pkg/ registers by a whole name that the reference does not name; endings: the ends of the names it
# registers under a prefix (prefix + "name"), which a flag the gate does not know may be.
# Types: string, int, float, boolean, duration, bytes, daytime, time, strings (a list), block <name>,
# list of <type>, map of <type>, any (not decoded); a map of fields is a struct written in place.
`;

/** Rewrites the reference at `ref` (default: the one it was read at); returns a line saying what it holds. */
export async function refreshReference(o: RefreshOptions): Promise<string> {
  const file = facts.LOKI_REFERENCE;
  const { repository, ref, chartVersion } = refreshTarget(o, file, 'https://github.com/grafana/loki');
  const markdown = await readUpstreamFile(repository, { ref, file: REFERENCE_DOC }, o.from);
  const reference = parseReference(markdown);
  const hidden = [...new Set(hiddenFieldNames((await grepUpstream(o.from, ref, HIDDEN_TAG, 'pkg')).join('\n')))].sort();
  const wrapper = wrapperFlags(await readUpstreamFile(repository, { ref, file: WRAPPER }, o.from));
  const documented = { ...cliFlags(markdown), ...wrapper };
  const flags = byType(documented);
  // The program's own registrations the reference leaves out (hidden fields'), and the ends of the names it prefixes.
  const registered = registeredFlags(await grepUpstream(o.from, ref, 'Var(', ['pkg', ':!*_test.go']));
  const undocumented = byType(Object.fromEntries(Object.entries(registered.names).filter(([name]) => !(name in documented))));
  const body = {
    program: 'loki',
    version: ref.replace(/^v/, ''),
    pin: { chart: facts.LOKI_CHART, version: chartVersion },
    source: { repository, ref, files: [REFERENCE_DOC, WRAPPER], hidden: `${HIDDEN_TAG} under pkg/` },
    hidden,
    root: reference.root,
    blocks: reference.blocks,
    flags,
    undocumented,
    endings: lines(registered.endings),
  };
  writeInCheckout(o.root, file, HEADER + stringify(body, { lineWidth: 0 }));
  return `wrote ${file}: ${Object.keys(reference.blocks).length} blocks, ${hidden.length} hidden fields, ${Object.keys(documented).length} flags, Loki ${body.version}`;
}

export const main = (argv: string[], io?: CommandIo): Promise<number> =>
  referenceCommand(
    {
      name: 'loki:reference',
      project: 'grafana/loki',
      help: `Rewrites ${facts.LOKI_REFERENCE}: the blocks and fields of Loki's configuration at --ref (default:
the tag it was read at), from ${REFERENCE_DOC} and the fields marked ${HIDDEN_TAG} in the
local clone --from names. --chart-version sets pin.version, the loki chart whose Loki it is.
After a Renovate bump of the chart: give the new chart's appVersion tag and the chart's version.`,
      refresh: refreshReference,
    },
    argv,
    io,
  );

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
