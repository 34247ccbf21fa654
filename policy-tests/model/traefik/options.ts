/**
 * Traefik's static configuration as its command line gives it. Traefik loads its flags with paerser's flag decoder
 * (pkg/cli/loader_flag.go: `flag.Decode` into its static Configuration); a flag whose name no field of that struct
 * has (matched case-insensitively, `findTypedField`) is "field not found", the loader's error ends `cli.Execute`, and
 * Traefik exits at start. The options are the reference the repository keeps (`apps/platform/facts/traefik-options.yaml`,
 * from Traefik's generated table of install configuration options at a tag): each a dotted path, `_name_` a map's key
 * and `[0]` a list's index. Values are not judged.
 *
 * The traefik chart (41.x) writes most flags from named values, and a few blocks of its values wholesale, each key a
 * flag (its `yaml2CommandLineArgs` helper), and `additionalArguments` as they are: those are where a misspelt key of
 * the values becomes a flag Traefik refuses.
 */
import { dig, isMap } from '../core/dig.ts';
import { nearestName } from '../core/did-you-mean.ts';
import type { Path } from '../core/positions.ts';
import { referenceFile } from '../helm/reference-file.ts';

export const TRAEFIK_CHART = 'traefik';
export const TRAEFIK_OPTIONS = 'apps/platform/facts/traefik-options.yaml';

/** A map's key in the reference's paths, and a list's index (paerser's placeholders). */
const MAP_KEY = '_name_';
const LIST_INDEX = /^\[\d+\]$/;

export interface TraefikOptions {
  version: string;
  /** Every option's path, lowered, split at its dots. */
  options: readonly (readonly string[])[];
  /** The options that end at a map no longer option reaches into (a plugin's settings): anything under them is taken. */
  open: ReadonlySet<readonly string[]>;
}

/** A reference document's options, or why it holds none. */
export function traefikOptions(doc: unknown): TraefikOptions | { problem: string } {
  const [version, options] = [dig(doc, ['version']), dig(doc, ['options'])];
  if (typeof version !== 'string' || !Array.isArray(options) || options.length === 0 || options.some((o) => typeof o !== 'string'))
    return { problem: 'it needs version and options, a list of paths (npm run traefik:reference writes them)' };
  const paths = (options as string[]).map(optionSegments);
  const keys = paths.map((p) => p.join('.'));
  const open = new Set(paths.filter((p, n) => p.at(-1) === MAP_KEY && !keys.some((k) => k.startsWith(`${keys[n]}.`))));
  return { version, options: paths, open };
}

export const traefikReference = referenceFile(TRAEFIK_OPTIONS, traefikOptions);

/** An option's or a flag's path as paerser compares it: lowered, a list's index its own segment. */
const optionSegments = (path: string): string[] =>
  path
    .toLowerCase()
    .replace(/\[(\d+)\]/g, '.[$1]')
    .split('.');

const segmentMatches = (option: string, flag: string): boolean =>
  option === flag || option === MAP_KEY || (LIST_INDEX.test(option) && /^(\[\d+\]|\d+)$/.test(flag));

/**
 * Whether a flag names a field of Traefik's configuration: an option, a struct on the way to one (`--tracing.otlp`),
 * or a key under a map no longer option reaches into (`providers.plugin._name_` holds any settings of its plugin).
 */
export function knownFlag(flag: string, ref: TraefikOptions): boolean {
  const segments = optionSegments(flag);
  return ref.options.some(
    (option) => (segments.length <= option.length || ref.open.has(option)) && segments.every((s, n) => n >= option.length || segmentMatches(option[n]!, s)),
  );
}

/**
 * The option a refused flag likely meant: one whose path differs from the flag's in one segment only, that segment
 * one slip away (`log.levle` for `log.level`); written as the flag writes the rest (paerser ignores case).
 */
export function meantOption(flag: string, ref: TraefikOptions): string | undefined {
  const segments = optionSegments(flag);
  const written = flag.replace(/\[(\d+)\]/g, '.[$1]').split('.');
  const near: { n: number; option: readonly string[] }[] = [];
  for (const option of ref.options) {
    if (option.length !== segments.length) continue;
    const differ = option.flatMap((o, n) => (segmentMatches(o, segments[n]!) ? [] : [n]));
    if (differ.length === 1) near.push({ n: differ[0]!, option });
  }
  for (const n of new Set(near.map((x) => x.n))) {
    const at = near.filter((x) => x.n === n);
    const meant = nearestName(
      segments[n]!,
      at.map((x) => x.option[n]!),
    );
    const option = at.find((x) => x.option[n] === meant)?.option;
    if (option)
      return option
        .map((o, i) => (i === n ? o : written[i]!))
        .join('.')
        .replace(/\.\[/g, '[');
  }
  return undefined;
}

/** A command-line argument's flag name and value as paerser's parser splits it; undefined for no `-`/`--` flag. */
export function flagOf(argument: string): { name: string; value?: string } | undefined {
  const m = /^--?([^-=][^=]*)(?:=(.*))?$/s.exec(argument);
  return m ? { name: m[1]!, ...(m[2] === undefined ? {} : { value: m[2] }) } : undefined;
}

/**
 * The value blocks the chart writes as flags key by key (`yaml2CommandLineArgs`, `enabled` left out where the
 * template omits it): the values' place and the flags' path it starts. An OTLP exporter's blocks are written only
 * while it is enabled.
 */
export const TRAEFIK_FLAG_BLOCKS: readonly { values: Path; flag: string; omit?: string[] }[] = ['tracing', 'metrics', 'log', 'accesslog'].flatMap((at) =>
  ['grpc', 'http'].map((transport) => ({ values: [at, 'otlp', transport], flag: `${at}.otlp.${transport}`, omit: ['enabled'] })),
);

/** Each flag one value block writes, with the values' path of its key (maps walked; the chart joins lists). */
export function blockFlags(values: unknown, block: (typeof TRAEFIK_FLAG_BLOCKS)[number]): { flag: string; path: Path }[] {
  const found: { flag: string; path: Path }[] = [];
  const walk = (value: unknown, flag: string, path: Path) => {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (path.length === block.values.length && block.omit?.includes(key)) continue;
      if (isMap(item)) walk(item, `${flag}.${key}`, [...path, key]);
      else if (item !== null && item !== '' && !(Array.isArray(item) && item.length === 0)) found.push({ flag: `${flag}.${key}`, path: [...path, key] });
    }
  };
  const value = dig(values, block.values);
  if (isMap(value)) walk(value, block.flag, block.values);
  return found;
}
