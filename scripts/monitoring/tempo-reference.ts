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
import { byType, GO_FLAG_TYPES, goStringConstants, registeredFlags, type FlagType } from './loki-reference-parse.ts';

const MANIFEST = 'docs/sources/tempo/configuration/manifest.md';
const ROOT_CONFIG = 'cmd/tempo/app/config.go';
const YAML_TAG = /yaml:"([A-Za-z0-9_.-]+)/g;
const MAIN = 'cmd/tempo/main.go';
/** The limits' flags, which the configuration registers by whole names (`c.Overrides.RegisterFlagsAndApplyDefaults(f)`). */
const OVERRIDES = 'modules/overrides/config.go';
/** dskit's log level, which the configuration registers (`c.Server.LogLevel.RegisterFlags(f)`). */
const LOG_LEVEL = 'vendor/github.com/grafana/dskit/log/level.go';

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

/**
 * The flags cmd/tempo/main.go registers on flag.CommandLine itself: each `flag.<Type>("name"`, and the configuration
 * file's three, which `flagext.IgnoredFlag` registers again as flags that take a value (any) and ignore it.
 */
export function mainFlags(goSource: string): Record<string, FlagType> {
  const constants = goStringConstants(goSource);
  const flags: Record<string, FlagType> = {};
  for (const m of goSource.matchAll(/\bflag\.(Bool|U?Int(?:64)?|Float64|Duration|String)\("([^"]+)"/g)) flags[`-${m[2]}`] = GO_FLAG_TYPES[m[1]!] ?? 'int';
  for (const m of goSource.matchAll(/IgnoredFlag\(flag\.CommandLine,\s*(?:"([^"]+)"|([A-Za-z_]\w*))/g)) {
    const name = m[1] ?? constants.get(m[2]!);
    if (name === undefined) throw new Error(`${MAIN}: an ignored flag named by a constant this reader does not find: ${m[0]}`);
    flags[`-${name}`] = 'string';
  }
  if (!('-version' in flags && '-config.file' in flags)) throw new Error(`${MAIN}: no -version or -config.file flag found`);
  return flags;
}

/** The body of a Go function, from its signature's opening line to the `}` that closes it at the start of a line. */
export function functionBody(goSource: string, signature: string, file: string): string {
  const start = goSource.indexOf(signature);
  const end = goSource.indexOf('\n}\n', start);
  if (start === -1 || end === -1) throw new Error(`${file} has no ${signature}`);
  return goSource.slice(start, end);
}

const REGISTER = 'func (c *Config) RegisterFlagsAndApplyDefaults(';

/**
 * The flags Tempo's flag set holds by a whole name, and the prefixes its modules register theirs under: what
 * `Config.RegisterFlagsAndApplyDefaults` (cmd/tempo/app/config.go) registers on the flag set it is given, its own
 * `f.<Type>Var` calls, the log level and the limits' (modules/overrides/config.go); each module's
 * `RegisterFlagsAndApplyDefaults(util.PrefixConfig(prefix, "<module>"), f)` (what a module registers under it is not
 * read). What it registers through `flagext.DefaultValues` goes to a flag set of its own, only for the defaults.
 */
export function configFlags(sources: { config: string; overrides: string; level: string }): { names: Record<string, FlagType>; prefixes: string[] } {
  const config = functionBody(sources.config, REGISTER, ROOT_CONFIG);
  const goLines = [config, functionBody(sources.overrides, REGISTER, OVERRIDES), sources.level].flatMap((text) => text.split('\n'));
  const prefixes = [...config.matchAll(/RegisterFlagsAndApplyDefaults\(util\.PrefixConfig\(prefix, "([^"]+)"\), f\)/g)].map((m) => `${m[1]!}.`);
  if (prefixes.length === 0) throw new Error(`${ROOT_CONFIG}: no module registers its flags under a prefix`);
  return { names: registeredFlags(goLines).names, prefixes: prefixes.sort() };
}

export async function refreshTempoReference(o: RefreshOptions): Promise<string> {
  const file = facts.TEMPO_REFERENCE;
  const { repository, ref, chartVersion } = refreshTarget(o, file, 'https://github.com/grafana/tempo');
  const fields = manifestTree(await readUpstreamFile(repository, { ref, file: MANIFEST }, o.from));
  const rootSource = await readUpstreamFile(repository, { ref, file: ROOT_CONFIG }, o.from);
  const root = structFields(rootSource, 'Config');
  // Tempo's own structs (dskit's and the collector's, under vendor/, are in the manifest where Tempo uses them).
  const tagged = await grepUpstream(o.from, ref, 'yaml:"', ['*.go', ':!vendor', ':!*_test.go']);
  const names = [...new Set(tagged.flatMap((line) => [...line.matchAll(YAML_TAG)].map((m) => m[1]!)))].sort();
  const main = mainFlags(await readUpstreamFile(repository, { ref, file: MAIN }, o.from));
  const registered = configFlags({
    config: rootSource,
    overrides: await readUpstreamFile(repository, { ref, file: OVERRIDES }, o.from),
    level: await readUpstreamFile(repository, { ref, file: LOG_LEVEL }, o.from),
  });
  const body = {
    program: 'tempo',
    version: ref.replace(/^v/, ''),
    pin: { chart: facts.TEMPO_CHART, version: chartVersion },
    source: {
      repository,
      ref,
      files: [MANIFEST, ROOT_CONFIG, MAIN, OVERRIDES, LOG_LEVEL],
      names: 'every yaml:"..." tag of the Go source at ref but vendor/ and tests',
    },
    root,
    fields,
    names,
    flags: byType({ ...registered.names, ...main }),
    prefixes: registered.prefixes,
  };
  const header = `# Tempo's configuration fields, as the gate holds Tempo's file to them (monitoring-tempo-config; policy-tests/model/tempo/).
# Written by npm run tempo:reference -- --from <clone of grafana/tempo>: fields, the tree of ${MANIFEST} at source.ref
# (a struct's fields nested, "." a leaf); root, the fields of ${ROOT_CONFIG}'s Config; names, every yaml field name of the
# source, which a struct the manifest leaves empty may have (taken, not judged); flags: the flags Tempo's flag set holds by
# a whole name (${MAIN}'s own, and what Config.RegisterFlagsAndApplyDefaults registers itself: its f.<Type>Var calls,
# dskit's log level, ${OVERRIDES}'s limits), under the type of the value each takes (boolean, int, float, duration or
# string), one to a line; prefixes: the ones its modules register their flags under, which the gate does not list
# (its command line: monitoring-tempo-config).
`;
  writeInCheckout(o.root, file, header + stringify(body, { lineWidth: 0, flowCollectionPadding: false }));
  return `wrote ${file}: ${root.length} root fields, ${names.length} field names, ${Object.keys({ ...registered.names, ...main }).length} flags, Tempo ${body.version}`;
}

export const main = (argv: string[], io?: CommandIo): Promise<number> =>
  referenceCommand(
    {
      name: 'tempo:reference',
      project: 'grafana/tempo',
      help: `Rewrites ${facts.TEMPO_REFERENCE}: Tempo's configuration fields at --ref (default: the tag it was read at),
from ${MANIFEST}, ${ROOT_CONFIG} and the yaml tags of the local clone --from names, and the flags
${MAIN} and Tempo's source register.
--chart-version sets pin.version, the tempo chart whose Tempo it is.`,
      refresh: refreshTempoReference,
    },
    argv,
    io,
  );

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
