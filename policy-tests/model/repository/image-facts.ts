/**
 * What an image needs of the pod that runs it, read from the image's own build
 * (its Dockerfile, entrypoint and init scripts) and kept as facts beside the
 * workloads that run it, in `<area>/facts/images.yaml`. The API server knows
 * nothing of an image: a pod that starts an s6 init as user 1000, or a Python
 * server on a read-only root with nowhere to put a temporary file, is
 * accepted, and the container fails at its first step.
 */
import { argoGlobMatch } from '../core/glob.ts';
import { compareReleases, imageParts, imageRelease } from '../core/workloads.ts';
import { API_REQUESTS_FIELD, type ApiRequests } from '../apps/api-requests.ts';
import { perRepo } from './per-repo.ts';
import { didYouMean } from '../core/did-you-mean.ts';
import { isProgramOptions, PROGRAM_OPTIONS_KEYS, type ProgramOptions } from '../command-lines/command-line.ts';
import { LISTENS_FIELD, type Listens } from '../programs/listens.ts';
import { HTTP_PATH_FIELDS, isPathList, type HttpPaths } from '../programs/http-paths.ts';
import { SELF_URL_FIELD, type SelfUrl } from '../programs/self-url.ts';
import { DIALS_FIELD, type OutboundDial } from '../programs/outbound-dials.ts';
import { URL_BASE_FIELD, type UrlBase } from '../programs/url-base.ts';
import { DATABASES_FIELD, type Databases } from '../programs/databases.ts';
import { isAnchoredPattern as isPattern } from '../core/text.ts';
import type { Repo } from './repo.ts';

/** Where image facts live: one file per area, beside the workloads that run the images (never applied: `*\/facts/*`). */
export const IMAGE_FACTS_GLOB = '*/facts/images.yaml';

