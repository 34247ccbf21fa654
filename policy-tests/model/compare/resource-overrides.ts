/**
 * argocd-cm's resource overrides as Argo CD loads them (util/settings/settings.go at v3.5.1, GetResourceOverrides),
 * and whether it can load them at all: the older `resource.customizations` map, every `resource.customizations.<type>.<group_kind>`
 * key, and `resource.compareoptions`, which it reads on the way. One it cannot read fails the whole load, and the
 * controller then compares no Application ("Basic comparison settings cannot be loaded, using unknown comparison":
 * controller/state.go, CompareAppState): every app's sync status is Unknown, and no automated sync starts anywhere.
 * Each value is read as Argo CD reads it: YAML 1.1 (sigs.k8s.io/yaml over go-yaml), decoded by Go's encoding/json
 * into the settings' types, which takes a field's name in any case, leaves unknown fields out, and refuses a value
 * of the wrong type.
 */
import { parse } from 'yaml';
import { argoGlobMatch } from '../core/glob.ts';
import { goParseBool } from '../core/text.ts';

export const RESOURCE_CUSTOMIZATIONS = 'resource.customizations';
export const RESOURCE_COMPARE_OPTIONS = 'resource.compareoptions';

type Obj = Record<string, unknown>;

/** A Go type as encoding/json decodes into it. */
type Shape = 'string' | 'bool' | { list: Shape } | { fields: Readonly<Record<string, Shape>> };

const STRINGS: Shape = { list: 'string' };
/** v1alpha1.OverrideIgnoreDiff. */
const IGNORE_DIFF: Shape = { fields: { jsonPointers: STRINGS, jqPathExpressions: STRINGS, managedFieldsManagers: STRINGS } };
/** []v1alpha1.KnownTypeField. */
const KNOWN_TYPE_FIELDS: Shape = { list: { fields: { field: 'string', type: 'string' } } };
/** v1alpha1.rawResourceOverride: one entry of the older map, its ignoreDifferences and ignoreResourceUpdates YAML texts. */
const RAW_OVERRIDE: Shape = {
  fields: {
    'health.lua': 'string',
    'health.lua.useOpenLibs': 'bool',
    actions: 'string',
    ignoreDifferences: 'string',
    ignoreResourceUpdates: 'string',
    knownTypeFields: KNOWN_TYPE_FIELDS,
  },
};
/** settings.ArgoCDDiffOptions. */
const DIFF_OPTIONS: Shape = { fields: { ignoreAggregatedRoles: 'bool', ignoreResourceStatusField: 'string', ignoreDifferencesOnResourceUpdates: 'bool' } };

const kindOf = (v: unknown) => (Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'object' ? 'a map' : `${typeof v} ${JSON.stringify(v)}`);

/** How a problem reads at a field (`jsonPointers is …`), or of the whole value (`is …`). */
const placed = (at: string, text: string) => (at ? `${at} ${text}` : text);

