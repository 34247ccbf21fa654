/**
 * What falcoctl makes of its configuration file when the falco chart's `artifact install` init container or its
 * `artifact follow` sidecar starts, ported from falcoctl v0.13.0 (`cmd/artifact/install/install.go`,
 * `cmd/artifact/follow/follow.go`, `internal/config/config.go`, `pkg/oci/types.go`) and the libraries it reads the
 * file with: viper v1.21 (keys in any case, a null as unset, a variable FALCOCTL_<KEY> over the file), spf13/cast
 * v1.10 (a list of texts) and pflag v1.0 (each setting a command carries into one of its flags as `fmt.Sprintf("%v")`
 * text, which the flag then parses). A refusal stops the command: the init container fails and Falco never starts,
 * or the sidecar restarts and the pod is never ready.
 */
import { isMap } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import { goParseDuration } from '../core/time.ts';
import { parseStandard } from '../cron/robfig.ts';
import { goPrint } from '../go/fmt.ts';
import { goParseBool } from '../core/text.ts';

/** The falcoctl release this port follows, and the falco chart release that runs it by default. */
export const FALCOCTL_PORT = { version: '0.13.0', chart: 'falco', chartVersion: '9.1.0', image: 'falcosecurity/falcoctl' } as const;

export type FalcoctlCommand = 'install' | 'follow';

type FlagType = 'bool' | 'duration' | 'text';

/** A setting a command's PreRunE carries from the configuration into a flag: its viper key, its flag and the flag's type. */
interface Carried {
  key: string;
  flag: string;
  type: FlagType;
}

const dirs = (phase: FalcoctlCommand, assets: FalcoctlCommand): Carried[] => [
  { key: `artifact.${phase}.rulesfilesdir`, flag: 'rulesfiles-dir', type: 'text' },
  { key: `artifact.${phase}.pluginsdir`, flag: 'plugins-dir', type: 'text' },
  { key: `artifact.${assets}.assetsdir`, flag: 'assets-dir', type: 'text' },
  { key: `artifact.${phase}.statedir`, flag: 'state-dir', type: 'text' },
];

const CARRIED: Readonly<Record<FalcoctlCommand, readonly Carried[]>> = {
  // install reads the follower's assets directory, as v0.13.0 does.
  install: [
    ...dirs('install', 'follow'),
    { key: 'artifact.install.resolveDeps', flag: 'resolve-deps', type: 'bool' },
    { key: 'artifact.noVerify', flag: 'no-verify', type: 'bool' },
  ],
  follow: [
    { key: 'artifact.follow.every', flag: 'every', type: 'duration' },
    { key: 'artifact.follow.startupBehavior', flag: 'startup-behavior', type: 'text' },
    { key: 'artifact.follow.cron', flag: 'cron', type: 'text' },
    { key: 'artifact.follow.falcoversions', flag: 'falco-versions', type: 'text' },
    ...dirs('follow', 'follow'),
    { key: 'artifact.follow.tmpdir', flag: 'tmp-dir', type: 'text' },
    { key: 'artifact.noVerify', flag: 'no-verify', type: 'bool' },
  ],
};

const STARTUP_BEHAVIORS = ['skip', 'jitter', 'immediate'];
const ARTIFACT_TYPES = ['rulesfile', 'plugin', 'asset'];
const SEMICOLON_SEPARATED = /^([^;]+)(;[^;]+)*$/;
const COMMA_SEPARATED = /^([^,]+)(,[^,]+)*$/;

/** A container's env as falcoctl sees it: a literal value, or undefined where only the pod knows it (a Secret, a field). */
export type FalcoctlEnv = ReadonlyMap<string, string | undefined>;

export interface FalcoctlProblem {
  /** Where in the configuration file, or the env variable that set it. */
  at: { path: Path } | { env: string };
  message: string;
  /** What the gate cannot work out (a reference its index facts do not hold): said not judged, never failed. */
  notJudged?: true;
}

/** An artifact of the index falcoctl resolves names through: its name, type, and where a full reference finds it. */
export interface IndexEntry {
  name: string;
  type: string;
  registry: string;
  repository: string;
}

/** The falcosecurity index, the one the chart's falcoctl configuration names. */
export const FALCOSECURITY_INDEX = 'https://falcosecurity.github.io/falcoctl/index.yaml';
/** The facts that record that index's entries. */
export const ARTIFACT_INDEX_FILE = 'security/falco/facts/artifact-index.yaml';

