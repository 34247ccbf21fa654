/**
 * What gluetun makes of its container's environment at start (cmd/gluetun and internal/configuration at the version the
 * reference was read for; apps/media/gluetun/facts/settings-reference.yaml): each variable read through gosettings'
 * reader (v0.4.4: the value trimmed of spaces and quotes, lower-cased unless the setting keeps its case, empty as unset,
 * an old name before the new one), parsed by that reader's type, then the settings' own checks this port takes (the VPN
 * type, the provider for it, the firewall's ports and outbound subnets). A value it cannot parse or a setting it refuses
 * stops it at start: no tunnel, and the sidecars in its pod have no network. A variable it never reads does nothing.
 * Its server selection (the countries and cities its server list has) and its keys are not ported.
 */
import { isMap } from '../core/dig.ts';
import { scalarText } from '../core/text.ts';
import { didYouMean } from '../core/did-you-mean.ts';
import { goParseDuration } from '../core/time.ts';
import { GO_SYNTAX_ERROR, goParseDecimal, goParseFloat } from '../go/strconv.ts';
import { parseAddr, parsePrefix } from '../go/netip.ts';
import { referenceFile, type ReferenceRead } from '../helm/reference-file.ts';

export const GLUETUN_REFERENCE = 'apps/media/gluetun/facts/settings-reference.yaml';
export const GLUETUN_IMAGE = 'qmcgaw/gluetun';

