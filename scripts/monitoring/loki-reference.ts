/**
 * npm run loki:reference -- --from <clone of grafana/loki> [--ref <tag>] [--chart-version <v>]: rewrites
 * monitoring/loki/facts/config-reference.yaml, the blocks and fields of Loki's configuration the gate decodes Loki's
 * file against (monitoring-loki-config), from the configuration reference Loki's doc-generator writes of its structs,
 * and the names of the fields that reference leaves out (`doc:"hidden"`), at the tag.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { runCommand, UsageError, type CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { grepUpstream, readUpstreamFile } from '../lib/upstream-source.ts';
import { REPO_ROOT, facts } from '../../policy-tests/index.ts';
import { hiddenFieldNames, parseReference } from './loki-reference-parse.ts';

const REFERENCE_DOC = 'docs/sources/shared/configuration.md';
const HIDDEN_TAG = 'doc:"hidden"';

const HEADER = `# Loki's configuration structs, as the gate decodes Loki's file against them (monitoring-loki-config; the
# reading in policy-tests/model/loki/). Written by npm run loki:reference -- --from <clone of grafana/loki>: the
# blocks and fields of ${REFERENCE_DOC} at source.ref, which Loki's doc-generator writes of its config structs, and
# hidden: the fields it leaves out (doc:"hidden" under pkg/), which Loki takes and the gate does not judge.
# Types: string, int, float, boolean, duration, bytes, daytime, time, strings (a list), block <name>,
# list of <type>, map of <type>, any (not decoded); a map of fields is a struct written in place.
`;

interface RefreshOptions {
  root: string;
  from: string;
  ref?: string;
  chartVersion?: string;
}

/** Rewrites the reference at `ref` (default: the one it was read at); returns a line saying what it holds. */
export async function refreshReference(o: RefreshOptions): Promise<string> {
  const file = facts.LOKI_REFERENCE;
  let previous: { source?: { ref?: string; repository?: string }; pin?: { chart?: string; version?: string } } = {};
  try {
    previous = (parseDocument(readFileSync(join(o.root, file), 'utf8')).toJS() ?? {}) as typeof previous;
  } catch {
    // No reference yet: the options say everything.
  }
  const repository = previous.source?.repository ?? 'https://github.com/grafana/loki';
  const ref = o.ref ?? previous.source?.ref;
  if (!ref) throw new UsageError(`${file} names no source.ref: give --ref <tag>`);
  const chartVersion = o.chartVersion ?? previous.pin?.version;
  if (!chartVersion) throw new UsageError(`${file} names no pin.version: give --chart-version <loki chart version>`);
  const reference = parseReference(await readUpstreamFile(repository, { ref, file: REFERENCE_DOC }, o.from));
  const hidden = [...new Set(hiddenFieldNames((await grepUpstream(o.from, ref, HIDDEN_TAG, 'pkg')).join('\n')))].sort();
  const body = {
    program: 'loki',
    version: ref.replace(/^v/, ''),
    pin: { chart: previous.pin?.chart ?? facts.LOKI_CHART, version: chartVersion },
    source: { repository, ref, files: [REFERENCE_DOC], hidden: `${HIDDEN_TAG} under pkg/` },
    hidden,
    root: reference.root,
    blocks: reference.blocks,
  };
  writeInCheckout(o.root, file, HEADER + stringify(body, { lineWidth: 0 }));
  return `wrote ${file}: ${Object.keys(reference.blocks).length} blocks, ${hidden.length} hidden fields, Loki ${body.version}`;
}

export async function main(argv: string[], io?: CommandIo): Promise<number> {
  const out = (line: string) => (io ?? { stdout: (t: string) => process.stdout.write(t) }).stdout(`${line}\n`);
  return runCommand(
    {
      name: 'loki:reference',
      usage: 'loki:reference --from <clone of grafana/loki> [--ref <tag>] [--chart-version <v>] [--root <repo>]',
      help: `Rewrites ${facts.LOKI_REFERENCE}: the blocks and fields of Loki's configuration at --ref (default:
the tag it was read at), from ${REFERENCE_DOC} and the fields marked ${HIDDEN_TAG} in the
local clone --from names. --chart-version sets pin.version, the loki chart whose Loki it is.
After a Renovate bump of the chart: give the new chart's appVersion tag and the chart's version.`,
      options: {
        from: { type: 'string' },
        ref: { type: 'string' },
        'chart-version': { type: 'string' },
        root: { type: 'string' },
      },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        if (values.from === undefined) throw new UsageError('--from <local clone of grafana/loki> is needed: the hidden fields are read from its tree');
        out(
          await refreshReference({
            root: (values.root as string | undefined) ?? REPO_ROOT,
            from: String(values.from),
            ref: values.ref as string | undefined,
            chartVersion: values['chart-version'] as string | undefined,
          }),
        );
        return 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