/** The index facts' entries, where the file holds a list of them (each with its four texts); undefined otherwise. */
export function indexEntries(data: unknown): IndexEntry[] | undefined {
  const list = isMap(data) ? data.index : undefined;
  const keys = ['name', 'type', 'registry', 'repository'];
  const valid = (e: unknown) => isMap(e) && Object.keys(e).length === keys.length && keys.every((k) => typeof e[k] === 'string' && e[k] !== '');
  return Array.isArray(list) && list.length > 0 && list.every(valid) ? (list as IndexEntry[]) : undefined;
}

/** Where a key stands: its value and the path as the file spells it, or why the file is ambiguous about it. */
type Found = { value: unknown; at: FalcoctlProblem['at'] } | { unknown: string } | { ambiguous: Path; keys: string[] } | undefined;

/** viper's lookup of `key`: a non-empty env variable FALCOCTL_<KEY> first, then the file's nested maps, keys in any case. */
function lookup(doc: unknown, key: string, env: FalcoctlEnv): Found {
  const name = `FALCOCTL_${key.toUpperCase().replaceAll('.', '_').replaceAll('-', '_')}`;
  if (env.has(name)) {
    const value = env.get(name);
    if (value === undefined) return { unknown: name };
    if (value !== '') return { value, at: { env: name } };
  }
  let node = doc;
  const path: string[] = [];
  for (const part of key.toLowerCase().split('.')) {
    if (!isMap(node)) return undefined;
    const keys = Object.keys(node).filter((k) => k.toLowerCase() === part);
    // viper folds each key to lower case into a Go map: which of two spellings survives is the map's order, at random.
    if (keys.length > 1) return { ambiguous: path, keys };
    if (keys.length === 0) return undefined;
    path.push(keys[0]!);
    node = node[keys[0]!];
  }
  return node === null || node === undefined ? undefined : { value: node, at: { path } };
}

/**
 * A setting as falcoctl carries it into its flag (a FALCOCTL_ variable over the file, printed as text); undefined where
 * unset, `unknown` where a variable only the pod knows sets it, `ambiguous` where two spellings of the key compete
 * (which falcoctlProblems says).
 */
export function carriedText(
  doc: unknown,
  key: string,
  env: FalcoctlEnv,
): { text: string; at: FalcoctlProblem['at'] } | { unknown: string } | { ambiguous: true } | undefined {
  const found = lookup(doc, key, env);
  if (!found) return undefined;
  if ('ambiguous' in found) return { ambiguous: true };
  return 'unknown' in found ? found : { text: goPrint(found.value), at: found.at };
}

/** spf13/cast's ToStringE of one element: scalars as text, anything else an error (undefined). */
function castText(value: unknown): string | undefined {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 1e21 ? BigInt(value).toString() : String(value);
  return undefined;
}

/** viper's GetStringSlice (cast.ToStringSlice): a list element by element, a text split at spaces, a scalar alone; nil on error. */
function stringSlice(value: unknown): string[] {
  if (Array.isArray(value)) {
    const texts = value.map(castText);
    return texts.every((t) => t !== undefined) ? (texts as string[]) : [];
  }
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  const text = castText(value);
  return text === undefined ? [] : [text];
}

/** pflag's Set for a flag of `type` given `text`: why it refuses it, or undefined. */
function flagProblem(type: FlagType, flag: string, text: string): string | undefined {
  if (type === 'bool' && goParseBool(text) === undefined)
    return `invalid argument "${text}" for "--${flag}" flag: strconv.ParseBool: parsing "${text}": invalid syntax`;
  if (type === 'duration') {
    const parsed = goParseDuration(text);
    if (!parsed.ok) return `invalid argument "${text}" for "--${flag}" flag: ${parsed.error}`;
  }
  return undefined;
}

/** Each setting `command` carries into a flag, as its flag reads it, and the follower's own checks of two of them. */
function carriedProblems(doc: unknown, command: FalcoctlCommand, env: FalcoctlEnv, cronRead: boolean): FalcoctlProblem[] {
  const problems: FalcoctlProblem[] = [];
  for (const { key, flag, type } of CARRIED[command]) {
    const found = lookup(doc, key, env);
    if (!found || 'unknown' in found || 'ambiguous' in found) continue;
    const text = goPrint(found.value);
    const refused = flagProblem(type, flag, text);
    const stop = (why: string) => problems.push({ at: found.at, message: `falcoctl ${FALCOCTL_PORT.version} artifact ${command} ${why} and exits at start` });
    if (refused) stop(`cannot overwrite its --${flag} flag with ${key} (${refused})`);
    else if (type === 'text' && (Array.isArray(found.value) || isMap(found.value)))
      problems.push({ at: found.at, message: `falcoctl ${FALCOCTL_PORT.version} artifact ${command} takes the text "${text}" of ${key} as its --${flag}` });
    else if (flag === 'startup-behavior' && !STARTUP_BEHAVIORS.includes(text))
      stop(`refuses --startup-behavior "${text}" (one of ${STARTUP_BEHAVIORS.join(', ')})`);
    else if (flag === 'cron' && text !== '' && cronRead) {
      const parsed = parseStandard(text);
      if (!parsed.ok) stop(`cannot parse cron '${text}' (${parsed.error})`);
    }
  }
  return problems;
}

