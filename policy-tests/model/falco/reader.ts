/**
 * What Falco's rules reader refuses in an item before any condition is compiled (userspace/engine/rule_loader_reader.cpp
 * and falco_common.cpp, Falco 0.44): each refusal is an error of the whole rules file, and Falco does not start.
 * - A rule that defines itself (no override, no `append`) without each of condition, output, desc and priority as a
 *   non-empty scalar ("Item has no mapping for key 'output'"); one that sets none of them must set `enabled`.
 * - A priority that is none of Falco's names, case aside (Info for Informational): "Invalid priority".
 * - A boolean field yaml-cpp cannot decode: it takes true/false, yes/no, on/off and y/n, each all lower case, all
 *   upper case or with a capital first.
 * - An override whose operation is neither append nor replace, or of a key that operation cannot take; a key overridden
 *   that the item does not set, or one the item sets (of those an override may take) that its override does not name.
 * - A macro without a condition, a list without items; a rule's tags or a list's items that are not a sequence of
 *   scalars (decode_seq).
 * - An append (`append: true`, an override's append) to a macro, list or rule that no earlier item of the upstream
 *   rules or of the file defines, or a rule's override replace of one (rule_loader_collector.cpp).
 * - A `required_engine_version` that is neither a count (the minor of 0.x.0) nor "x.y.z" (sscanf's reading), or one the
 *   engine is not compatible with: another major, or a later version (rule_loader_collector.cpp, sinsp_version).
 * Then, where its conditions are compiled (rule_loader_compiler.cpp, resolve_macros), a name used as a macro that no
 * macro defines ("Undefined macro 'x' used in filter"): a rule sees every macro, a macro only those defined before it.
 */
import type { Path } from '../core/positions.ts';
import { scalarText } from '../core/text.ts';
import { walk, type Expr } from './expr.ts';
import type { TuningItem } from './tuning.ts';
import { compatibleWith, sinspVersion } from './versions.ts';

export interface ReaderProblem {
  /** Where in the item, from its own fields. */
  path: Path;
  message: string;
}

const PRIORITIES = ['emergency', 'alert', 'critical', 'error', 'warning', 'notice', 'informational', 'info', 'debug'];
const BOOLEAN_WORDS = ['y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off'];
const RULE_BOOLEANS = ['enabled', 'capture', 'warn_evttypes', 'skip-if-unknown-filter'];
const RULE_REQUIRED = ['condition', 'output', 'desc', 'priority'];

/** What an override may take, for each kind of item: append, and replace. */
const OVERRIDABLE: Record<'rule' | 'macro' | 'list', { append: readonly string[]; replace: readonly string[] }> = {
  rule: {
    append: ['condition', 'output', 'desc', 'tags', 'exceptions'],
    replace: [
      'condition',
      'output',
      'desc',
      'priority',
      'capture',
      'capture_duration',
      'tags',
      'exceptions',
      'enabled',
      'warn_evttypes',
      'skip-if-unknown-filter',
    ],
  },
  macro: { append: ['condition'], replace: ['condition'] },
  list: { append: ['items'], replace: ['items'] },
};

const isScalar = (v: unknown) => v === null || typeof v !== 'object';

/** Whether yaml-cpp decodes the value as a bool (YAML::convert<bool>): a YAML boolean, or one of its words in one of its cases. */
export function yamlCppBool(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value !== 'string') return false;
  const lower = value.toLowerCase();
  const cased = value === lower || value === value.toUpperCase() || value === lower[0]?.toUpperCase() + lower.slice(1);
  return cased && BOOLEAN_WORDS.includes(lower);
}

/** Whether yaml-cpp decodes the value as true. */
export const yamlCppTrue = (value: unknown): boolean => value === true || (typeof value === 'string' && yamlCppBool(value) && /^(y|yes|true|on)$/i.test(value));

