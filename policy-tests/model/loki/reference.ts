/**
 * Loki's configuration structs, as its configuration reference lists them (`monitoring/loki/facts/config-reference.yaml`,
 * written by `npm run loki:reference` from the reference Loki's doc-generator writes of its structs), made into the Go
 * types yaml.v2 decodes into. Loki reads its file with `yaml.UnmarshalStrict` (pkg/util/cfg/files.go), so:
 *   - a key a struct has no field for is refused by name (a field the reference leaves out, `doc:"hidden"`, is taken
 *     and not judged);
 *   - an int takes a number (v2 truncates a float), never a string; a float a number; a bool YAML's booleans and YAML
 *     1.1's words, which v2 resolves as booleans; a string any scalar's text;
 *   - a duration is a `time.Duration` (v2 reads a string with `time.ParseDuration`, or an int as nanoseconds) or a
 *     Prometheus `model.Duration` (`1w`, `30d`); the reference calls both `duration`, so either reading is taken;
 *   - a byte size (Loki's `flagext.ByteSize`) takes c2h5oh/datasize's text, upper-cased; a schema period's `from`
 *     (`DayTime`) a `2006-01-02` date;
 *   - a list of strings a list, a map a map; a type the reference names without listing its fields is not decoded.
 */
import { dig, isMap } from '../core/dig.ts';
import { durationMs, goParseDuration } from '../core/time.ts';
import type { GoStruct, GoType } from '../yaml/go-decode.ts';

export const INLINE_KEY = '<inline>';
export const REST_KEY = '<rest>';

type CatalogFields = Readonly<Record<string, unknown>>;

export interface ReferenceCatalog {
  root: CatalogFields;
  blocks: Readonly<Record<string, CatalogFields>>;
  hidden: readonly string[];
}

/** YAML 1.1's integers (v2 resolves `0b1010`, `0o17`, `0x1F`, `1_000`, `190:20:30` as ints): text v2 reads as a number. */
const YAML11_INT = /^[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|0o?[0-7_]+|(0|[1-9][0-9_]*)(:[0-5]?[0-9])*)$/;
const YAML11_FLOAT = /^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?$|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$/;

const parsed = (type: string, parse: (text: string) => string | undefined): GoType => ({ go: 'parsed', type, parse });
const numberText = (kind: string) => (text: string) =>
  YAML11_INT.test(text) || (kind === 'float64' && YAML11_FLOAT.test(text)) || (Number.isFinite(Number(text)) && /^[-+]?[0-9.eE+-]+$/.test(text))
    ? undefined
    : `cannot unmarshal !!str \`${text.length > 10 ? `${text.slice(0, 7)}...` : text}\` into ${kind}`;

const DATASIZE_UNITS: Readonly<Record<string, bigint>> = Object.fromEntries(
  (
    [
      [['', 'b', 'byte'], 0n],
      [['k', 'kb', 'kilo', 'kilobyte', 'kilobytes'], 10n],
      [['m', 'mb', 'mega', 'megabyte', 'megabytes'], 20n],
      [['g', 'gb', 'giga', 'gigabyte', 'gigabytes'], 30n],
      [['t', 'tb', 'tera', 'terabyte', 'terabytes'], 40n],
      [['p', 'pb', 'peta', 'petabyte', 'petabytes'], 50n],
      [['e', 'eb'], 60n],
    ] as const
  ).flatMap(([names, shift]) => names.map((name) => [name, 1n << shift])),
);

/**
 * Loki's `flagext.ByteSize.Set`: c2h5oh/datasize's `UnmarshalText` of the text upper-cased (digits, then a unit of
 * bytes, 1024-based; no fraction, no sign; an empty text is 0): its error, or undefined.
 */
export function byteSizeProblem(text: string): string | undefined {
  const upper = text.toUpperCase();
  const error = (why: string) => `strconv.UnmarshalText: parsing ${JSON.stringify(upper)}: ${why}`;
  const digits = /^[0-9]*/.exec(upper)![0];
  if (digits === '' && upper !== '') return error('invalid syntax');
  const scale = DATASIZE_UNITS[upper.slice(digits.length).trim().toLowerCase()];
  if (scale === undefined) return error('invalid syntax');
  return BigInt(digits || '0') * scale >= 2n ** 64n ? error('value out of range') : undefined;
}

function dayTime(text: string): string | undefined {
  // A month past 12 makes no Date at all, and a day past the month's last rolls over: neither is the text again.
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : NaN;
  const valid = !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(text);
  return valid ? undefined : `parsing time "${text}" as "2006-01-02": cannot parse "${text}" as a date`;
}