/**
 * follow's PreRunE sets --every and --cron from the configuration where the command line leaves them (viper.IsSet), and
 * a flag set so counts as given: cobra's group (MarkFlagsMutuallyExclusive) then refuses the two together, so a cron
 * beside the chart's every: 168h stops the sidecar. Said at the configuration's setting; two flags both on the command
 * line are the command line's reader's to say.
 */
function cronWithEvery(doc: unknown, env: FalcoctlEnv, commandLine: readonly string[]): FalcoctlProblem | undefined {
  const source = (flag: 'cron' | 'every') => {
    if (commandLine.includes(flag)) return 'command line' as const;
    const found = lookup(doc, `artifact.follow.${flag}`, env);
    return found && 'value' in found ? found : undefined;
  };
  const [cron, every] = [source('cron'), source('every')];
  if (!cron || !every || (cron === 'command line' && every === 'command line')) return undefined;
  const from = (s: typeof cron) => (s === 'command line' ? 'its command line' : 'at' in s && 'env' in s.at ? s.at.env : 'its configuration');
  const at = cron !== 'command line' ? cron.at : (every as Exclude<typeof every, 'command line'>).at;
  return {
    at,
    message: `falcoctl ${FALCOCTL_PORT.version} artifact follow is given --cron (by ${from(cron)}) and --every (by ${from(every)}): cobra refuses the two together ("if any flags in the group [cron every] are set none of the others can be") and it exits at start`,
  };
}

/** A list as falcoctl's config package reads one (ArtifactAllowedTypes, Installer's refs): a single text split at `separator`. */
function listOf(value: unknown, separator: string): string[] {
  const list = stringSlice(value);
  return list.length === 1 ? list[0]!.split(separator) : list;
}

/** config.ArtifactAllowedTypes, then the flag's Set of the list joined: an empty list is refused too. */
function allowedTypesProblem(doc: unknown, env: FalcoctlEnv): { at: FalcoctlProblem['at']; why: string } | undefined {
  const found = lookup(doc, 'artifact.allowedTypes', env);
  if (!found || 'unknown' in found || 'ambiguous' in found) return undefined;
  let types = stringSlice(found.value);
  if (types.length === 1) {
    if (!COMMA_SEPARATED.test(types[0]!)) return { at: found.at, why: `reads allowedTypes ${JSON.stringify(types[0])}, which is no comma-separated list` };
    types = types[0]!.split(',');
  }
  const unknown = types.find((t) => !ARTIFACT_TYPES.includes(t));
  if (unknown !== undefined)
    return { at: found.at, why: `refuses the artifact type ${JSON.stringify(unknown)} in allowedTypes (must be one of ${ARTIFACT_TYPES.join(', ')})` };
  const joined = types.join(',');
  return COMMA_SEPARATED.test(joined)
    ? undefined
    : { at: found.at, why: `reads allowedTypes as ${JSON.stringify(joined)}, which its --allowed-types flag refuses` };
}

/** config.Installer and config.Follower: the references, a single one split at semicolons; none at all is an error. */
function refsProblem(doc: unknown, command: FalcoctlCommand, env: FalcoctlEnv, whole: boolean): { at: FalcoctlProblem['at']; why: string } | undefined {
  const found = lookup(doc, `artifact.${command}.refs`, env);
  if (found && ('unknown' in found || 'ambiguous' in found)) return undefined;
  const refs = found ? stringSlice(found.value) : [];
  if (found && refs.length === 1 && !SEMICOLON_SEPARATED.test(refs[0]!))
    return { at: found.at, why: `reads ${command} refs ${JSON.stringify(refs[0])}, which is no semicolon-separated list` };
  if (refs.length === 0 && (found || whole))
    return { at: found?.at ?? { path: [] }, why: `has no artifacts to ${command} (${command} refs ${found ? goPrint(found.value) : 'unset'})` };
  return undefined;
}

