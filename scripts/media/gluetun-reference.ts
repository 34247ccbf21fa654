/**
 * npm run gluetun:reference -- --from <clone of qdm12/gluetun> [--ref <tag>]: rewrites
 * apps/media/gluetun/facts/settings-reference.yaml, what gluetun reads of its environment, as the gate holds the VPN
 * container to it (media-gluetun-settings): the variables its image declares (the Dockerfile's ENV), each variable its
 * settings read with the reader call that parses it (`r.BoolPtr("DNS_KEEP_NAMESERVER")`: gosettings' parser of that
 * type), the old names each still reads (`reader.RetroKeys`) and whether it keeps the value's case, the providers and
 * VPN types its settings take, at the tag.
 */
import { stringify } from 'yaml';
import type { CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { filesHolding, readUpstreamFile } from '../lib/upstream-source.ts';
import { facts } from '../../policy-tests/index.ts';
import { referenceCommand, refreshTarget, type RefreshOptions } from '../monitoring/program-reference.ts';

const DOCKERFILE = 'Dockerfile';
const PROVIDERS = 'internal/constants/providers/providers.go';
const VPN_TYPES = 'internal/constants/vpn/protocol.go';
const PROVIDER_SETTINGS = 'internal/configuration/settings/provider.go';
const PORT_FORWARD_SETTINGS = 'internal/configuration/settings/portforward.go';

/** The variables the Dockerfile's ENV instructions declare (`ENV A=1 \` then `    B= \` lines), each with its default. */
export function dockerfileEnv(dockerfile: string): Record<string, string> {
  const env: Record<string, string> = {};
  let inEnv = false;
  for (const line of dockerfile.split('\n')) {
    // Docker drops a comment line inside a continued instruction: the instruction goes on after it.
    if (inEnv && /^\s*#/.test(line)) continue;
    const m = /^(?:ENV\s+|\s+)([A-Z][A-Z0-9_]*)=(.*?)\s*\\?$/.exec(line);
    if (/^ENV\s/.test(line) || (inEnv && m)) {
      if (m) env[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
      inEnv = line.trimEnd().endsWith('\\');
    } else inEnv = false;
  }
  return Object.fromEntries(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)));
}

export interface ReaderCall {
  /** The gosettings reader method (`BoolPtr`, `CSVUint16`, `String`...). */
  method: string;
  name: string;
  /** The old names read before it (`reader.RetroKeys`). */
  retro: string[];
  /** `reader.ForceLowercase(false)`: the value is read as written. */
  keepsCase: boolean;
  /** A call that reads old names alone (`IsRetro`): it says nothing of how the current key is parsed. */
  retroOnly?: true;
}

/** Every `r.Method("NAME", options...)` call of a Go file to a gosettings parse method, its arguments read to the closing parenthesis. */
export function readerCalls(go: string): ReaderCall[] {
  const out: ReaderCall[] = [];
  // A constant as the call reads it: its declaration nearest before the call (each function may declare its own).
  const constantBefore = (name: string, at: number) =>
    [...go.slice(0, at).matchAll(new RegExp(`\\bconst\\s+${name}\\s*=\\s*"([A-Z][A-Z0-9_]*)"`, 'g'))].at(-1)?.[1];
  // The reader is `r` in most settings, `reader` in a few (which is also the package RetroKeys comes from). A call
  // with no name ("") reads its retro keys alone, for the key IsRetro names (a literal or a constant of the file).
  for (const m of go.matchAll(
    /\b(?:r|reader)\.(String|Get|CSV\w*|Bool(?:Ptr)?|(?:Uint|Int)\d*(?:Ptr)?|Float\d+(?:Ptr)?|Duration(?:Ptr)?|Netip\w+)\(\s*"([A-Z][A-Z0-9_]*)?"/g,
  )) {
    let depth = 0;
    let end = m.index + m[0].indexOf('(');
    for (; end < go.length; end++) {
      if (go[end] === '(') depth++;
      else if (go[end] === ')' && --depth === 0) break;
    }
    const args = go.slice(m.index + m[0].length, end);
    const retro = /RetroKeys\(([^)]*)\)/.exec(args)?.[1];
    const isRetro = /IsRetro\(\s*(?:"([A-Z][A-Z0-9_]*)"|(\w+))\s*\)/.exec(args);
    const current = isRetro ? (isRetro[1] ?? constantBefore(isRetro[2]!, m.index)) : undefined;
    const retroKeys = retro ? [...retro.matchAll(/"([A-Z][A-Z0-9_]*)"/g)].map((r) => r[1]!) : [];
    // A named call marked IsRetro reads an old name itself: it stands for the current key.
    if (current && m[2]) {
      out.push({ method: m[1]!, name: current, retro: [m[2], ...retroKeys], keepsCase: /ForceLowercase\(false\)/.test(args), retroOnly: true });
      continue;
    }
    if (!m[2]) {
      if (current) out.push({ method: m[1]!, name: current, retro: retroKeys, keepsCase: /ForceLowercase\(false\)/.test(args), retroOnly: true });
      continue;
    }
    out.push({ method: m[1]!, name: m[2], retro: retroKeys, keepsCase: /ForceLowercase\(false\)/.test(args) });
  }
  return out;
}

/** `Name = "value"` constants of a Go file. */
const constants = (go: string): Map<string, string> => new Map([...go.matchAll(/^\s*(\w+)\s*=\s*"([^"]*)"/gm)].map((m) => [m[1]!, m[2]!]));

export async function refreshGluetunReference(o: RefreshOptions): Promise<string> {
  const file = facts.GLUETUN_REFERENCE;
  const { repository, ref } = refreshTarget(o, file, 'https://github.com/qdm12/gluetun', { chart: false });
  const read = (path: string) => readUpstreamFile(repository, { ref, file: path }, o.from);
  const env = dockerfileEnv(await read(DOCKERFILE));
  const files = await filesHolding(o.from, ref, 'reader.Reader', ['internal', ':!*_test.go']);
  const calls = (await Promise.all(files.map(async (f) => readerCalls(await read(f))))).flat();
  // A variable read twice is parsed by the first reader that is not a bare Get (which takes any text).
  const settings: Record<string, { read: string; keepsCase?: true }> = {};
  const deprecated: Record<string, string> = {};
  for (const c of calls.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!c.retroOnly && (!settings[c.name] || settings[c.name]!.read === 'Get'))
      settings[c.name] = { read: c.method, ...(c.keepsCase ? { keepsCase: true as const } : {}) };
    for (const old of c.retro) deprecated[old] = c.name;
  }
  const providers = constants(await read(PROVIDERS));
  const all = /func All\(\) \[\]string \{[\s\S]*?\n\}/.exec(await read(PROVIDERS))?.[0] ?? '';
  const providerNames = [...all.matchAll(/^\s*(\w+),$/gm)].map((m) => providers.get(m[1]!)!).filter(Boolean);
  const wireguardBlock = /\} else \{ \/\/ Wireguard\s*validNames = \[\]string\{([\s\S]*?)\}/.exec(await read(PROVIDER_SETTINGS))?.[1] ?? '';
  const wireguard = [...wireguardBlock.matchAll(/providers\.(\w+)/g)].map((m) => providers.get(m[1]!)!).filter(Boolean);
  // PortForwarding.Validate: the providers whose port forwarding gluetun runs; any other with it enabled stops the start.
  const forwardBlock = /validProviders := \[\]string\{([\s\S]*?)\}/.exec(await read(PORT_FORWARD_SETTINGS))?.[1] ?? '';
  const portForwarding = [...forwardBlock.matchAll(/providers\.(\w+)/g)].map((m) => providers.get(m[1]!)!).filter(Boolean);
  const types = [...constants(await read(VPN_TYPES)).values()];
  if ([env, settings].some((o) => Object.keys(o).length === 0) || [providerNames, wireguard, portForwarding, types].some((l) => l.length === 0))
    throw new Error(
      `the sources at ${ref} do not read as this command expects (${DOCKERFILE}, the settings' reader calls, ${PROVIDERS}, ${PROVIDER_SETTINGS}, ${PORT_FORWARD_SETTINGS})`,
    );
  const body = {
    program: 'gluetun',
    version: ref.replace(/^v/, ''),
    source: {
      repository,
      ref,
      files: [DOCKERFILE, PROVIDERS, VPN_TYPES, PROVIDER_SETTINGS, PORT_FORWARD_SETTINGS],
      settings: 'every r.<Method>("NAME") call of internal/\'s non-test Go files that take a reader.Reader',
    },
    env,
    settings,
    deprecated,
    vpnTypes: types.sort(),
    providers: { custom: providers.get('Custom') ?? 'custom', all: providerNames, wireguard, portForwarding },
  };
  const header = `# What gluetun reads of its environment, as the gate holds the VPN container to it (media-gluetun-settings;
# policy-tests/model/apps/gluetun.ts). Written by npm run gluetun:reference -- --from <clone of qdm12/gluetun>: env, the
# variables ${DOCKERFILE} declares with their defaults; settings, each variable the settings read and the gosettings reader that parses it
# (keepsCase: read as written, else lower-cased); deprecated, the old names still read; vpnTypes and providers, the values
# its settings take (wireguard: the providers it takes with VPN_TYPE=wireguard; portForwarding: those whose port
# forwarding it runs, VPN_PORT_FORWARDING on with any other stops its start).
`;
  writeInCheckout(o.root, file, header + stringify(body, { lineWidth: 0, flowCollectionPadding: false }));
  return `wrote ${file}: ${Object.keys(env).length} declared variables, ${Object.keys(settings).length} read, ${Object.keys(deprecated).length} old names, gluetun ${body.version}`;
}

export const main = (argv: string[], io?: CommandIo): Promise<number> =>
  referenceCommand(
    {
      name: 'gluetun:reference',
      project: 'qdm12/gluetun',
      help: `Rewrites ${facts.GLUETUN_REFERENCE}: what gluetun reads of its environment at --ref (default: the tag it
was read at), from ${DOCKERFILE}, the settings' reader calls and the provider constants of the local clone --from names.`,
      refresh: refreshGluetunReference,
      chart: false,
    },
    argv,
    io,
  );

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