const SCALARS: Readonly<Record<string, GoType>> = {
  string: { go: 'string' },
  boolean: { go: 'bool' },
  int: parsed('int', numberText('int')),
  float: parsed('float64', numberText('float64')),
  // v2 reads an int into a time.Duration as nanoseconds; a model.Duration's text is read by Prometheus' parser.
  duration: parsed('time.Duration', (text) =>
    /^[-+]?[0-9]+$/.test(text) || goParseDuration(text).ok || Number.isFinite(durationMs(text)) ? undefined : `time: invalid duration "${text}"`,
  ),
  bytes: parsed('flagext.ByteSize', byteSizeProblem),
  daytime: parsed('config.DayTime', dayTime),
  // flagext.Time takes a date, a date and time, or RFC 3339: not judged beyond being a scalar.
  time: parsed('flagext.Time', () => undefined),
  strings: { go: 'list', of: { go: 'string' } },
  any: { go: 'any' },
};

/**
 * Fields the reference leaves untyped (the doc generator writes a list of structs it does not describe as such), typed
 * from Loki's source at the version the reference was read for: pkg/validation/limits.go's StreamRetention.
 */
const SOURCE_TYPED: Readonly<Record<string, GoType>> = {
  'limits_config.retention_stream': {
    go: 'list',
    of: {
      go: 'struct',
      type: 'validation.StreamRetention',
      fields: {
        period: parsed('model.Duration', (text) => (Number.isFinite(durationMs(text)) ? undefined : `not a valid duration string: "${text}"`)),
        priority: SCALARS.int!,
        selector: SCALARS.string!,
      },
    },
  },
};

/** The catalog a reference file holds, or why it holds none. */
export function referenceCatalog(doc: unknown): { catalog: ReferenceCatalog; version: string; chartVersion: string } | { problem: string } {
  const version = dig(doc, ['version']);
  const chartVersion = dig(doc, ['pin', 'version']);
  const [root, blocks, hidden] = [dig(doc, ['root']), dig(doc, ['blocks']), dig(doc, ['hidden']) ?? []];
  if (typeof version !== 'string' || typeof chartVersion !== 'string' || !isMap(root) || !isMap(blocks) || !Array.isArray(hidden))
    return { problem: 'it needs version, pin.version, root, blocks and hidden (npm run loki:reference writes them)' };
  const named = hidden.filter((h): h is string => typeof h === 'string');
  return { catalog: { root, blocks: blocks as ReferenceCatalog['blocks'], hidden: named }, version, chartVersion };
}

/** The Go type of each block and type text, built once per catalog. */
export function referenceTypes(catalog: ReferenceCatalog): GoStruct {
  const blocks = new Map<string, GoStruct>();
  const typeOf = (text: unknown, where: string): GoType => {
    if (isMap(text)) return structOf(text, where);
    if (typeof text !== 'string') return SCALARS.any!;
    if (text === 'any' && SOURCE_TYPED[where]) return SOURCE_TYPED[where];
    const scalar = SCALARS[text];
    if (scalar) return scalar;
    const [, kind, rest] = /^(block|list of|map of) (.+)$/.exec(text) ?? [];
    if (kind === 'block') return blockOf(rest!);
    if (kind === 'list of') return { go: 'list', of: typeOf(rest, where) };
    if (kind === 'map of') return { go: 'map', of: typeOf(rest, where) };
    return SCALARS.any!;
  };
  const blockOf = (name: string): GoStruct => {
    let block = blocks.get(name);
    if (block) return block;
    // Registered before its fields are built: a block may hold itself (a route's routes).
    block = { go: 'struct', type: name, fields: {} };
    blocks.set(name, block);
    Object.assign(block, structOf(catalog.blocks[name] ?? {}, name));
    return block;
  };
  function structOf(fields: CatalogFields, name: string): GoStruct {
    const out: Record<string, GoType> = {};
    for (const [key, text] of Object.entries(fields)) {
      if (key === INLINE_KEY) for (const inlined of Array.isArray(text) ? text : []) Object.assign(out, blockOf(String(inlined)).fields);
      else if (key !== REST_KEY) out[key] = typeOf(text, `${name}.${key}`);
    }
    const restText = fields[REST_KEY];
    // A field the reference leaves out (doc:"hidden") is one Loki takes: not judged, wherever it is.
    for (const hidden of catalog.hidden) out[hidden] ??= SCALARS.any!;
    return { go: 'struct', type: name, fields: out, ...(restText !== undefined ? { rest: typeOf(restText, name) } : {}) };
  }
  return structOf(catalog.root, 'loki.Config');
}

/**
 * The runtime configuration file (pkg/loki/runtime_config.go `runtimeConfigValues`, decoded strictly too): per-tenant
 * limits (`overrides`, each a limits_config block), per-tenant operational settings (`configs`) and dskit's
 * `multi_kv_config`. Loki loads it at start, and a refusal stops it.
 */
export function runtimeConfigType(root: GoStruct): GoStruct {
  const limits = root.fields.limits_config ?? { go: 'any' };
  const operational = root.fields.operational_config ?? { go: 'any' };
  return {
    go: 'struct',
    type: 'loki.runtimeConfigValues',
    fields: {
      overrides: { go: 'map', of: limits },
      configs: { go: 'map', of: operational },
      multi_kv_config: { go: 'struct', type: 'kv.MultiRuntimeConfig', fields: { primary: { go: 'string' }, mirror_enabled: { go: 'bool' } } },
    },
  };
}