/** What Falco's decode_val says of a required scalar, or undefined where it reads it. */
export function requiredScalar(item: Record<string, unknown>, key: string): string | undefined {
  if (!(key in item)) return `Item has no mapping for key '${key}'`;
  const value = item[key];
  if (value === null) return `Mapping for key '${key}' is empty`;
  if (!isScalar(value)) return `the value of '${key}' is not a scalar value`;
  if (value === '') return `the value of '${key}' must be non-empty`;
  return undefined;
}

/** decode_seq's refusal of each item of a sequence that is no scalar (a null, a list, a mapping). */
const scalarItems = (values: readonly unknown[], key: string): ReaderProblem[] =>
  values.flatMap((v, i) => (v !== null && typeof v !== 'object' ? [] : [{ path: [key, i], message: `'${key}': sequence value is not scalar` }]));

/** The refusals of a priority's and the booleans' values where the item sets them (each of `keys` it sets). */
function valueProblems(item: Record<string, unknown>, keys: readonly string[]): ReaderProblem[] {
  const problems: ReaderProblem[] = [];
  for (const key of keys.filter((k) => k in item)) {
    const value = item[key];
    // decode_tags: a sequence of scalars (a null is none, to yaml-cpp).
    if (key === 'tags' && !Array.isArray(value)) problems.push({ path: [key], message: "'tags': Value is not a sequence" });
    else if (key === 'tags') problems.push(...scalarItems(value as unknown[], key));
    if (key === 'priority' && isScalar(value) && value !== null && value !== '' && !PRIORITIES.includes(scalarText(value).toLowerCase()))
      problems.push({
        path: [key],
        message: `Invalid priority ${JSON.stringify(value)}: Falco's are Emergency, Alert, Critical, Error, Warning, Notice, Informational (or Info) and Debug`,
      });
    if (key === 'capture_duration' && !(typeof value === 'number' ? Number.isSafeInteger(value) && value >= 0 : /^\+?\d+$/.test(scalarText(value))))
      problems.push({ path: [key], message: `'capture_duration' is ${JSON.stringify(value)}, which yaml-cpp cannot decode as a count of milliseconds` });
    if (RULE_BOOLEANS.includes(key) && !yamlCppBool(value))
      problems.push({ path: [key], message: `'${key}' is ${JSON.stringify(value)}, which yaml-cpp cannot decode as a boolean (true or false)` });
  }
  return problems;
}

/** The keys an item's override names, each with the operation, where the override is a mapping. */
function overridesOf(item: TuningItem): { key: string; operation: unknown }[] {
  return item.override ? Object.entries(item.override).map(([key, operation]) => ({ key, operation })) : [];
}

/** What the reader refuses of an item's override: an operation it does not know, or one its key cannot take. */
function overrideProblems(item: TuningItem, kind: 'rule' | 'macro' | 'list'): ReaderProblem[] {
  const can = OVERRIDABLE[kind];
  return overridesOf(item).flatMap(({ key, operation }): ReaderProblem[] => {
    const path = ['override', key];
    if (operation === 'append') return can.append.includes(key) ? [] : [{ path, message: `Key '${key}' cannot be appended to, use 'replace' instead` }];
    if (operation === 'replace') return can.replace.includes(key) ? [] : [{ path, message: `Key '${key}' cannot be replaced` }];
    const allowed = [...(can.append.includes(key) ? ['append'] : []), ...(can.replace.includes(key) ? ['replace'] : [])];
    return [{ path, message: `Invalid override operation for key '${key}': ${JSON.stringify(operation)}. Allowed values are: ${allowed.join(' ') || 'none'}` }];
  });
}

