/**
 * npm run alloy:reference -- --from <clone of grafana/alloy> [--ref <tag>] [--chart-version <v>]: rewrites
 * monitoring/alloy/facts/components.yaml, the components Alloy registers at the tag (each `component.Register` call of
 * internal/component's non-test Go files: its name, a literal or a constant of its file, its stability level and
 * whether it is a community component, the struct its arguments decode into and the one its exports encode from,
 * walked by alloy-arguments.ts), the services whose blocks a configuration may hold, and the identifiers of its
 * standard library (syntax/internal/stdlib), as the gate holds the log shippers' configurations to them
 * (alloy-config-loads).
 */
import { stringify } from 'yaml';
import type { CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { filesHolding, readUpstreamFile } from '../lib/upstream-source.ts';
import { facts } from '../../policy-tests/index.ts';
import { referenceCommand, refreshTarget, type RefreshOptions } from './program-reference.ts';
import { componentArguments, registeredArgs, registeredExports } from './alloy-arguments.ts';
import { goPackage, type GoPackage } from '../lib/go-structs.ts';

const STABILITY: Readonly<Record<string, string>> = {
  StabilityExperimental: 'experimental',
  StabilityPublicPreview: 'public-preview',
  StabilityGenerallyAvailable: 'generally-available',
};

export interface Registration {
  name: string;
  /** None for a community component, whose stability Alloy does not check. */
  stability?: string;
  community?: true;
  /** The type its arguments decode into, as the registration names it (`Arguments`, `otelcol.Arguments`). */
  args?: string;
  /** The type its exports encode from (`Exports`, `discovery.Exports`), `nil` where it exports nothing. */
  exports?: string;
}

/** Each `component.Register(component.Registration{...})` of a Go file: its name (a literal, or a string constant of the file), stability and community flag. */
export function registrations(go: string): Registration[] {
  const constants = new Map([...go.matchAll(/\b(\w+)\s*=\s*"([^"]+)"/g)].map((m) => [m[1]!, m[2]!]));
  const out: Registration[] = [];
  for (const m of go.matchAll(/component\.Register\(component\.Registration\{([\s\S]*?)\n\t\}\)/g)) {
    const body = m[1]!;
    const named = /\bName:\s*(?:"([^"]+)"|(\w+))/.exec(body);
    const name = named?.[1] ?? (named?.[2] ? constants.get(named[2]) : undefined);
    const stability = STABILITY[/\bStability:\s*featuregate\.(\w+)/.exec(body)?.[1] ?? ''];
    const community = /\bCommunity:\s*true/.test(body);
    if (!name || (!stability && !community))
      throw new Error(`a component.Register call whose name or stability does not read as this command expects: ${body.slice(0, 120).trim()}`);
    const args = registeredArgs(body);
    const exports = registeredExports(body);
    out.push({
      name,
      ...(stability ? { stability } : {}),
      ...(community ? { community: true as const } : {}),
      ...(args ? { args } : {}),
      ...(exports ? { exports } : {}),
    });
  }
  return out;
}

/** A Go map literal's keys: `var <name> = map[string]<T>{ "key": ..., }` of a file. */
const mapKeys = (go: string, name: string): string[] | undefined => {
  const body = new RegExp(`^var ${name} = map\\[string\\]\\w+\\{\\n([\\s\\S]*?)\\n\\}`, 'm').exec(go)?.[1];
  return body === undefined ? undefined : [...body.matchAll(/^\s*"([^"]+)":/gm)].map((m) => m[1]!);
};

/**
 * The identifiers Alloy's standard library puts in every scope (syntax/internal/stdlib: `Identifiers`, the deprecated
 * ones it copies in), each a function, or a namespace with the names it holds (a map literal of the package: `sys`,
 * `constants`); and the experimental names (`array.group_by`) a configuration may call only at that stability level.
 */
export function stdlibIdentifiers(go: string): { identifiers: Record<string, string[] | 'function'>; experimental: string[] } {
  const identifiers: Record<string, string[] | 'function'> = {};
  const entries = (name: string) => {
    const body = new RegExp(`^var ${name} = map\\[string\\]any\\{\\n([\\s\\S]*?)\\n\\}`, 'm').exec(go)?.[1] ?? '';
    return [...body.matchAll(/^\s*"([^"]+)":\s*([\w.]+)/gm)].map((m) => [m[1]!, m[2]!] as const);
  };
  const all = [...entries('Identifiers'), ...entries('DeprecatedIdentifiers')];
  if (all.length === 0) throw new Error('syntax/internal/stdlib holds no `var Identifiers = map[string]any{` as this command expects');
  for (const [name, value] of all) identifiers[name] = mapKeys(go, value)?.sort() ?? 'function';
  const experimental = mapKeys(go, 'ExperimentalIdentifiers') ?? [];
  return { identifiers: Object.fromEntries(Object.entries(identifiers).sort(([a], [b]) => a.localeCompare(b))), experimental: experimental.sort() };
}

/** `ServiceName = "..."` constants: the services a configuration may hold a block of. */
export const serviceNames = (go: string): string[] => [...go.matchAll(/\bServiceName\s*=\s*"([^"]+)"/g)].map((m) => m[1]!);

/** The arguments of each registered component, walked from the packages of the clone at `ref` (read once each). */
async function alloyArguments(from: string, ref: string, registered: readonly { name: string; dir: string; args?: string; exports?: string }[]) {
  const files = await filesHolding(from, ref, 'package ', ['internal', 'syntax', ':!*_test.go', ':!*/testdata/*']);
  const byDir = new Map<string, string[]>();
  for (const f of files.filter((x) => x.endsWith('.go'))) {
    const dir = f.slice(0, f.lastIndexOf('/'));
    byDir.set(dir, [...(byDir.get(dir) ?? []), f]);
  }
  const loaded = new Map<string, Promise<GoPackage | undefined>>();
  const load = (dir: string) => {
    if (!loaded.has(dir)) {
      const paths = byDir.get(dir) ?? [];
      loaded.set(dir, paths.length ? Promise.all(paths.map((p) => readUpstreamFile('', { ref, file: p }, from))).then(goPackage) : Promise.resolve(undefined));
    }
    return loaded.get(dir)!;
  };
  const { components, exports, schemas } = await componentArguments({ load, schemas: new Map() }, registered);
  return { arguments: components, exports, schemas };
}

export async function refreshAlloyReference(o: RefreshOptions): Promise<string> {
  const file = facts.ALLOY_REFERENCE;
  const { repository, ref, chartVersion } = refreshTarget(o, file, 'https://github.com/grafana/alloy');
  const read = (path: string) => readUpstreamFile(repository, { ref, file: path }, o.from);
  const registered = await filesHolding(o.from, ref, 'component.Register(component.Registration{', ['internal/component', ':!*_test.go']);
  const components = (
    await Promise.all(registered.map(async (f) => registrations(await read(f)).map((r) => ({ ...r, dir: f.slice(0, f.lastIndexOf('/')) }))))
  ).flat();
  const { arguments: argumentsOf, exports: exportsOf, schemas } = await alloyArguments(o.from, ref, components);
  const stdlibFiles = (await filesHolding(o.from, ref, 'package stdlib', ['syntax/internal/stdlib', ':!*_test.go'])).filter((f) => f.endsWith('.go'));
  const stdlib = stdlibIdentifiers((await Promise.all(stdlibFiles.map(read))).join('\n'));
  const serviceFiles = await filesHolding(o.from, ref, 'ServiceName', ['internal/service', ':!*_test.go']);
  const services = [...new Set((await Promise.all(serviceFiles.map(async (f) => serviceNames(await read(f))))).flat())].sort();
  if (components.length === 0 || services.length === 0)
    throw new Error(
      `the sources at ${ref} do not read as this command expects (component.Register calls under internal/component, ServiceName constants under internal/service)`,
    );
  const body = {
    program: 'alloy',
    version: ref.replace(/^v/, ''),
    pin: { chart: 'alloy', version: chartVersion },
    source: {
      repository,
      ref,
      files:
        'every component.Register call of internal/component, every ServiceName of internal/service and the identifiers of syntax/internal/stdlib (non-test Go files)',
    },
    components: Object.fromEntries(
      components
        .sort((a, b) => a.name.localeCompare(b.name))
        .map(({ name, args: _args, exports: _exports, dir: _dir, ...c }) => [
          name,
          { ...c, arguments: argumentsOf[name], ...(exportsOf[name] ? { exports: exportsOf[name] } : {}) },
        ]),
    ),
    services,
    stdlib,
    schemas,
  };
  const header = `# The components Alloy registers, the arguments each takes and the exports it gives (schemas: each struct's attributes
# and blocks, by name), the services whose blocks its configuration may hold and the identifiers of its standard
# library, as the gate holds the log shippers' configurations to them (alloy-config-loads;
# policy-tests/model/alloy/components.ts, arguments.ts, references.ts). Written by npm run
# alloy:reference -- --from <clone of grafana/alloy> --ref <the chart's appVersion> --chart-version <the chart version>.
`;
  writeInCheckout(o.root, file, header + stringify(body, { lineWidth: 0, flowCollectionPadding: false }));
  return `wrote ${file}: ${components.length} components, ${services.length} services, Alloy ${body.version}`;
}

export const main = (argv: string[], io?: CommandIo): Promise<number> =>
  referenceCommand(
    {
      name: 'alloy:reference',
      project: 'grafana/alloy',
      help: `Rewrites ${facts.ALLOY_REFERENCE}: the components Alloy registers at --ref (default: the tag it was read at),
each with its stability level, and its services, from the local clone --from names.`,
      refresh: refreshAlloyReference,
    },
    argv,
    io,
  );

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
