/**
 * Whether Argo CD can load argocd-cm's resource overrides (util/settings/settings.go at v3.5.1,
 * GetResourceOverrides): the older `resource.customizations` map, every `resource.customizations.<type>.<group_kind>`
 * key, and `resource.compareoptions`, which it reads on the way. One it cannot read fails the whole load, and the
 * controller then compares no Application ("Basic comparison settings cannot be loaded, using unknown comparison":
 * controller/state.go, CompareAppState): every app's sync status is Unknown, and no automated sync starts anywhere.
 * Each value is read as Argo CD reads it: YAML 1.1 (sigs.k8s.io/yaml over go-yaml), decoded by Go's encoding/json
 * into the settings' types, which takes a field's name in any case, leaves unknown fields out, and refuses a value
 * of the wrong type.
 */
import { parse } from 'yaml';
import { goParseBool } from '../core/text.ts';

export const RESOURCE_CUSTOMIZATIONS = 'resource.customizations';
export const RESOURCE_COMPARE_OPTIONS = 'resource.compareoptions';

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