/** What an image needs, and what its program answers over HTTP (its path facts, http-paths.ts). */
export interface ImageNeeds extends HttpPaths {
  /** The image's repository, registry included, without tag or digest. */
  image: string;
  file: string;
  /** Its place in the file's `images` list (0-based), for a finding at one of its fields. */
  entry: number;
  /** Its init must start as root, with these capabilities, and drops to PUID/PGID itself; `before`: up to that release only. */
  root?: { capabilities: string[]; before?: string };
  /**
   * It writes a temporary directory and fails without one, looked up as its runtime does: `python` (tempfile: the first
   * writable of $TMPDIR, $TEMP, $TMP, /tmp, /var/tmp and /usr/tmp; `true` says the same) or `node` (os.tmpdir(): $TMPDIR,
   * else $TMP, else $TEMP, else /tmp, writable or not).
   */
  tempDir?: boolean | 'python' | 'node';
  /** Directories its app writes that the image does not make writable (nor its user can make): each needs a writable volume there. */
  writesTo?: string[];
  /** The node's folders its program reads or writes at the same path: each a hostPath volume of that path, mounted there. */
  nodeFolders?: string[];
  /**
   * Its init is s6-overlay v3 (3.2.1 or later): started as any user but root, with no privilege escalation, its
   * preinit cannot make /run its own and stops, unless /run is a writable volume and
   * S6_YES_I_WANT_A_WORLD_WRITABLE_RUN_BECAUSE_KUBERNETES is set (libexec/preinit).
   */
  s6Overlay?: boolean;
  /**
   * The image's ENTRYPOINT, when `root` and `s6Overlay` are its needs rather than the app's: a container whose
   * `command` replaces it never runs it (the kubelet's `command` overrides ENTRYPOINT, and CMD with it).
   */
  entrypoint?: string[];
  /** Programs on the image's PATH that the repository's containers start by name (not every one it has). */
  commands?: string[];
  /** The options a program of the image takes on its command line, as its parser reads them. */
  options?: ProgramOptions[];
  /** Settings read from the environment that work only together: a variable named like `set` is ignored without its `needs` (`*` the same text in both). */
  envTogether?: { set: string; needs: string }[];
  /** Settings the image cannot do without (where others hold given values, if `when` or `whenNot` is given; EnvNeed). */
  envNeeds?: EnvNeed[];
  /** Settings the image reads only from a release on (`*` any text): an older release ignores the variable. */
  envSince?: { name: string; since: string }[];
  /** Settings it takes in one form only (`pattern`, the value as written): another value is refused, or ignored. */
  envFormat?: { name: string; pattern: string; empty?: boolean }[];
  /** Where its own program listens: each port and bind address read from a variable (model/programs/listens.ts). */
  listens?: Listens[];
  /** The variables naming the address its program gives clients for itself: its host one an Ingress routes to it. */
  selfUrl?: SelfUrl[];
  /** The URLs outside the cluster its program dials, each with the variable that sets it and the default it dials (outbound-dials.ts). */
  dials?: OutboundDial[];
  /** Where it serves its pages: a fixed path, or the variable that sets its URL base, and what it answers outside it. */
  urlBase?: UrlBase;
  /** The SQLite databases its app writes: files under its data folder, and what moves the folder. */
  databases?: Databases;
  /** Every variable its program reads: one a container sets one slip from one of them, and none itself, is read by nothing. */
  variables?: string[];
  /** Its publisher's release tags, as a pattern (its release workflow's scheme): a version tag outside it does not exist to pull. */
  tagPattern?: string;
  /** The name it is published under now: the registry keeps no new release under this one. */
  movedTo?: string;
  /** The image it works with only at one and the same release (a node and its server): every container of it runs this tag. */
  releasedWith?: string;
  /** The variable the app reads its own API key from: every client of it must hold the same key. */
  apiKey?: string;
  /**
   * The image is a client of other apps: a variable named like `url` (their address) goes with the variable named like `key`
   * (the API key it sends there), `*` the same text in both; or the address is a `setting` (dotted path) of its settings file.
   */
  keyFor?: ({ url: string; key: string } | { setting: string; key: string })[];
  /** The upstream Falco rules its normal work trips, with the process (proc.name) and executable (proc.exepath) that trip each. */
  trips?: FalcoTrip[];
  /**
   * Where an operator reads this image from when it starts its containers at run time, in pods no file here declares: a
   * resource (kind and name, rendered or in git) and the dotted path of the image in it, in whose namespace they run.
   */
  startedFrom?: { kind: string; name: string; path: string };
  /** The programs it runs that call the API server, each with the requests it sends (api-requests.ts). */
  apiRequests?: ApiRequests[];
  /**
   * true: its program calls the API server (a controller watching its resources), where no trip says so: upstream
   * Falco trusts the image (k8s_containers) or its namespace (kube-system), so it trips nothing to list. false: its
   * program never does (its source holds no client of it), whatever role a chart grants its account.
   */
  callsApiServer?: boolean;
  /**
   * Its program calls the API server only with one of these settings of its environment (falcosidekick's outputs that reach
   * functions through it, or write PolicyReports): each maps variables to the values that turn the call on, as written
   * (ParseBool's six spellings of true are six), `*` any but an empty one; said of the image's own start (no command or args).
   */
  apiServerWhen?: Record<string, string[]>[];
  /** Where in the image's build that is read. */
  source: string;
}

export interface FalcoTrip {
  rule: string;
  process: string;
  exe: string;
  /** It trips the rule only in releases before this one (x.y.z). */
  before?: string;
}

/**
 * Whether a fact bounded by `before` (the facts' x.y.z: it holds up to that release only) holds for this image
 * reference: always, with no bound; otherwise in an earlier release, and not known when the tag names no release.
 */
export function holdsBefore(image: string, before: string | undefined): boolean | undefined {
  if (before === undefined) return true;
  const release = imageRelease(image);
  return release === undefined ? undefined : compareReleases(release, before) < 0;
}

/** Whether a container of this image reference trips the rule (its release is before the trip's `before`, if any). */
export const tripsAt = (trip: FalcoTrip, image: string): boolean | undefined => holdsBefore(image, trip.before);

