/**
 * The values keys a chart never reads: Helm passes a chart its values and ignores, without a word, every key no
 * template asks for. A key is read where the chart declares it in its default values (its own, or a subchart's under
 * the subchart's key), where a template names it, or under a map a template takes whole (`toYaml .Values.x`).
 */
import type { ChartScope } from '../argocd/rendered.ts';
import { mistyped, nearestName } from '../core/did-you-mean.ts';
import { isMap } from '../core/dig.ts';
import { perObject } from '../core/per-object.ts';
import type { Path } from '../core/positions.ts';
import { ELEMENT, templateScopes } from './template-scopes.ts';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const WORD = /^\w+$/;

/**
 * What stands before a `.Values` chain that is the map a template function reads one key of (`hasKey`, `get`), or one
 * path of (sprig's `dig "a" "b" <default> <map>`: Loki digs its canary's tenant out of `.Values.monitoring`).
 */
const KEY_READ_BEFORE = /\b(?:hasKey|get|dig(?:\s+"[^"]*")+\s+[^\s()]+)\s+\$?$/;
/** How far back a key read's function may stand: `dig` with its keys and its default. */
const KEY_READ_REACH = 240;

/**
 * A chart's templates, and the templates its default values hold: a chart renders a values string with `tpl` (Loki's
 * `loki.config` opens `.Values.loki.limits_config` and hands it on whole), so what that text reads is read too.
 */
const templateText = perObject((scope: ChartScope): string => {
  const held: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string' && v.includes('{{')) held.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isMap(v)) Object.values(v).forEach(walk);
  };
  walk(scope.defaults);
  // A comment (`{{/* ... */}}`, trim markers aside) reads nothing, though Cilium's name `.Values.image` in their prose.
  return [scope.templates, ...held].join('\n').replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');
});

/** More keys in one `.Values` chain than any chart nests. */
const LONGEST_CHAIN = 64;

/**
 * The `.Values.a.b` chains a chart's templates name that go no further (a map taken whole: `\.Values\.a\.b(?![\w.])`),
 * from each `.Values` on as the pattern would match there, read once per chart: its templates are megabytes for some,
 * and each key of each values file ran the pattern over them.
 */
const valuesReads = perObject((scope: ChartScope): { chains: ReadonlySet<string>; elements: ReadonlyMap<string, ElementReads> } | undefined => {
  const chains = new Set<string>();
  // How often each chain is named as far as it goes: a chain a `with` opens is taken whole only where it is named
  // some other way too (template-scopes.ts).
  const named = new Map<string, number>();
  const text = templateText(scope);
  // One pass over the longest chains: a `.Values` inside one (`.Values.Values.z`) starts a chain that is its tail and
  // ends where it ends. A chain longer than any a chart writes (a pull request's `.Values` ten thousand times over)
  // would make its tails cost the square of its length: the chart's keys are then looked for with the pattern.
  for (const m of text.matchAll(/\.Values((?:\.\w+)+)/g)) {
    const next = text[m.index + m[0].length];
    // A chain that goes on is taken whole at none of its prefixes: `(?![\w.])` fails after each of them.
    if (next !== undefined && /[\w.]/.test(next)) continue;
    // `hasKey .Values.a "b"` and `get .Values.a "b"` read one key of the map, and pass none of it on.
    if (KEY_READ_BEFORE.test(text.slice(Math.max(0, m.index - KEY_READ_REACH), m.index))) continue;
    const units = m[1]!.slice(1).split('.');
    if (units.length > LONGEST_CHAIN) return undefined;
    chains.add(units.join('.'));
    named.set(units.join('.'), (named.get(units.join('.')) ?? 0) + 1);
    units.forEach((unit, i) => unit === 'Values' && i + 1 < units.length && chains.add(units.slice(i + 1).join('.')));
  }
  const scopes = templateScopes(text);
  if (!scopes) return { chains, elements: new Map() };
  // A chain named only by `with` blocks, truth tests, helper calls and variables bound to it is read through them, not taken whole.
  const quiet = (chain: string) =>
    (scopes.opened.get(chain) ?? 0) + (scopes.tested.get(chain) ?? 0) + (scopes.passed.get(chain) ?? 0) + (scopes.bound.get(chain) ?? 0);
  for (const chain of new Set([...scopes.opened.keys(), ...scopes.tested.keys(), ...scopes.passed.keys(), ...scopes.bound.keys()]))
    if (named.get(chain) === quiet(chain)) chains.delete(chain);
  for (const read of scopes.reads) chains.add(read);
  return { chains, elements: elementKeys(scopes, (chain) => named.get(chain) === quiet(chain) + (scopes.ranged.get(chain) ?? 0)) };
});

/**
 * What a walk reads of each element of a list: every path below the element it names (`storageClass.enabled`, and
 * `storageClass` for a `with` on it), and those among them read as far as they go (a map there is taken whole).
 */
interface ElementReads {
  below: ReadonlySet<string>;
  whole: ReadonlySet<string>;
}

/**
 * What is read of each element of a list the templates walk with `range .Values.<chain>` (or `range $x := ...`,
 * read through `$x`) and name no other way (a `with` on it and a truth test aside), by the chain: those of a list
 * named elsewhere too, or whose element is handed on whole, or of which nothing is read, are not kept (their elements
 * are not judged).
 */
function elementKeys(scopes: NonNullable<ReturnType<typeof templateScopes>>, namedNoOtherWay: (chain: string) => boolean): Map<string, ElementReads> {
  const out = new Map<string, ElementReads>();
  const named = [...scopes.reads, ...scopes.opened.keys(), ...scopes.ranged.keys()];
  for (const chain of scopes.ranged.keys()) {
    if (!namedNoOtherWay(chain)) continue;
    const element = `${chain}.${ELEMENT}`;
    if (scopes.reads.has(element)) continue;
    const within = (paths: readonly string[]) => new Set(paths.filter((r) => r.startsWith(`${element}.`)).map((r) => r.slice(element.length + 1)));
    const below = within(named);
    if (below.size > 0) out.set(chain, { below, whole: within([...scopes.reads]) });
  }
  return out;
}

/** The keys `reads` names directly under `prefix` of an element (`storageClass` under none, `enabled` under it). */
const keysUnder = (reads: ElementReads, prefix: readonly string[]): string[] => {
  const start = prefix.length === 0 ? '' : `${prefix.join('.')}.`;
  return [...reads.below].filter((p) => p.startsWith(start) && p.length > start.length).map((p) => p.slice(start.length).split('.')[0]!);
};

/** Whether a template of the chart takes the map at `rel` whole (`toYaml .Values.securityContext`): `\.Values\.<rel>(?![\w.])`. */
export function takesWhole(scope: ChartScope, rel: readonly string[]): boolean {
  const chains = rel.every((k) => WORD.test(k)) ? valuesReads(scope)?.chains : undefined;
  return chains
    ? chains.has(rel.join('.'))
    : new RegExp(`(?<!${KEY_READ_BEFORE.source.slice(0, -1)})\\.Values\\.${rel.map(escape).join('\\.')}(?![\\w.])`).test(templateText(scope));
}

/** Whether any template of the chart names `key` as a whole word (asked only of a key the chart does not declare: rare). */
export function namesKey(scope: ChartScope, key: string): boolean {
  return new RegExp(`\\b${escape(key)}\\b`).test(templateText(scope));
}

/** What the chart's defaults declare under `key`: each default there, and those that are maps of keys (under which the walk goes on). */
function declaredUnder(declared: readonly Record<string, unknown>[], key: string): { defaults: unknown[]; maps: Record<string, unknown>[] } {
  const defaults = declared.filter((d) => key in d).map((d) => d[key]);
  return { defaults, maps: defaults.filter((d): d is Record<string, unknown> => isMap(d) && Object.keys(d).length > 0) };
}

/** A key of a values file the chart does not read: where, the declared key it is most likely a typo of, and whether it sits under a map a template takes whole. */
export interface UnusedValue {
  path: Path;
  near?: string;
  whole?: true;
}

/**
 * Keys of a values object that the chart neither declares in its default
 * values (its own, or a subchart's under the subchart's key) nor names in
 * any template; `near` is the declared sibling it is most likely a typo of.
 * Anything goes under a key whose default is not a map or is
 * an empty map, under a key a template reads without declaring it, and
 * under a map a template takes whole (`toYaml .Values.securityContext`,
 * `with .Values.podLabels`): the chart passes that content on as it is.
 * There, a key one keystroke from a key the chart declares beside it, which
 * the values do not set, is still said (`whole`): it is that key misspelt.
 * Each element of a list the chart walks with `range` and reads key by key
 * holds only keys the walk reads or the default elements hold, and so does
 * each map in it the walk reads key by key (Rook's pools' `storageClass`).
 */
export function unusedValues(values: unknown, chart: ChartScope): UnusedValue[] {
  const out: UnusedValue[] = [];
  // `scope` is the chart or subchart the node is read by, `declared` its defaults there, `rel` the path within that chart.
  type Within = { scope: ChartScope; declared: Record<string, unknown>[]; rel: string[] };
  const visit = (node: unknown, path: (string | number)[], { scope, declared, rel }: Within): void => {
    if (!isMap(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const here = [...path, key];
      const atScopeRoot = rel.length === 0;
      // Globals reach every chart and subchart; no one chart declares them all.
      if (atScopeRoot && key === 'global') continue;
      const sub = atScopeRoot ? scope.subcharts.get(key) : undefined;
      if (sub) {
        const fromParent = declared.map((d) => d[key]).filter(isMap);
        visit(value, here, { scope: sub, declared: [sub.defaults, ...fromParent], rel: [] });
        continue;
      }
      // A list the chart walks is read; its elements' keys are judged there.
      if (Array.isArray(value) && listElements(value, here, { scope, rel: [...rel, key], defaults: declared.map((d) => d[key]) })) continue;
      const { defaults, maps } = declaredUnder(declared, key);
      if (defaults.length > 0) {
        if (maps.length === defaults.length)
          if (takesWhole(scope, [...rel, key])) slips(value, here, maps);
          else visit(value, here, { scope, declared: maps, rel: [...rel, key] });
        continue;
      }
      if (namesKey(scope, key)) continue;
      // The key the chart declares beside it that this one is most likely a typo of.
      const siblings = [...new Set(declared.flatMap((d) => Object.keys(d)))];
      const near = nearestName(key, siblings);
      out.push(near ? { path: here, near } : { path: here });
    }
  };
  // Under a map a template takes whole, a key the chart does not declare is passed on as written, and may mean
  // something there; one a keystroke from a key the chart declares beside it (four letters or more), which the values
  // do not set, is that key misspelt: a template that reads the map key by key never finds it (Loki's
  // `singleBinary.persistence.sizf`, which the chart's workload template reads through `$component.persistence.size`).
  const slips = (node: unknown, path: (string | number)[], declared: Record<string, unknown>[]): void => {
    if (!isMap(node)) return;
    const siblings = [...new Set(declared.flatMap((d) => Object.keys(d)))];
    for (const [key, value] of Object.entries(node)) {
      const { defaults, maps } = declaredUnder(declared, key);
      if (defaults.length > 0) {
        if (maps.length === defaults.length) slips(value, [...path, key], maps);
        continue;
      }
      const near = siblings.find((s) => s.length >= 4 && !(s in node) && mistyped(key, s));
      if (near) out.push({ path: [...path, key], near, whole: true });
    }
  };
  // The keys of a map within an element the walk reads key by key (`prefix` below the element; none for the element
  // itself); those the default elements hold there count as read (a chart may read them some other way). A map the
  // walk reads further, and does not take whole, is judged the same way; one only the defaults name is left alone.
  const elementMap = (
    node: Record<string, unknown>,
    path: (string | number)[],
    read: ElementReads,
    { prefix, defaults }: { prefix: string[]; defaults: unknown[] },
  ): void => {
    const held = defaults.filter(isMap);
    const known = new Set([...keysUnder(read, prefix), ...held.flatMap((d) => Object.keys(d))]);
    for (const [key, value] of Object.entries(node)) {
      const rel = [...prefix, key];
      if (!known.has(key)) {
        const near = nearestName(key, known);
        out.push(near ? { path: [...path, key], near } : { path: [...path, key] });
      } else if (isMap(value) && !read.whole.has(rel.join('.')) && keysUnder(read, rel).length > 0)
        elementMap(value, [...path, key], read, { prefix: rel, defaults: held.map((d) => d[key]) });
    }
  };
  // The elements of a list the chart walks with `range` and reads only key by key.
  const listElements = (
    list: unknown[],
    path: (string | number)[],
    { scope, rel, defaults }: { scope: ChartScope; rel: string[]; defaults: unknown[] },
  ): boolean => {
    const read = rel.every((k) => WORD.test(k)) ? valuesReads(scope)?.elements.get(rel.join('.')) : undefined;
    if (!read) return false;
    const held = defaults.flatMap((d) => (Array.isArray(d) ? d.filter(isMap) : []));
    list.forEach((element, i) => isMap(element) && elementMap(element, [...path, i], read, { prefix: [], defaults: held }));
    return true;
  };
  visit(values, [], { scope: chart, declared: [chart.defaults], rel: [] });
  return out;
}
