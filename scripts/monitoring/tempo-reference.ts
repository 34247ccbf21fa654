/**
 * npm run tempo:reference -- --from <clone of grafana/tempo> [--ref <tag>] [--chart-version <v>]: rewrites
 * monitoring/tempo/facts/config-reference.yaml, the fields of Tempo's configuration the gate holds Tempo's file to
 * (monitoring-tempo-config): the tree of its manifest (docs/sources/tempo/configuration/manifest.md, which Tempo
 * generates by marshalling its default configuration), the root struct's fields (cmd/tempo/app/config.go, which the
 * manifest leaves out where a default is empty), and every yaml field name of Tempo's own source, at the tag.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseDocument, stringify } from 'yaml';
import { runCommand, UsageError, type CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { grepUpstream, readUpstreamFile } from '../lib/upstream-source.ts';
import { REPO_ROOT, facts } from '../../policy-tests/index.ts';

const MANIFEST = 'docs/sources/tempo/configuration/manifest.md';
const ROOT_CONFIG = 'cmd/tempo/app/config.go';
const YAML_TAG = /yaml:"([A-Za-z0-9_.-]+)/g;

type Tree = { [key: string]: Tree | '.' };

/** The manifest's field tree: a struct's fields nested, anything else (a scalar, a list, an empty map) a leaf. */
export function manifestTree(markdown: string): Tree {
  const fence = /## Complete configuration\s+```yaml\n([\s\S]*?)\n```/.exec(markdown)?.[1];
  if (fence === undefined) throw new Error(`${MANIFEST} has no "Complete configuration" yaml block`);
  const toTree = (v: unknown): Tree | '.' =>
    v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0 ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toTree(x)])) : '.';
  const tree = toTree(parse(fence) as unknown);
  if (tree === '.') throw new Error(`${MANIFEST}'s configuration is empty`);
  return tree;
}

/** The yaml names of a Go struct's fields, from its `type <name> struct {` block. */
export function structFields(goSource: string, name: string): string[] {
  const body = new RegExp(`\\ntype ${name} struct \\{([\\s\\S]*?)\\n\\}`).exec(goSource)?.[1];
  if (body === undefined) throw new Error(`no type ${name} struct in ${ROOT_CONFIG}`);
  return [...body.matchAll(YAML_TAG)].map((m) => m[1]!);
}

export async function refreshTempoReference(o: { root: string; from: string; ref?: string; chartVersion?: string }): Promise<string> {
  const file = facts.TEMPO_REFERENCE;
  let previous: { source?: { ref?: string; repository?: string }; pin?: { version?: string } } = {};
  try {
    previous = (parseDocument(readFileSync(join(o.root, file), 'utf8')).toJS() ?? {}) as typeof previous;
  } catch {
    // No reference yet: the options say everything.
  }
  const repository = previous.source?.repository ?? 'https://github.com/grafana/tempo';
  const ref = o.ref ?? previous.source?.ref;
  const chartVersion = o.chartVersion ?? previous.pin?.version;
  if (!ref || !chartVersion) throw new UsageError(`${file} names no source.ref or pin.version: give --ref <tag> and --chart-version <tempo chart version>`);
  const fields = manifestTree(await readUpstreamFile(repository, { ref, file: MANIFEST }, o.from));
  const root = structFields(await readUpstreamFile(repository, { ref, file: ROOT_CONFIG }, o.from), 'Config');
  // Tempo's own structs (dskit's and the collector's, under vendor/, are in the manifest where Tempo uses them).
  const tagged = await grepUpstream(o.from, ref, 'yaml:"', ['*.go', ':!vendor', ':!*_test.go']);
  const names = [...new Set(tagged.flatMap((line) => [...line.matchAll(YAML_TAG)].map((m) => m[1]!)))].sort();
  const body = {
    program: 'tempo',
    version: ref.replace(/^v/, ''),
    pin: { chart: facts.TEMPO_CHART, version: chartVersion },
    source: { repository, ref, files: [MANIFEST, ROOT_CONFIG], names: 'every yaml:"..." tag of the Go source at ref but vendor/ and tests' },
    root,
    fields,
    names,
  };
  const header = `# Tempo's configuration fields, as the gate holds Tempo's file to them (monitoring-tempo-config; policy-tests/model/tempo/).
# Written by npm run tempo:reference -- --from <clone of grafana/tempo>: fields, the tree of ${MANIFEST} at source.ref
# (a struct's fields nested, "." a leaf); root, the fields of ${ROOT_CONFIG}'s Config; names, every yaml field name of the
# source, which a struct the manifest leaves empty may have (taken, not judged).
`;
  writeInCheckout(o.root, file, header + stringify(body, { lineWidth: 0, flowCollectionPadding: false }));
  return `wrote ${file}: ${root.length} root fields, ${names.length} field names, Tempo ${body.version}`;
}

export async function main(argv: string[], io?: CommandIo): Promise<number> {
  const out = (line: string) => (io ?? { stdout: (t: string) => process.stdout.write(t) }).stdout(`${line}\n`);
  return runCommand(
    {
      name: 'tempo:reference',
      usage: 'tempo:reference --from <clone of grafana/tempo> [--ref <tag>] [--chart-version <v>] [--root <repo>]',
      help: `Rewrites ${facts.TEMPO_REFERENCE}: Tempo's configuration fields at --ref (default: the tag it was read at),
from ${MANIFEST}, ${ROOT_CONFIG} and the yaml tags of the local clone --from names.
--chart-version sets pin.version, the tempo chart whose Tempo it is.`,
      options: { from: { type: 'string' }, ref: { type: 'string' }, 'chart-version': { type: 'string' }, root: { type: 'string' } },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        if (values.from === undefined) throw new UsageError('--from <local clone of grafana/tempo> is needed: the field names are read from its tree');
        out(
          await refreshTempoReference({
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