/** What the reader refuses of a rule: its override's keys against what it sets, else a definition's required fields. */
function ruleProblems(item: TuningItem): ReaderProblem[] {
  const raw = item.raw;
  const overrides = overridesOf(item);
  const problems = overrideProblems(item, 'rule');
  if ('append' in raw && !yamlCppBool(raw.append))
    problems.push({ path: ['append'], message: `'append' is ${JSON.stringify(raw.append)}, which yaml-cpp cannot decode as a boolean` });
  if (overrides.length > 0) {
    const named = new Set(overrides.map((o) => o.key));
    for (const { key } of overrides)
      if (!(key in raw)) problems.push({ path: ['override', key], message: `An override for '${key}' was specified but '${key}' is not defined` });
    const settable = new Set([...OVERRIDABLE.rule.append, ...OVERRIDABLE.rule.replace]);
    for (const key of Object.keys(raw).filter((k) => settable.has(k) && !named.has(k)))
      problems.push({ path: [key], message: `Unexpected key '${key}': no corresponding entry under 'override' is defined` });
    if (yamlCppTrue(raw.append)) problems.push({ path: ['append'], message: 'a rule with an override cannot set append too' });
    return [
      ...problems,
      ...valueProblems(
        raw,
        overrides.filter((o) => o.operation === 'replace' || o.key === 'tags').map((o) => o.key),
      ),
    ];
  }
  if (yamlCppTrue(raw.append)) return problems;
  if (!RULE_REQUIRED.some((k) => k in raw)) {
    const missing = requiredScalar(raw, 'enabled');
    return [
      ...problems,
      ...(missing
        ? [{ path: [], message: `${missing}: a rule that sets none of condition, output, desc and priority sets enabled` }]
        : valueProblems(raw, ['enabled'])),
    ];
  }
  for (const key of RULE_REQUIRED) {
    const missing = requiredScalar(raw, key);
    if (missing)
      problems.push({ path: key in raw ? [key] : [], message: `${missing}: a rule that defines itself sets each of condition, output, desc and priority` });
  }
  return [...problems, ...valueProblems(raw, ['priority', 'capture_duration', 'tags', ...RULE_BOOLEANS])];
}

/** What an item asks of an earlier definition of its name: to append to it, to replace a rule's fields, or nothing. */
export function updates(item: TuningItem): 'append' | 'replace' | undefined {
  const operations = overridesOf(item).map((o) => o.operation);
  if (yamlCppTrue(item.raw.append) || operations.includes('append')) return 'append';
  return item.type === 'rule' && operations.includes('replace') ? 'replace' : undefined;
}

const NO_PREVIOUS = {
  macro: "Macro uses 'append' or 'override.condition: append' but no macro by that name already exists",
  list: "List uses 'append' or 'override.items: append' but no list by that name already exists",
  rule: "Rule uses 'append' or 'override.<key>: append' but no rule by that name already exists",
} as const;

/**
 * Each item of a rules file, loaded after the upstream one, that appends to (or replaces a rule's fields of) a name
 * no earlier item defines, with Falco's message (rule_loader_collector.cpp append, selective_replace).
 */
export function orphanUpdates(
  items: readonly TuningItem[],
  upstream: { rules: ReadonlySet<string>; macros: ReadonlySet<string>; lists: ReadonlySet<string> },
): { item: TuningItem; message: string }[] {
  const defined = { rule: new Set(upstream.rules), macro: new Set(upstream.macros), list: new Set(upstream.lists) };
  const found: { item: TuningItem; message: string }[] = [];
  for (const item of items) {
    if (item.type === 'other') continue;
    const update = updates(item);
    if (update === undefined && (item.type !== 'rule' || RULE_REQUIRED.some((k) => k in item.raw))) defined[item.type].add(item.name);
    else if (update !== undefined && !defined[item.type].has(item.name))
      found.push({
        item,
        message: update === 'replace' ? "An 'override.<key>: replace' to a rule was requested but no rule by that name already exists" : NO_PREVIOUS[item.type],
      });
  }
  return found;
}

/** The rules engine's version in the deployed sensor (userspace/engine/falco_engine_version.h at Falco 0.44.1). */
export const FALCO_ENGINE_VERSION = [0, 62, 0] as const;

