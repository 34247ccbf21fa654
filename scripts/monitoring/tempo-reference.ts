/**
 * npm run tempo:reference -- --from <clone of grafana/tempo> [--ref <tag>] [--chart-version <v>]: rewrites
 * monitoring/tempo/facts/config-reference.yaml, the fields of Tempo's configuration the gate holds Tempo's file to
 * (monitoring-tempo-config): the tree of its manifest (docs/sources/tempo/configuration/manifest.md, which Tempo
 * generates by marshalling its default configuration), the root struct's fields (cmd/tempo/app/config.go, which the
 * manifest leaves out where a default is empty), and every yaml field name of Tempo's own source, at the tag.
 */
import { parse, stringify } from 'yaml';
import type { CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { grepUpstream, readUpstreamFile } from '../lib/upstream-source.ts';
import { facts } from '../../policy-tests/index.ts';
import { referenceCommand, refreshTarget, type RefreshOptions } from './program-reference.ts';

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

export async function refreshTempoReference(o: RefreshOptions): Promise<string> {
  const file = facts.TEMPO_REFERENCE;
  const { repository, ref, chartVersion } = refreshTarget(o, file, 'https://github.com/grafana/tempo');
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

export const main = (argv: string[], io?: CommandIo): Promise<number> =>
  referenceCommand(
    {
      name: 'tempo:reference',
      project: 'grafana/tempo',
      help: `Rewrites ${facts.TEMPO_REFERENCE}: Tempo's configuration fields at --ref (default: the tag it was read at),
from ${MANIFEST}, ${ROOT_CONFIG} and the yaml tags of the local clone --from names.
--chart-version sets pin.version, the tempo chart whose Tempo it is.`,
      refresh: refreshTempoReference,
    },
    argv,
    io,
  );

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
