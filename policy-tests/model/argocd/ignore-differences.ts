/**
 * The fields Argo CD ignores in an object's diff (argo-cd v3.5.1, util/argo/normalizers/diff_normalizer.go): an
 * Application's spec.ignoreDifferences and argocd-cm's resource.customizations.ignoreDifferences.<group_kind> (`all`
 * for every kind), matched by group and kind globs, and by name and namespace where given. With
 * RespectIgnoreDifferences=true a sync sends the live value of each ignored field (controller/sync.go,
 * normalizeTargetResources), so what the repository changes there never reaches the cluster: not applied, and never
 * refused. JSON pointers are followed here; jq expressions and managed-fields managers are not (`unread`).
 */
import { parse } from 'yaml';
import { argoGlobMatch } from '../core/glob.ts';
import { groupOf } from '../core/manifest.ts';
import { dig } from '../core/dig.ts';

type Obj = Record<string, unknown>;

/** What Argo CD ignores of one object: JSON pointers it follows, and what the gate does not read (jq, managers). */
export interface IgnoredFields {
  pointers: string[];
  unread: string[];
}

interface IgnoreEntry {
  group: string;
  kind: string;
  name?: string;
  namespace?: string;
  jsonPointers?: unknown;
  jqPathExpressions?: unknown;
  managedFieldsManagers?: unknown;
}

const PREFIX = 'resource.customizations.ignoreDifferences.';
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const readOverrides = new WeakMap<Obj, IgnoreEntry[]>();

/** argocd-cm's ignoreDifferences overrides, as appendResourceOverridesFromSplitKeys and NewIgnoreNormalizer read them, once per argocd-cm. */
function overrides(argocdCm: Obj | undefined): IgnoreEntry[] {
  if (!argocdCm) return [];
  let out = readOverrides.get(argocdCm);
  if (!out) readOverrides.set(argocdCm, (out = parseOverrides(argocdCm)));
  return out;
}

function parseOverrides(argocdCm: Obj): IgnoreEntry[] {
  const out: IgnoreEntry[] = [];
  for (const [key, value] of Object.entries(argocdCm)) {
    if (!key.startsWith(PREFIX) || typeof value !== 'string') continue;
    const groupKind = key.slice(PREFIX.length);
    const [group, kind] = groupKind === 'all' ? ['*', '*'] : groupKind.includes('_') ? groupKind.split('_', 2) : ['', groupKind];
    let read: unknown;
    try {
      read = parse(value);
    } catch {
      continue; // argocd-will-sync's concern: a value Argo CD cannot read stops its settings
    }
    out.push({ group: group!, kind: kind!, ...(read && typeof read === 'object' ? (read as Obj) : {}) });
  }
  return out;
}

/** The fields Argo CD ignores of `object`, owned by an Application with this spec, under this argocd-cm data. */
export function ignoredFields(object: Obj, appSpec: unknown, argocdCm?: Obj): IgnoredFields {
  const entries = [...((dig(appSpec, ['ignoreDifferences']) ?? []) as IgnoreEntry[]), ...overrides(argocdCm)];
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const [group, kind] = [groupOf(text(object.apiVersion)), text(object.kind)];
  const [name, namespace] = [dig(object, ['metadata', 'name']), dig(object, ['metadata', 'namespace'])];
  const out: IgnoredFields = { pointers: [], unread: [] };
  for (const e of entries) {
    if (!e || typeof e !== 'object') continue;
    const matches =
      argoGlobMatch(String(e.group ?? ''), group) &&
      argoGlobMatch(String(e.kind ?? ''), kind) &&
      (!e.name || e.name === name) &&
      (!e.namespace || e.namespace === namespace);
    if (!matches) continue;
    out.pointers.push(...strings(e.jsonPointers));
    out.unread.push(...strings(e.jqPathExpressions).map((q) => `jq ${q}`), ...strings(e.managedFieldsManagers).map((m) => `fields managed by ${m}`));
  }
  return out;
}

const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

/** The value at a path of own fields only (undefined where a step is missing). */
function ownAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const t of path) at = at && typeof at === 'object' && Object.hasOwn(at, t) ? (at as Obj)[t] : undefined;
  return at;
}

/** RFC 6901: a pointer's reference tokens (`~1` is `/`, `~0` is `~`). */
const tokens = (pointer: string): string[] =>
  pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));

/**
 * The object a sync under RespectIgnoreDifferences=true sends: `target` with each ignored pointer's value taken from
 * `live` (and left out where the live object has none).
 */
export function withLiveValues(target: Obj, live: Obj, pointers: readonly string[]): Obj {
  const out = structuredClone(target);
  for (const pointer of pointers) {
    const path = tokens(pointer);
    // A pull request writes the pointers: only an object's own fields are followed, never its prototype's.
    if (path.length === 0 || path.some((t) => UNSAFE.has(t))) continue;
    const value = ownAt(live, path);
    let at: unknown = out;
    for (const t of path.slice(0, -1)) at = ownAt(at, [t]);
    if (!at || typeof at !== 'object') continue;
    const last = path.at(-1)!;
    if (value === undefined) delete (at as Obj)[last];
    else (at as Obj)[last] = structuredClone(value);
  }
  return out;
}