/**
 * What Falco makes of a required_engine_version: yaml-cpp's unsigned count first (a base of 8 or 16 by its prefix, as
 * a stream reads it), the minor of 0.<n>.0; else sscanf's "%u.%u.%u" (blanks before a number, a sign, anything after).
 */
function requiredEngine(value: unknown): number[] | undefined {
  const text = scalarText(value).trim();
  if (/^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)$/.test(text)) {
    const minor = /^0[0-7]+$/.test(text) ? parseInt(text, 8) : Number(text);
    if (minor <= 0xffffffff) return [0, minor, 0];
  }
  return isScalar(value) ? sinspVersion(scalarText(value)) : undefined;
}

/** The collector's refusal of a required engine version the sensor cannot read, or is older than. */
function engineVersionProblems(raw: Record<string, unknown>): ReaderProblem[] {
  const value = raw.required_engine_version;
  const path = ['required_engine_version'];
  const wanted = requiredEngine(value);
  if (!wanted)
    return [{ path, message: `Unable to parse engine version ${JSON.stringify(scalarText(value))} as a semver string. Expected "x.y.z" semver format.` }];
  return !compatibleWith(FALCO_ENGINE_VERSION, wanted)
    ? [{ path, message: `Rules require engine version ${wanted.join('.')}, but engine version is ${FALCO_ENGINE_VERSION.join('.')} (Falco 0.44.1)` }]
    : [];
}

/** Every refusal of Falco's reader in one item of a rules file. */
export function readerProblems(item: TuningItem): ReaderProblem[] {
  if (item.type === 'other') return 'required_engine_version' in item.raw ? engineVersionProblems(item.raw) : [];
  if (item.type === 'rule') return ruleProblems(item);
  const field = item.type === 'macro' ? 'condition' : 'items';
  const missing = requiredScalarOrList(item.raw, field, item.type);
  const items = item.type === 'list' && Array.isArray(item.raw.items) ? scalarItems(item.raw.items, 'items') : [];
  return [...overrideProblems(item, item.type), ...(missing ? [{ path: field in item.raw ? [field] : [], message: missing }] : []), ...items];
}

/** A macro's condition (a non-empty scalar) or a list's items (a sequence), as the reader asks for them. */
function requiredScalarOrList(raw: Record<string, unknown>, field: string, kind: 'macro' | 'list'): string | undefined {
  if (kind === 'macro') return requiredScalar(raw, field);
  if (!(field in raw)) return `Item has no mapping for key '${field}'`;
  return Array.isArray(raw[field]) ? undefined : `the value of '${field}' is not a sequence`;
}

/**
 * Whether a macro of the name is visible to the item at `index` of a rules file loaded after the upstream one: an
 * upstream macro; one the file defines before it, or anywhere in it for a rule (a rule sees every macro); one another
 * tuning file defines (their order is the chart's, and not judged).
 */
export function macroVisible(o: {
  upstream: ReadonlySet<string>;
  items: readonly TuningItem[];
  others: readonly TuningItem[];
  at: TuningItem;
}): (name: string) => boolean {
  const local = new Set(o.items.filter((i) => i.type === 'macro' && (o.at.type === 'rule' || i.index < o.at.index)).map((i) => i.name));
  const elsewhere = new Set(o.others.filter((i) => i.type === 'macro').map((i) => i.name));
  return (name) => o.upstream.has(name) || local.has(name) || elsewhere.has(name);
}

/** The names a condition uses as macros that none of `defined` is (`placeholder` aside: an appended fragment's left side). */
export function undefinedMacros(expr: Expr, defined: (name: string) => boolean, placeholder?: string): string[] {
  const names = [...walk(expr)].flatMap((e) => (e.kind === 'macro' && e.name !== placeholder && !defined(e.name) ? [e.name] : []));
  return [...new Set(names)];
}