/**
 * ResolveReference, then CheckAllowedType: each reference `artifact install` pulls is of a type allowedTypes takes
 * (an empty list takes any). A name is found in the index, a full reference (registry/repository[:tag]) by its
 * repository; one the index facts do not hold, or a configuration that names other indexes, is not judged.
 */
function typeProblems(doc: unknown, env: FalcoctlEnv, index: readonly IndexEntry[], refs: readonly string[] | undefined): FalcoctlProblem[] {
  const allowed = lookup(doc, 'artifact.allowedTypes', env);
  if (!allowed || 'unknown' in allowed || 'ambiguous' in allowed) return [];
  const types = listOf(allowed.value, ',');
  const found = lookup(doc, 'artifact.install.refs', env);
  const named = refs ?? (found && 'value' in found ? listOf(found.value, ';') : []);
  if (types.length === 0 || named.length === 0) return [];
  const indexes = lookup(doc, 'indexes', env);
  const urls = indexes && 'value' in indexes && Array.isArray(indexes.value) ? indexes.value.map((i) => (isMap(i) ? i.url : undefined)) : [FALCOSECURITY_INDEX];
  const at = found && 'at' in found ? found.at : allowed.at;
  return named.flatMap((ref): FalcoctlProblem[] => {
    const slash = ref.indexOf('/');
    const bare = ref.replace(/@.*$/, '').replace(/:[^:/]*$/, '');
    const entry =
      (urls.length === 1 && urls[0] === FALCOSECURITY_INDEX) || slash !== -1
        ? index.find((e) => (slash === -1 ? e.name === bare : `${e.registry}/${e.repository}` === bare))
        : undefined;
    if (!entry)
      return [
        {
          at,
          notJudged: true,
          message: `falcoctl ${FALCOCTL_PORT.version} artifact install pulls ${ref}, whose type the index facts do not say: whether allowedTypes takes it is not judged`,
        },
      ];
    if (types.includes(entry.type)) return [];
    return [
      {
        at: allowed.at,
        message: `falcoctl ${FALCOCTL_PORT.version} artifact install pulls ${ref}, a ${entry.type}, and allowedTypes (${types.join(', ')}) does not take it: "cannot download artifact of type ${entry.type}: type not permitted", and the init container exits`,
      },
    ];
  });
}

/**
 * Why `falcoctl artifact <command>` stops at start on configuration `doc` with `env`. With `whole` false (the values
 * alone, the chart's defaults not known), a setting left unset is not judged; with `refsOnCommandLine`, the command's
 * own arguments name the references, and the file's are never read.
 */
export function falcoctlProblems(
  doc: unknown,
  command: FalcoctlCommand,
  o: {
    env: FalcoctlEnv;
    whole: boolean;
    refsOnCommandLine?: boolean;
    index?: readonly IndexEntry[];
    commandLineRefs?: readonly string[];
    /** The flags the command's own arguments give (`cron`, `every`), which the configuration then does not overwrite. */
    commandLineFlags?: readonly string[];
  },
): FalcoctlProblem[] {
  const problems: FalcoctlProblem[] = [];
  const keys = [...CARRIED[command].map((c) => c.key), 'artifact.allowedTypes', `artifact.${command}.refs`];
  for (const key of keys) {
    const found = lookup(doc, key, o.env);
    if (found && 'ambiguous' in found && !problems.some((p) => 'path' in p.at && p.at.path.join('.') === found.ambiguous.join('.')))
      problems.push({
        at: { path: found.ambiguous },
        message: `falcoctl ${FALCOCTL_PORT.version} reads keys in any case: ${found.keys.join(' and ')} are one key to it, and which it keeps is left to chance`,
      });
  }
  // cobra refuses --cron with --every before the command runs, where it would parse the cron.
  const group = command === 'follow' ? cronWithEvery(doc, o.env, o.commandLineFlags ?? []) : undefined;
  problems.push(...carriedProblems(doc, command, o.env, group === undefined));
  for (const p of [allowedTypesProblem(doc, o.env), o.refsOnCommandLine ? undefined : refsProblem(doc, command, o.env, o.whole)])
    if (p) problems.push({ at: p.at, message: `falcoctl ${FALCOCTL_PORT.version} artifact ${command} ${p.why} and exits at start` });
  if (group) problems.push(group);
  if (command === 'install' && o.index && problems.length === 0 && !(o.refsOnCommandLine && !o.commandLineRefs))
    problems.push(...typeProblems(doc, o.env, o.index, o.refsOnCommandLine ? o.commandLineRefs : undefined));
  return problems;
}