/** A setting the image cannot do without: each of `needs` is set, or read from a file under one of `orFilesUnder`. */
export interface EnvNeed {
  /** The values of other settings that make the need; without it (and `whenNot`), the need is always there. */
  when?: Record<string, string[]>;
  /** The values of other settings that unmake it (any other value makes it). */
  whenNot?: Record<string, string[]>;
  /** The value a `when` or `whenNot` setting takes where unset or empty (the image's ENV, else the program's default). */
  defaults?: Record<string, string>;
  needs: string[];
  /** Older names the image also reads a needed setting from. */
  aliases?: Record<string, string[]>;
  orFilesUnder?: string[];
}

/** An image reference as the registry resolves it: Docker Hub's implicit host and library/ namespace dropped. */
export const imageKey = (image: string): string =>
  imageParts(image)
    .name.replace(/^(docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, '')
    .replace(/^library\//, '');

/** A release as semver writes one, x.y.z with no leading zero (semver refuses 2.02.0). */
const RELEASE = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
/**
 * A facts variable name as a pattern: `UN_SONARR_*_URL` matches UN_SONARR_0_URL, its one group the text `*` stands
 * for; a name without `*` matches itself.
 */
export const envNamePattern = (name: string): RegExp => {
  const [head, tail] = name.split('*') as [string, string | undefined];
  return new RegExp(tail === undefined ? `^${head}$` : `^${head}([A-Za-z0-9_]+)${tail}$`);
};

/** A variable name with one `*` in it (`optional`: or none). */
const isEnvName = (name: unknown, star: 'one' | 'optional'): boolean =>
  typeof name === 'string' && /^[A-Za-z0-9_]*\*?[A-Za-z0-9_]*$/.test(name) && name.replace('*', '') !== '' && (star === 'optional' || name.includes('*'));
const isPlainName = (name: unknown): boolean => isEnvName(name, 'optional') && !String(name).includes('*');
const isList = (value: unknown, item: (v: unknown) => boolean): boolean => Array.isArray(value) && value.length > 0 && value.every(item);
const isStringList = (list: unknown): boolean => isList(list, (v) => typeof v === 'string' && v !== '');
const isImageName = (v: unknown): boolean => typeof v === 'string' && v !== '' && imageParts(v).tag === undefined;
const fieldsOf = (value: unknown): Record<string, unknown> => (value ?? {}) as Record<string, unknown>;
const isMapOf = (value: unknown, item: (v: unknown) => boolean): boolean =>
  typeof value === 'object' && !Array.isArray(value) && isList(Object.values(fieldsOf(value)), item);

/**
 * Every optional field but the root start, with what a value must be and what the facts say when it is not: one
 * table, so a field is read and refused in one place (and `keys`: those of a field of maps, or of a list of them).
 */
const OPTIONAL_FIELDS: Record<string, { valid: (v: unknown) => boolean; says: string; keys?: readonly string[] }> = {
  tempDir: {
    valid: (v) => typeof v === 'boolean' || v === 'python' || v === 'node',
    says: 'tempDir is python or node (how the runtime finds its temporary directory), true (python) or false',
  },
  s6Overlay: { valid: (v) => typeof v === 'boolean', says: 's6Overlay is true or false' },
  writesTo: { valid: isPathList, says: 'writesTo lists the absolute directories the app writes that need a writable volume' },
  nodeFolders: { valid: isPathList, says: "nodeFolders lists the node's absolute folders the program reads or writes at the same path" },
  ...HTTP_PATH_FIELDS,
  entrypoint: { valid: (v) => isList(v, (e) => typeof e === 'string'), says: "entrypoint is the image's ENTRYPOINT, a list of strings" },
  commands: {
    valid: (v) => isList(v, (e) => typeof e === 'string' && /^[^/\s]+$/.test(e)),
    says: 'commands lists programs on the image PATH, each a name without a slash',
  },
  options: {
    keys: PROGRAM_OPTIONS_KEYS,
    valid: (v) => isList(v, isProgramOptions),
    says: 'options lists {program, parser: argparse, flags, withValue} (the options of each), {program, parser: kingpin, flags, withValue, repeatable?, values?, short?, exits?} (its flags, those kept each time given, the values a flag takes, its short flags, those that make it exit), {program, parser: goflag, flags, withValue, values?, conflicts?} (the Go flag package: each flag with one dash, the values a flag takes: a pattern, the integer type it fits, choices, a least number; and flags refused together), {program, parser: pflag, subcommand? (with traverse?) or commands?, positional?, flags, withValue, shorthands?, values?, needs?, exclusive?, overriddenBy?} (pflag under cobra: its command, its words, and where the root traverses its children the persistent flags of the root and the other commands of each along the way, or the other commands of the root, the positional arguments it takes or none, one-letter shorthands, what a value must be as it is read and as the program starts, a flag that needs another given a value, lists refused together, a file whose settings override the flags) or {program, parser: cxxopts, flags, withValue, implicit?, lists?, short?, values?, exits?, conflicts?} (a C++ program: its bool options, those with a value, those with a value of their own, its lists, short names, the values a type reads, in its order what ends it and what it checks) or {program, parser: node, scripts} (the scripts the build holds, from its working directory)',
  },
  envTogether: {
    keys: ['set', 'needs'],
    valid: (v) => isList(v, (pair) => isEnvName(fieldsOf(pair).set, 'one') && isEnvName(fieldsOf(pair).needs, 'one')),
    says: 'envTogether lists {set, needs}: two variable names, each with one * standing for the same text',
  },
  envNeeds: {
    keys: ['when', 'whenNot', 'defaults', 'needs', 'aliases', 'orFilesUnder'],
    valid: (v) =>
      isList(v, (need) => {
        const { when, whenNot, defaults, needs, aliases, orFilesUnder } = fieldsOf(need);
        const optional = (value: unknown, valid: (v: unknown) => boolean) => value === undefined || valid(value);
        const maps = [when, whenNot, aliases].every((map) => optional(map, (m) => isMapOf(m, isStringList)));
        return maps && optional(defaults, (d) => isMapOf(d, (t) => isStringList([t]))) && isStringList(needs) && optional(orFilesUnder, isPathList);
      }),
    says: 'envNeeds lists {when?, whenNot?, defaults?, needs, aliases?, orFilesUnder?}: when and whenNot (if the need is not always there) map variables to the values that make it and unmake it, defaults each such variable to its value where unset, needs names variables, aliases maps one to the older names also read, orFilesUnder lists absolute paths',
  },
  tagPattern: {
    valid: (v) => typeof v === 'string' && isPattern(v),
    says: 'tagPattern is a regular expression, anchored with ^ and $, that every tag the image is published under matches',
  },
  movedTo: { valid: isImageName, says: 'movedTo names the image, without a tag, that the publisher pushes now' },
  releasedWith: { valid: isImageName, says: 'releasedWith names the image, without a tag, that this one works with only at the same release' },
  apiKey: { valid: isPlainName, says: 'apiKey names the variable the app reads its own API key from' },
  keyFor: {
    keys: ['url', 'setting', 'key'],
    valid: (v) =>
      isList(v, (pair) => {
        const { url, setting, key } = fieldsOf(pair);
        if (setting !== undefined)
          return url === undefined && typeof setting === 'string' && /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(setting) && isPlainName(key);
        return isEnvName(url, 'optional') && isEnvName(key, 'optional') && String(url).includes('*') === String(key).includes('*');
      }),
    says: 'keyFor lists {url, key}: the variable naming an app it calls and the one holding the API key it sends there, both with one * standing for the same text, or neither; or {setting, key}: the dotted path of its settings file that names the app, and the variable holding the key',
  },
  trips: {
    keys: ['rule', 'process', 'exe', 'before'],
    valid: (v) =>
      isList(v, (t) => {
        const { rule, process, exe, before } = fieldsOf(t);
        return (
          isStringList([rule, process]) &&
          String(process).length <= 15 &&
          isPathList([exe]) &&
          (before === undefined || (typeof before === 'string' && RELEASE.test(before)))
        );
      }),
    says: "trips lists {rule, process, exe, before?}: an upstream Falco rule its normal work trips, the process name as Falco's proc.name sees it (the kernel's comm: 15 characters at most), the absolute path of the executable that trips it, and the release (x.y.z) from which it no longer does, if one",
  },
  startedFrom: {
    keys: ['kind', 'name', 'path'],
    valid: (v) => ['kind', 'name', 'path'].every((k) => typeof fieldsOf(v)[k] === 'string' && fieldsOf(v)[k] !== ''),
    says: 'startedFrom is {kind, name, path}: the resource an operator reads the image from when it starts its containers at run time, and the dotted path of the image in it',
  },
  envSince: {
    keys: ['name', 'since'],
    valid: (v) =>
      isList(v, (e) => isEnvName(fieldsOf(e).name, 'optional') && typeof fieldsOf(e).since === 'string' && RELEASE.test(fieldsOf(e).since as string)),
    says: 'envSince lists {name, since}: a variable name (one * at most) and the release (x.y.z) that first reads it',
  },
  envFormat: {
    keys: ['name', 'pattern', 'empty'],
    valid: (v) =>
      isList(v, (e) => {
        const { name, pattern, empty } = fieldsOf(e);
        return (
          isEnvName(name, 'optional') &&
          typeof pattern === 'string' &&
          isPattern(pattern) &&
          (empty === undefined || (empty === true && !String(name).includes('*')))
        );
      }),
    says: 'envFormat lists {name, pattern, empty?}: a variable name (one * at most) and the pattern (^...$) its value must match, and empty: true where a value set empty is read as written (a name without *)',
  },
  apiRequests: API_REQUESTS_FIELD,
  listens: LISTENS_FIELD,
  selfUrl: SELF_URL_FIELD,
  dials: DIALS_FIELD,
  urlBase: URL_BASE_FIELD,
  databases: DATABASES_FIELD,
  callsApiServer: { valid: (v) => typeof v === 'boolean', says: 'callsApiServer is true or false' },
  variables: { valid: (v) => isList(v, isPlainName), says: 'variables lists the names of every variable its program reads' },
  apiServerWhen: {
    valid: (v) =>
      isList(v, (settings) => {
        const entries = Object.entries(fieldsOf(settings));
        return (
          !Array.isArray(settings) &&
          entries.length > 0 &&
          entries.every(([name, values]) => isEnvName(name, 'optional') && !name.includes('*') && isStringList(values))
        );
      }),
    says: 'apiServerWhen lists the settings that make its program call the API server: each maps variable names to the values that turn the call on (* any but an empty one)',
  },
};

/** Every field an entry may have: the image, its root start, its source, and the optional ones. */
const ENTRY_FIELDS = ['image', 'startsAs', 'capabilities', 'before', 'source', ...Object.keys(OPTIONAL_FIELDS)];

/**
 * The keys of an entry no entry has, each with its path under the entry and the keys it could have meant: a misspelt
 * one is read by nothing, and the need it states dropped.
 */
function unknownKeys(raw: unknown): { path: (string | number)[]; known: readonly string[] }[] {
  const fields = fieldsOf(raw);
  const out: { path: (string | number)[]; known: readonly string[] }[] = Object.keys(fields)
    .filter((k) => !ENTRY_FIELDS.includes(k))
    .map((k) => ({ path: [k] as (string | number)[], known: ENTRY_FIELDS }));
  for (const [field, { keys: known }] of Object.entries(OPTIONAL_FIELDS)) {
    if (!known) continue;
    const value = fields[field];
    const items: [(string | number)[], unknown][] = Array.isArray(value) ? value.map((v, j) => [[field, j], v]) : [[[field], value]];
    for (const [at, item] of items)
      if (item !== null && typeof item === 'object' && !Array.isArray(item))
        for (const key of Object.keys(item).filter((k) => !known.includes(k))) out.push({ path: [...at, key], known });
  }
  return out;
}

/** One entry of a facts file read, or the one line that says why it cannot be. */
function readEntry(raw: unknown, entry: string, file: string): Omit<ImageNeeds, 'entry'> | string {
  const fields = fieldsOf(raw);
  const { image, startsAs, capabilities, before, source } = fields;
  if (typeof image !== 'string' || typeof source !== 'string' || source.trim() === '')
    return `${entry} needs an image and the source in its build that says what it needs`;
  if (startsAs !== undefined && startsAs !== 'root') return `${entry}: startsAs can only be root`;
  // A capability as the pod's securityContext names it (CHOWN, NET_ADMIN): an empty or lower-case one matches none.
  if (startsAs === 'root' && !isList(capabilities, (c) => typeof c === 'string' && /^[A-Z][A-Z0-9_]*$/.test(c)))
    return `${entry}: an image that starts as root lists the capabilities its init uses, each as the pod names it (CHOWN, NET_ADMIN)`;
  if (before !== undefined && (typeof before !== 'string' || !RELEASE.test(before))) return `${entry}: before must be a release (x.y.z)`;
  const optional: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(OPTIONAL_FIELDS)) {
    const value = fields[field];
    if (value === undefined) continue;
    if (!rule.valid(value)) return `${entry}: ${rule.says}`;
    // A flag that is false says nothing (it is left out, as if unset), but callsApiServer's: that it never calls.
    if (value !== false || field === 'callsApiServer') optional[field] = value;
  }
  return {
    image: imageKey(image),
    file,
    source,
    ...(startsAs === 'root' ? { root: { capabilities: capabilities as string[], ...(typeof before === 'string' ? { before } : {}) } } : {}),
    ...(optional as Partial<ImageNeeds>),
  };
}

/** An entry that cannot be read: its file, why, and where in it (the key of a field no entry has, else the entry). */
export type FactsProblem = { file: string; message: string; path?: (string | number)[] };

/** Every image fact of the repository, by image, and every entry that cannot be read, with its file. */
export function imageNeeds(
  repo: Pick<Repo, 'dataFiles'>,
  isFactsFile: (file: string) => boolean,
): { needs: Map<string, ImageNeeds>; problems: FactsProblem[] } {
  const needs = new Map<string, ImageNeeds>();
  const problems: FactsProblem[] = [];
  for (const data of repo.dataFiles.values()) {
    if (!isFactsFile(data.file)) continue;
    const list = (data.data as { images?: unknown } | null)?.images;
    if (!Array.isArray(list)) {
      problems.push({
        file: data.file,
        message: `${data.file} must hold images: a list of {image, source, startsAs?, capabilities?, before?, ${Object.keys(OPTIONAL_FIELDS)
          .map((f) => `${f}?`)
          .join(', ')}}`,
      });
      continue;
    }
    list.forEach((raw: unknown, i) => {
      const read = readEntry(raw, `${data.file} entry ${i + 1}`, data.file);
      // A field no entry has is said at its key, and the entry read without it; any other problem at its entry.
      for (const { path, known } of unknownKeys(raw)) {
        const key = String(path.at(-1));
        problems.push({
          file: data.file,
          message: `${data.file} entry ${i + 1}: ${path.join('.')} is no field of the image facts${didYouMean(key, known)}, so nothing reads it`,
          path: ['images', i, ...path],
        });
      }
      if (typeof read === 'string') return problems.push({ file: data.file, message: read, path: ['images', i] });
      const first = needs.get(read.image);
      if (first)
        return problems.push({
          file: data.file,
          message: `${data.file} entry ${i + 1} names ${read.image} again (first in ${first.file})`,
          path: ['images', i, 'image'],
        });
      needs.set(read.image, { ...read, entry: i });
    });
  }
  return { needs, problems };
}

/** The repository's image facts, read once per repository view: the checks that hold containers to them share it. */
export const repoImageNeeds = perRepo((repo: Repo) => imageNeeds(repo, (file) => argoGlobMatch(IMAGE_FACTS_GLOB, file)));