/** Why encoding/json cannot decode `value` into `shape` (null decodes into anything), or undefined where it can. */
function undecodable(value: unknown, shape: Shape, at: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (shape === 'string') return typeof value === 'string' ? undefined : placed(at, `is ${kindOf(value)}, not a string`);
  if (shape === 'bool') return typeof value === 'boolean' ? undefined : placed(at, `is ${kindOf(value)}, not true or false`);
  if ('list' in shape) {
    if (!Array.isArray(value)) return placed(at, `is ${kindOf(value)}, not a list`);
    for (const [i, item] of value.entries()) {
      const why = undecodable(item, shape.list, `${at}[${i}]`);
      if (why) return why;
    }
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return placed(at, `is ${kindOf(value)}, not a map`);
  for (const [key, field] of Object.entries(value)) {
    // encoding/json: the exact name first, else one that differs in case only; any other key is left out.
    const name = key in shape.fields ? key : Object.keys(shape.fields).find((f) => f.toLowerCase() === key.toLowerCase());
    const why = name === undefined ? undefined : undecodable(field, shape.fields[name]!, at ? `${at}.${key}` : key);
    if (why) return why;
  }
  return undefined;
}

/** YAML as sigs.k8s.io/yaml reads it (1.1: `on`, `off`, `yes` are booleans), or why it cannot. */
function readGoYaml(text: string): { value: unknown } | { error: string } {
  try {
    return { value: parse(text, { version: '1.1' }) as unknown };
  } catch (err) {
    return { error: `is no YAML (${(err as Error).message.split('\n')[0]})` };
  }
}

/** Why a YAML text does not decode into `shape`, or undefined where it does. */
function yamlProblem(text: string, shape: Shape): string | undefined {
  const read = readGoYaml(text);
  return 'error' in read ? read.error : undecodable(read.value, shape, '');
}

/** appendResourceOverridesFromSplitKeys: what one `resource.customizations.<type>.<group_kind>` key must be. */
function splitKeyProblem(key: string, value: string): string | undefined {
  const [, , type, ...rest] = key.split('.');
  // strings.SplitN(key, ".", 4): fewer than four parts is no override key, and is passed over.
  if (type === undefined || rest.length === 0) return undefined;
  const groupKind = rest.join('.');
  const parts = groupKind.split('_');
  if (groupKind === '' || parts.length > 2) return `names ${JSON.stringify(groupKind)}, where Argo CD reads <group>_<kind> or <kind>`;
  switch (type) {
    case 'health':
    case 'actions':
      return undefined;
    case 'useOpenLibs':
      return goParseBool(value) !== undefined ? undefined : `is ${JSON.stringify(value)}, which Go's ParseBool does not read`;
    case 'ignoreDifferences':
    case 'ignoreResourceUpdates':
      return yamlProblem(value, IGNORE_DIFF);
    case 'knownTypeFields':
      return yamlProblem(value, KNOWN_TYPE_FIELDS);
    default:
      return `resource customization type ${type} not supported`;
  }
}

/** The older map: each override's own fields, and its ignoreDifferences and ignoreResourceUpdates texts. */
function combinedProblem(text: string): string | undefined {
  const read = readGoYaml(text);
  if ('error' in read) return read.error;
  const why = undecodable(read.value, { fields: {} }, '');
  if (why) return why;
  for (const [groupKind, override] of Object.entries((read.value ?? {}) as Record<string, unknown>)) {
    const own = undecodable(override, RAW_OVERRIDE, groupKind);
    if (own) return own;
    for (const field of ['ignoreDifferences', 'ignoreResourceUpdates']) {
      const nested = (override as Record<string, unknown> | null)?.[field];
      const inner = typeof nested === 'string' ? yamlProblem(nested, IGNORE_DIFF) : undefined;
      if (inner) return `${groupKind}.${field}: ${inner}`;
    }
  }
  return undefined;
}

/** Each argocd-cm key that stops Argo CD loading its resource overrides, with why. */
export function overrideProblems(data: Readonly<Record<string, unknown>>): { key: string; problem: string }[] {
  const out: { key: string; problem: string }[] = [];
  for (const key of Object.keys(data).sort()) {
    const value = data[key];
    // A ConfigMap's data is text: anything else is the API server's refusal, said by api-validation.
    if (typeof value !== 'string') continue;
    let problem: string | undefined;
    if (key === RESOURCE_COMPARE_OPTIONS) problem = yamlProblem(value, DIFF_OPTIONS);
    else if (key === RESOURCE_CUSTOMIZATIONS) problem = value === '' ? undefined : combinedProblem(value);
    else if (key.startsWith(RESOURCE_CUSTOMIZATIONS)) problem = splitKeyProblem(key, value);
    if (problem) out.push({ key, problem });
  }
  return out;
}

/** One override, keyed `<group>/<kind>`, `<kind>` or a glob (every group and kind for `all`), as v1alpha1.ResourceOverride holds it. */
export interface ResourceOverride {
  healthLua?: string;
  useOpenLibs: boolean;
  /** v1alpha1.OverrideIgnoreDiff, as read (its fields unchecked: overrideProblems says where Argo CD refuses them). */
  ignoreDifferences?: Obj;
  /** The argocd-cm key each part came from, for a finding to point at. */
  keys: { health?: string; ignoreDifferences?: string };
}

/** An override that sets a health script, and the key it came from. */
export type HealthOverride = ResourceOverride & { healthLua: string; keys: { health: string } };

const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** A field as encoding/json finds it: the exact name, else one that differs in case only. */
function jsonField(value: unknown, name: string): unknown {
  const object = asObj(value);
  if (Object.hasOwn(object, name)) return object[name];
  const other = Object.keys(object).find((k) => k.toLowerCase() === name.toLowerCase());
  return other === undefined ? undefined : object[other];
}

/** A YAML text's value, or undefined where it is no text or cannot be read (overrideProblems says why). */
function readText(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  const read = readGoYaml(value);
  return 'value' in read ? read.value : undefined;
}

/** v1alpha1.OverrideIgnoreDiff's fields of a read value, found as encoding/json finds them. */
function ignoreDiff(read: unknown): Obj {
  const out: Obj = {};
  for (const field of ['jsonPointers', 'jqPathExpressions', 'managedFieldsManagers']) {
    const value = jsonField(read, field);
    if (value !== undefined) out[field] = value;
  }
  return out;
}

/** resource.compareoptions, as ArgoCDDiffOptions over its defaults (GetResourceCompareOptions). */
export function compareOptions(data: Readonly<Obj>): { ignoreAggregatedRoles: boolean; ignoreResourceStatusField: string } {
  const read = readText(data[RESOURCE_COMPARE_OPTIONS]);
  const aggregated = jsonField(read, 'ignoreAggregatedRoles');
  const status = jsonField(read, 'ignoreResourceStatusField');
  return {
    ignoreAggregatedRoles: aggregated === true,
    // YAML 1.1 reads `off` as false, which encoding/json will not put in a string: the load fails there
    // (overrideProblems), and what Argo CD would ignore once it is mended is none.
    ignoreResourceStatusField: typeof status === 'string' ? status : status === false ? 'false' : 'all',
  };
}

/**
 * The overrides Argo CD loads (GetResourceOverrides): the older `resource.customizations` map, then each
 * `resource.customizations.<type>.<group_kind>` key, which replaces that part of its kind's entry, then `/status`
 * ignored where resource.compareoptions puts it. What cannot be read is left out here; overrideProblems says so.
 */
export function resourceOverrides(data: Readonly<Obj>): ReadonlyMap<string, ResourceOverride> {
  // A data that is no map (written as a list or a scalar) holds no override: the schema layer refuses the ConfigMap.
  if (typeof data !== 'object' || data === null) return new Map();
  let out = loaded.get(data);
  if (!out) loaded.set(data, (out = loadOverrides(data)));
  return out;
}

/** Loaded once per argocd-cm data: a ConfigMap's data is never changed once parsed or rendered. */
const loaded = new WeakMap<Readonly<Obj>, ReadonlyMap<string, ResourceOverride>>();

function loadOverrides(data: Readonly<Obj>): Map<string, ResourceOverride> {
  const out = new Map<string, ResourceOverride>();
  const entry = (key: string) => {
    let found = out.get(key);
    if (!found) out.set(key, (found = { useOpenLibs: false, keys: {} }));
    return found;
  };
  for (const [groupKind, raw] of Object.entries(asObj(readText(data[RESOURCE_CUSTOMIZATIONS])))) {
    const override = entry(groupKind);
    const lua = jsonField(raw, 'health.lua');
    if (typeof lua === 'string' && lua) [override.healthLua, override.keys.health] = [lua, RESOURCE_CUSTOMIZATIONS];
    override.useOpenLibs = jsonField(raw, 'health.lua.useOpenLibs') === true;
    const ignore = readText(jsonField(raw, 'ignoreDifferences'));
    if (ignore !== undefined) [override.ignoreDifferences, override.keys.ignoreDifferences] = [ignoreDiff(ignore), RESOURCE_CUSTOMIZATIONS];
  }
  // Go ranges over a map in no order; no two split keys write one part of one kind, so the order changes nothing.
  for (const [key, value] of Object.entries(data)) {
    if (!key.startsWith(RESOURCE_CUSTOMIZATIONS) || typeof value !== 'string') continue;
    const [, , type, ...rest] = key.split('.');
    const parts = rest.join('.').split('_');
    if (type === undefined || rest.length === 0 || parts.length > 2 || !parts[0]) continue;
    // convertToOverrideKey: `<group>_<kind>` or `<kind>`; `all` is every kind.
    const overrideKey = parts.length === 2 ? parts.join('/') : parts[0] === 'all' ? '*/*' : parts[0];
    if (type === 'health') Object.assign(entry(overrideKey), { healthLua: value }).keys.health = key;
    else if (type === 'useOpenLibs') entry(overrideKey).useOpenLibs = goParseBool(value) === true;
    else if (type === 'ignoreDifferences') Object.assign(entry(overrideKey), { ignoreDifferences: ignoreDiff(readText(value)) }).keys.ignoreDifferences = key;
  }
  const status = compareOptions(data).ignoreResourceStatusField;
  const statusKey = status === 'crd' ? 'apiextensions.k8s.io/CustomResourceDefinition' : ['none', 'off', 'false'].includes(status) ? undefined : '*/*';
  if (statusKey) {
    // addStatusOverrideToGK: `/status` after the pointers the entry has.
    const override = entry(statusKey);
    const pointers = override.ignoreDifferences?.jsonPointers;
    override.ignoreDifferences = { ...override.ignoreDifferences, jsonPointers: [...(Array.isArray(pointers) ? pointers : []), '/status'] };
    override.keys.ignoreDifferences ??= RESOURCE_COMPARE_OPTIONS;
  }
  return out;
}

/**
 * The health script Argo CD runs for an object of this group and kind (util/lua GetHealthScript): its kind's own
 * override, else the first glob override that matches; undefined where Argo CD falls back to a script it ships, or to
 * none. Go ranges over a map in no order, so where two globs match, which one wins is not said: the first here.
 */
export function healthOverrideFor(overrides: ReadonlyMap<string, ResourceOverride>, group: string, kind: string): HealthOverride | undefined {
  const key = group ? `${group}/${kind}` : kind;
  const own = overrides.get(key);
  if (own?.healthLua) return own as HealthOverride;
  for (const [glob, override] of overrides) if (override.healthLua && argoGlobMatch(glob, key)) return override as HealthOverride;
  return undefined;
}