export interface GluetunReference {
  version: string;
  /** The image's declared variables, each with its default. */
  env: Readonly<Record<string, string>>;
  settings: Readonly<Record<string, { read: string; keepsCase?: boolean }>>;
  deprecated: Readonly<Record<string, string>>;
  vpnTypes: readonly string[];
  /** portForwarding: the providers whose port forwarding it runs (PortForwarding.Validate); absent in an older reference, and then not judged. */
  providers: { custom: string; all: readonly string[]; wireguard: readonly string[]; portForwarding?: readonly string[] };
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The reference file's content, or why it does not read. */
export function gluetunFields(doc: unknown): GluetunReference | { problem: string } {
  if (!isMap(doc)) return { problem: 'it is not a map' };
  const { version, env, settings, deprecated, vpnTypes, providers } = doc as Record<string, unknown>;
  if (typeof version !== 'string') return { problem: 'no version' };
  if (!isMap(env) || !Object.values(env).every((v) => typeof v === 'string')) return { problem: 'env is not a map of defaults' };
  if (!isMap(settings) || !Object.values(settings).every((s) => isMap(s) && typeof s.read === 'string')) return { problem: 'settings is not a map of readers' };
  if (!isMap(deprecated) || !Object.values(deprecated).every((v) => typeof v === 'string')) return { problem: 'deprecated is not a map of names' };
  if (!strings(vpnTypes)) return { problem: 'vpnTypes is not a list' };
  if (!isMap(providers) || typeof providers.custom !== 'string' || !strings(providers.all) || !strings(providers.wireguard))
    return { problem: 'providers has no custom, all and wireguard' };
  if (providers.portForwarding !== undefined && !strings(providers.portForwarding)) return { problem: 'providers.portForwarding is not a list' };
  return {
    version,
    env: env as Record<string, string>,
    settings: settings as GluetunReference['settings'],
    deprecated: deprecated as Record<string, string>,
    vpnTypes,
    providers: providers as GluetunReference['providers'],
  };
}

export type GluetunReferenceRead = ReferenceRead<GluetunReference>;

export const gluetunReference = referenceFile(GLUETUN_REFERENCE, gluetunFields);

/** gosettings' postProcessValue: lower-cased unless kept, trimmed of spaces, line endings and quotes, repeatedly. */
export function gosettingsValue(raw: string, keepsCase: boolean): string {
  let value = keepsCase ? raw : raw.toLowerCase();
  for (;;) {
    value = value.replace(/^[\t\n\v\f\r \x85\xa0]+|[\t\n\v\f\r \x85\xa0]+$/g, '');
    if (value.length >= 2 && `'"\``.includes(value[0]!) && `'"\``.includes(value.at(-1)!)) value = value.slice(1, -1);
    else return value;
  }
}

const TRUE_WORDS = ['enabled', 'yes', 'on', 'true'];
const FALSE_WORDS = ['disabled', 'no', 'off', 'false'];
const BOOLS = [...TRUE_WORDS, ...FALSE_WORDS];

/** gosettings' parseBool: true or false for its words in any case, undefined for anything else (gluetun exits on it). */
export const gluetunBool = (value: string): boolean | undefined =>
  TRUE_WORDS.includes(value.toLowerCase()) ? true : FALSE_WORDS.includes(value.toLowerCase()) ? false : undefined;

/** Old names gluetun still reads, when no reference says which (the ones the checks of the VPN pod read). */
const OLD_NAMES: Readonly<Record<string, string>> = { EXTRA_SUBNETS: 'FIREWALL_OUTBOUND_SUBNETS' };

/** A container's env entry, as the pod spec holds it. */
export interface GluetunEnv {
  name?: unknown;
  value?: unknown;
  valueFrom?: unknown;
}

/** The entry a setting is read from, and its value as gosettings reads it: undefined where the pod alone knows it. */
export interface GluetunRead {
  index: number;
  name: string;
  value: string | undefined;
}

/** The name gosettings' env source knows a variable by (its KeyTransform): upper case, dashes as underscores. */
const envKey = (name: string): string => name.toUpperCase().replaceAll('-', '_');

/**
 * Each setting a container's env gives gluetun, as gosettings reads it (its `get`): an old name before the new one,
 * the first one set and not empty as written wins and the others are never parsed; a name in any case; the last entry
 * of a name; then trimmed of spaces and quotes and lower-cased unless the setting keeps its case, so that `" "` is set
 * and reads as "". A value from a Secret or a field, or one Kubernetes expands from another variable, is undefined. A
 * setting no entry sets (or every entry sets empty) is absent.
 */
export function gluetunReads(
  env: readonly GluetunEnv[],
  deprecated: Readonly<Record<string, string>> = OLD_NAMES,
  keepsCase: (setting: string) => boolean = () => false,
): Map<string, GluetunRead> {
  const lastIndex = new Map<string, number>();
  env.forEach((e, index) => lastIndex.set(envKey(scalarText(e.name ?? '')), index));
  const settings = new Set([...lastIndex.keys()].map((name) => deprecated[name] ?? name));
  const reads = new Map<string, GluetunRead>();
  for (const setting of settings) {
    const names = [...Object.keys(deprecated).filter((old) => deprecated[old] === setting), setting];
    for (const name of names) {
      const index = lastIndex.get(name);
      if (index === undefined) continue;
      const entry = env[index]!;
      const raw = entry.value === undefined && entry.valueFrom !== undefined ? undefined : scalarText(entry.value ?? '');
      if (raw === undefined || raw.includes('$(')) {
        reads.set(setting, { index, name: scalarText(entry.name ?? ''), value: undefined });
        break;
      }
      if (raw === '') continue;
      reads.set(setting, { index, name: scalarText(entry.name ?? ''), value: gosettingsValue(raw, keepsCase(setting)) });
      break;
    }
  }
  return reads;
}

/** gosettings' integer readers, each strconv.ParseUint or ParseInt in base 10 at its width (digits only, a sign for ParseInt). */
const INTEGER_BITS: Record<string, { bits: number; unsigned: boolean }> = {
  Uint8: { bits: 8, unsigned: true },
  Uint16: { bits: 16, unsigned: true },
  Uint32: { bits: 32, unsigned: true },
  Uint64: { bits: 64, unsigned: true },
  Uint: { bits: 64, unsigned: true },
  Int8: { bits: 8, unsigned: false },
  Int16: { bits: 16, unsigned: false },
  Int32: { bits: 32, unsigned: false },
  Int64: { bits: 64, unsigned: false },
  Int: { bits: 64, unsigned: false },
};

/** Why gosettings' parser of one value of type `kind` (`Uint16`, `Bool`, `NetipPrefix`...) refuses it, or undefined. */
function scalarProblem(kind: string, value: string): string | undefined {
  // parseBool: "" is no value (the default), any other word not its own is refused.
  if (kind === 'Bool')
    return value === '' || BOOLS.includes(value.toLowerCase()) ? undefined : `value "${value}" is not one of the possible choices: ${BOOLS.join(', ')}`;
  const integer = INTEGER_BITS[kind];
  if (integer) {
    // gosettings words a range error itself, with the number; a syntax error is strconv's.
    const parsed = goParseDecimal(value, integer);
    if (!('error' in parsed)) return undefined;
    return parsed.error === GO_SYNTAX_ERROR
      ? `strconv.${integer.unsigned ? 'ParseUint' : 'ParseInt'}: parsing "${value}": invalid syntax`
      : `value is not in range: ${BigInt(value)}`;
  }
  if (kind === 'Float64' || kind === 'Float32') {
    const n = goParseFloat(value);
    return n === undefined ? `strconv.ParseFloat: parsing "${value}": invalid syntax` : n < 0 ? `value is not in range: ${value}` : undefined;
  }
  if (kind === 'Duration') {
    const d = goParseDuration(value);
    return d.ok ? undefined : d.error;
  }
  if (kind === 'NetipAddr') return parseAddr(value) ? undefined : `ParseAddr("${value}"): unable to parse IP`;
  if (kind === 'NetipPrefix') return parsePrefix(value) ? undefined : `netip.ParsePrefix("${value}"): invalid prefix`;
  return undefined;
}

/** Why the reader `method` (`BoolPtr`, `CSVUint16`...) refuses a value, or undefined (a `String`, `Get` or `CSV` takes any). */
export function readerProblem(method: string, value: string): string | undefined {
  const kind = method.replace(/Ptr$/, '');
  if (kind.startsWith('CSV')) {
    const each = kind
      .slice(3)
      .replace(/^NetipAddresses$/, 'NetipAddr')
      .replace(/^NetipPrefixes$/, 'NetipPrefix');
    // gosettings splits at commas and parses each part as it is: a space after a comma is part of the next value.
    for (const part of value.split(',')) {
      const problem = scalarProblem(each, part);
      if (problem) return problem;
    }
    return undefined;
  }
  return scalarProblem(kind, value);
}

export interface GluetunProblem {
  /** The env entry the problem is about; undefined for the container as a whole (a default the image sets). */
  index: number | undefined;
  /** Whether the variable's name is at fault (one gluetun does not read) or its value. */
  on: 'name' | 'value';
  message: string;
}

/**
 * What gluetun refuses or ignores of a container's environment. With `whole` false (the container also takes
 * variables from elsewhere, an envFrom), a setting it does not list may be set there: its image's default is not assumed.
 */
/** Every name gluetun reads of its environment: its image's defaults, its settings and their old names. */
export const gluetunNames = (ref: GluetunReference): Set<string> =>
  new Set([...Object.keys(ref.env), ...Object.keys(ref.settings), ...Object.keys(ref.deprecated)]);

export function gluetunProblems(env: readonly GluetunEnv[], ref: GluetunReference, { whole }: { whole: boolean }): GluetunProblem[] {
  const problems: GluetunProblem[] = [];
  const known = gluetunNames(ref);
  const named = new Map(env.map((e, index) => [scalarText(e.name ?? ''), index]));
  for (const [name, index] of named)
    if (!known.has(envKey(name)))
      problems.push({ index, on: 'name', message: `gluetun ${ref.version} reads no ${name}${didYouMean(name, known)}: the setting does nothing` });
  const reads = gluetunReads(env, ref.deprecated, (setting) => ref.settings[setting]?.keepsCase === true);
  const values = new Map<string, { value: string; from: number }>();
  for (const [setting, read] of reads) {
    if (read.value === undefined) continue;
    // A value that trims to nothing leaves a text setting at its default, and fails every reader of a number or address.
    if (read.value !== '') values.set(setting, { value: read.value, from: read.index });
    const reader = ref.settings[setting];
    const problem = reader ? readerProblem(reader.read, read.value) : undefined;
    if (problem) problems.push({ index: read.index, on: 'value', message: `gluetun ${ref.version} cannot read ${read.name} (${problem}) and exits at start` });
  }
  // A setting the container leaves unset takes the image's default; one set where the gate cannot read it is not judged.
  const valueOf = (setting: string) =>
    (reads.has(setting) && reads.get(setting)!.value === undefined) || (!whole && !values.has(setting))
      ? undefined
      : (values.get(setting) ?? { value: gosettingsValue(ref.env[setting] ?? '', false), from: undefined });
  const vpnType = valueOf('VPN_TYPE');
  const provider = valueOf('VPN_SERVICE_PROVIDER');
  if (vpnType && !ref.vpnTypes.includes(vpnType.value))
    problems.push({
      index: vpnType.from,
      on: 'value',
      message: `gluetun ${ref.version} refuses VPN type "${vpnType.value}" (one of ${ref.vpnTypes.join(', ')}) and exits at start`,
    });
  else if (vpnType && provider) {
    const name = providerName(provider.value);
    const valid = vpnType.value === 'wireguard' ? ref.providers.wireguard : [...ref.providers.all, ref.providers.custom];
    if (!valid.includes(name))
      problems.push({
        index: provider.from,
        on: 'value',
        message: `gluetun ${ref.version} refuses VPN provider "${name}" with ${vpnType.value} (one of ${valid.join(', ')}) and exits at start`,
      });
  }
  problems.push(...portForwardingProblems(ref, valueOf));
  for (const ports of ['FIREWALL_INPUT_PORTS', 'FIREWALL_VPN_INPUT_PORTS']) {
    const v = values.get(ports);
    if (v && readerProblem('CSVUint16', v.value) === undefined && v.value.split(',').some((p) => /^0+$/.test(p)))
      problems.push({ index: v.from, on: 'value', message: `gluetun ${ref.version} refuses port 0 in ${ports} and exits at start` });
  }
  const subnets = values.get('FIREWALL_OUTBOUND_SUBNETS');
  const open = subnets?.value.split(',').find((s) => {
    const p = parsePrefix(s);
    return p !== undefined && p.addr.value === 0n;
  });
  if (subnets && open !== undefined)
    problems.push({
      index: subnets.from,
      on: 'value',
      message: `gluetun ${ref.version} refuses the outbound subnet ${open}, which opens every address outside the tunnel, and exits at start`,
    });
  return problems;
}

/** A provider as gluetun names it (readVPNServiceProvider): "pia" is the old name of Private Internet Access; unset, SetDefaults gives it too. */
const providerName = (value: string): string => (value === 'pia' || value === '' ? 'private internet access' : value);

/**
 * PortForwarding.Validate: with VPN_PORT_FORWARDING on, the provider it forwards for (VPN_PORT_FORWARDING_PROVIDER,
 * else the VPN's) is one whose port forwarding gluetun runs, or gluetun refuses its settings and exits at start. A
 * reference without the list, or a setting the gate cannot read, is not judged.
 */
function portForwardingProblems(
  ref: GluetunReference,
  valueOf: (setting: string) => { value: string; from: number | undefined } | undefined,
): GluetunProblem[] {
  const valid = ref.providers.portForwarding;
  const enabled = valueOf('VPN_PORT_FORWARDING');
  if (!valid || !enabled || gluetunBool(enabled.value) !== true) return [];
  const own = valueOf('VPN_PORT_FORWARDING_PROVIDER');
  const provider = own && own.value !== '' ? own : valueOf('VPN_SERVICE_PROVIDER');
  if (!provider) return [];
  const name = providerName(provider.value);
  if (valid.includes(name)) return [];
  return [
    {
      index: enabled.from,
      on: 'value',
      message: `gluetun ${ref.version} runs port forwarding for ${valid.join(', ')} alone, and refuses it for "${name}" ("port forwarding cannot be enabled") and exits at start`,
    },
  ];
}
