/**
 * npm run unpoller:reference -- --from <clone of unpoller/unpoller> [--ref <tag>]: rewrites
 * monitoring/unpoller/facts/settings-reference.yaml, every environment variable unpoller reads at the tag and the Go
 * type it parses the value as, as the gate holds the gateway exporter's container to them (unpoller-config-loads).
 *
 * unpoller hands its core configuration and each compiled-in plugin's (the packages main.go imports, and those they
 * import, whose init registers with poller.NewInput or poller.NewOutput) to golift.io/cnfg's UnmarshalENV with the
 * prefix UP (pkg/poller/config.go, parseInterface). cnfg walks each struct by its `xml` tags: a tag upper-cased and
 * joined to its parent's name with `_`, an untagged field at its parent's name, `-` and unexported fields skipped, a
 * slice's items at `_<n>`, a map's keys at `_<key>`; a type with an Unmarshal method is read by it. This command walks
 * the same structs from the source and writes each name with its type.
 */
import { stringify } from 'yaml';
import type { CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { filesHolding, readUpstreamFile } from '../lib/upstream-source.ts';
import { goPackage, tagName, typesWithMethod, type GoPackage } from '../lib/go-structs.ts';
import { facts } from '../../policy-tests/index.ts';
import { referenceCommand, refreshTarget, type RefreshOptions } from './program-reference.ts';

const MODULE = 'github.com/unpoller/unpoller/';
const PREFIX = 'UP';
/** Types cnfg parses itself (parse.go's Member), and the ones of other modules it reads through UnmarshalText. */
const SCALARS = new Set(['string', 'bool', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'error']);
const TEXT_TYPES = new Set(['time.Duration', 'cnfg.Duration']);

export type Variables = Map<string, string>;

interface Walk {
  packages: Map<string, GoPackage>;
  variables: Variables;
}

const exported = (name: string): boolean => /^[A-Z]/.test(name);
const joinName = (prefix: string, tag: string): string => [prefix, tag].join('_').replace(/^_+|_+$/g, '');

function emit(w: Walk, name: string, type: string): void {
  const before = w.variables.get(name);
  if (before !== undefined && before !== type && !(before.startsWith('opaque') && type.startsWith('opaque')))
    throw new Error(`${name} is read as both ${before} and ${type}: the structs do not read as this command expects`);
  if (before === undefined) w.variables.set(name, type);
}

/** Every variable cnfg reads into a value of type `type` (declared in package `dir`) at `name`, as its parser walks it. */
export function walkType(w: Walk, { dir, type, name }: { dir: string; type: string; name: string }, stack: readonly string[] = []): void {
  if (type.startsWith('*')) {
    const inner = type.slice(1);
    // A pointer to a value cnfg parses: an empty variable leaves it nil (Pointer passes force=false).
    if (SCALARS.has(inner) || TEXT_TYPES.has(inner)) return emit(w, name, type);
    return walkType(w, { dir, type: inner, name }, stack);
  }
  if (SCALARS.has(type) || TEXT_TYPES.has(type)) return emit(w, name, type);
  // A lock embedded in a configuration: its fields are unexported, and cnfg reads nothing there.
  if (/^sync\.(?:Mutex|RWMutex)$/.test(type)) return;
  if (type === '[]byte' || type === '[]uint8') return emit(w, name, '[]byte');
  if (type.startsWith('[]')) return walkType(w, { dir, type: type.slice(2), name: `${name}_<n>` }, stack);
  const map = /^map\[string\](.+)$/.exec(type);
  if (map) return walkType(w, { dir, type: map[1]!, name: `${name}_<key>` }, stack);
  const pkg = w.packages.get(dir);
  if (!/^[A-Za-z_]\w*$/.test(type) || !pkg || stack.includes(`${dir}.${type}`)) return emit(w, name, `opaque ${type}`);
  if (typesWithMethod(pkg, ['UnmarshalENV', 'UnmarshalText', 'UnmarshalBinary']).has(type)) return emit(w, name, `opaque ${type}`);
  const fields = pkg.structs.get(type);
  if (!fields) {
    const underlying = pkg.named.get(type);
    return underlying && underlying !== 'interface' ? walkType(w, { dir, type: underlying, name }, stack) : emit(w, name, `opaque ${type}`);
  }
  for (const field of fields) {
    const names = field.names.length > 0 ? field.names : [field.type.replace(/^\*/, '').replace(/^\w+\./, '')];
    const tag = tagName(field.tag, 'xml') ?? '';
    if (tag === '-') continue;
    for (const fieldName of names)
      if (exported(fieldName)) walkType(w, { dir, type: field.type, name: joinName(name, tag.toUpperCase()) }, [...stack, `${dir}.${type}`]);
  }
}

/** The packages of this module a Go file imports (`"github.com/unpoller/unpoller/pkg/x"` → `pkg/x`). */
export const moduleImports = (go: string): string[] => [...go.matchAll(new RegExp(`"${MODULE.replace(/\./g, '\\.')}([^"]+)"`, 'g'))].map((m) => m[1]!);

/** The type an init registers as its plugin's configuration: `Config: u.Datadog` with `u := &DatadogUnifi{...}` → Datadog. */
export function registeredConfig(go: string, pkg: GoPackage): string | undefined {
  const init = /^func init\(\)[^\n]*\n([\s\S]*?)^\}/m.exec(go)?.[1];
  if (!init || !/poller\.New(?:Input|Output)\(/.test(init)) return undefined;
  const expr = /\bConfig:\s*(\w+)(?:\.(\w+))?,/.exec(init);
  if (!expr) throw new Error(`an init that registers a plugin without Config: ${init.slice(0, 120).trim()}`);
  const declared = new RegExp(`\\b${expr[1]}\\s*:=\\s*&(\\w+)\\{`).exec(init)?.[1];
  if (!declared) throw new Error(`the plugin configuration ${expr[0]} names a variable this command cannot follow`);
  if (!expr[2]) return declared;
  const field = pkg.structs.get(declared)?.find((f) => (f.names.length > 0 ? f.names.includes(expr[2]!) : f.type.replace(/^\*/, '') === expr[2]));
  if (!field) throw new Error(`${declared} has no field ${expr[2]}`);
  return field.type.replace(/^\*/, '');
}

export async function unpollerVariables(read: (path: string) => Promise<string>, list: (dir: string) => Promise<string[]>): Promise<Variables> {
  const packages = new Map<string, GoPackage>();
  const sources = new Map<string, string[]>();
  const pending = ['pkg/poller', ...moduleImports(await read('main.go'))];
  while (pending.length > 0) {
    const dir = pending.shift()!;
    if (packages.has(dir)) continue;
    const texts = await Promise.all((await list(dir)).map(read));
    packages.set(dir, goPackage(texts));
    sources.set(dir, texts);
    pending.push(...texts.flatMap(moduleImports));
  }
  const w: Walk = { packages, variables: new Map() };
  // The core's configuration first (ParseConfigs), then each registered plugin's.
  walkType(w, { dir: 'pkg/poller', type: 'Config', name: PREFIX });
  let plugins = 0;
  for (const [dir, texts] of sources)
    for (const text of texts) {
      const type = registeredConfig(text, packages.get(dir)!);
      if (type) {
        walkType(w, { dir, type, name: PREFIX });
        plugins++;
      }
    }
  if (plugins === 0 || !packages.get('pkg/poller')?.structs.has('Config'))
    throw new Error('the sources do not read as this command expects (pkg/poller Config, plugins registered in init with poller.NewInput/NewOutput)');
  return new Map([...w.variables].sort(([a], [b]) => a.localeCompare(b)));
}

export async function refreshUnpollerReference(o: RefreshOptions): Promise<string> {
  const file = facts.UNPOLLER_REFERENCE;
  const { repository, ref } = refreshTarget(o, file, 'https://github.com/unpoller/unpoller', { chart: false });
  const read = (path: string) => readUpstreamFile(repository, { ref, file: path }, o.from);
  const list = async (dir: string) =>
    (await filesHolding(o.from, ref, 'package ', [dir, ':!*_test.go'])).filter((f) => f.slice(0, f.lastIndexOf('/')) === dir && f.endsWith('.go'));
  const variables = await unpollerVariables(read, list);
  const body = {
    program: 'unpoller',
    version: ref.replace(/^v/, ''),
    source: { repository, ref, files: "main.go's imports of this module, their imports, and the structs each plugin registers (non-test Go files)" },
    prefix: PREFIX,
    variables: Object.fromEntries(variables),
  };
  const header = `# Every environment variable unpoller reads and the Go type golift.io/cnfg parses its value as, as the gate holds the
# gateway exporter to them (unpoller-config-loads; policy-tests/model/unpoller/cnfg.ts). <n> is a list's item (0, 1, ...),
# <key> a map's key; a pointer type (*bool) leaves an empty value unset; opaque is a type the gate does not parse.
# Written by npm run unpoller:reference -- --from <clone of unpoller/unpoller> --ref <the image tag>.
`;
  writeInCheckout(o.root, file, header + stringify(body, { lineWidth: 0, flowCollectionPadding: false }));
  return `wrote ${file}: ${variables.size} variables, unpoller ${body.version}`;
}

export const main = (argv: string[], io?: CommandIo): Promise<number> =>
  referenceCommand(
    {
      name: 'unpoller:reference',
      project: 'unpoller/unpoller',
      help: "Rewrites the reference of the environment variables unpoller reads (each with the type it parses), from a local clone's tag.",
      refresh: refreshUnpollerReference,
      chart: false,
    },
    argv,
    io,
  );

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
