/**
 * The fields Argo CD ignores in an object's diff (argo-cd v3.5.1, util/argo/normalizers/diff_normalizer.go): an
 * Application's spec.ignoreDifferences and argocd-cm's overrides (util/settings GetResourceOverrides: the older
 * resource.customizations map, resource.customizations.ignoreDifferences.<group_kind> with `all` for every kind,
 * `/status` as resource.compareoptions says, and an aggregated role's rules where it says ignoreAggregatedRoles),
 * matched by group and kind globs, and by name and namespace where given. With
 * RespectIgnoreDifferences=true a sync sends the live value of each ignored field (controller/sync.go,
 * normalizeTargetResources), so what the repository changes there never reaches the cluster: not applied, and never
 * refused. JSON pointers are followed here, and jq expressions once jq has named the fields each deletes of each
 * object (`resolveJqExpressions`, with jq's own engine: jq.ts); managed-fields managers are not (`unread`).
 */
import { argoGlobMatch } from '../core/glob.ts';
import { groupOf } from '../core/manifest.ts';
import { dig, isMap } from '../core/dig.ts';
import { runJq, type JqAnswer, type JqRequest } from './jq.ts';
import { compareOptions, resourceOverrides } from './resource-overrides.ts';

type Obj = Record<string, unknown>;

/** What Argo CD ignores of one object: JSON pointers it follows (jq's named as pointers), and what the gate does not read. */
export interface IgnoredFields {
  pointers: string[];
  unread: string[];
}

interface IgnoreEntry {
  /** argocd-cm's key, for an override. */
  key?: string;
  group: string;
  kind: string;
  name?: string;
  namespace?: string;
  jsonPointers?: unknown;
  jqPathExpressions?: unknown;
  managedFieldsManagers?: unknown;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const readOverrides = new WeakMap<Obj, IgnoreEntry[]>();
const NO_SETTINGS: Obj = Object.freeze({});

/** argocd-cm's ignoreDifferences overrides, as GetResourceOverrides loads them (resource-overrides.ts), once per argocd-cm. */
function overrides(argocdCm: Obj | undefined): IgnoreEntry[] {
  // No argocd-cm is Argo CD's defaults (its install ships the ConfigMap empty): `/status` of every object ignored.
  const data = isMap(argocdCm) ? argocdCm : NO_SETTINGS;
  let out = readOverrides.get(data);
  if (!out) readOverrides.set(data, (out = ignoreEntries(data)));
  return out;
}

function ignoreEntries(argocdCm: Obj): IgnoreEntry[] {
  // getGroupKindForOverrideKey: `<group>/<kind>`, or a kind of the core group.
  return [...resourceOverrides(argocdCm)].flatMap(([overrideKey, { ignoreDifferences, keys }]) => {
    if (!ignoreDifferences) return [];
    const [group, kind] = overrideKey.includes('/') ? overrideKey.split('/', 2) : ['', overrideKey];
    return [{ ...ignoreDifferences, key: keys.ignoreDifferences, group: group!, kind: kind! }];
  });
}

/** An Application spec's ignoreDifferences entries (none where it is no list). */
function listedEntries(appSpec: unknown): IgnoreEntry[] {
  const listed = dig(appSpec, ['ignoreDifferences']);
  return Array.isArray(listed) ? (listed as IgnoreEntry[]) : [];
}

/** The ignoreDifferences entries that name `object`, from an Application with this spec and argocd-cm's overrides. */
function entriesFor(object: Obj, appSpec: unknown, argocdCm?: Obj): IgnoreEntry[] {
  const entries = [...listedEntries(appSpec), ...overrides(argocdCm)];
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const [group, kind] = [groupOf(text(object.apiVersion)), text(object.kind)];
  const [name, namespace] = [dig(object, ['metadata', 'name']), dig(object, ['metadata', 'namespace'])];
  return entries.filter(
    (e) =>
      e &&
      typeof e === 'object' &&
      argoGlobMatch(String(e.group ?? ''), group) &&
      argoGlobMatch(String(e.kind ?? ''), kind) &&
      (!e.name || e.name === name) &&
      (!e.namespace || e.namespace === namespace),
  );
}

/**
 * jq's answers, per object and expression: filled ahead by `resolveJqExpressions`, as jq answers in a worker thread
 * and the checks read synchronously. Objects are never changed once parsed or rendered, so an answer stays true.
 */
const jqAnswers = new WeakMap<Obj, Map<string, JqAnswer>>();
/** Per expression, what compiling it as Argo CD does gives (an empty answer where it compiles). */
const jqCompiled = new Map<string, JqAnswer>();

/** The objects an Application applies, with its spec: what `resolveJqExpressions` runs the expressions on. */
export interface AppliedObject {
  object: Obj;
  appSpec: unknown;
}

/**
 * Runs every jq expression that ignoreDifferences (an Application's, argocd-cm's) points at an object, on that object,
 * and compiles every one an Application or argocd-cm writes: `ignoredFields` and `uncompiledJq` then read the
 * answers. Costs nothing where no expression is written.
 */
export async function resolveJqExpressions(objects: () => readonly AppliedObject[], appSpecs: readonly unknown[], argocdCm?: Obj): Promise<void> {
  const requests: JqRequest[] = [];
  const targets: { object?: Obj; expression: string }[] = [];
  const written = [...appSpecs.flatMap(listedEntries), ...overrides(argocdCm)];
  const expressions = new Set(written.flatMap((e) => (e && typeof e === 'object' ? strings(e.jqPathExpressions) : [])));
  if (!expressions.size) return;
  for (const expression of expressions)
    if (!jqCompiled.has(expression)) {
      requests.push({ expression });
      targets.push({ expression });
    }
  for (const { object, appSpec } of objects())
    for (const expression of new Set(entriesFor(object, appSpec, argocdCm).flatMap((e) => strings(e.jqPathExpressions))))
      if (!jqAnswers.get(object)?.has(expression)) {
        requests.push({ expression, input: object });
        targets.push({ object, expression });
      }
  const answers = await runJq(requests);
  targets.forEach(({ object, expression }, i) => {
    if (!object) return void jqCompiled.set(expression, answers[i]!);
    let known = jqAnswers.get(object);
    if (!known) jqAnswers.set(object, (known = new Map()));
    known.set(expression, answers[i]!);
  });
}

/** A jq expression Argo CD cannot compile (`del(<expression>)`), once resolved: where it is written, and jq's error. */
export interface UncompiledJq {
  /** The path under the Application's spec.ignoreDifferences (entry, then item), or argocd-cm's key for an override. */
  at: { path: (string | number)[] } | { key: string };
  expression: string;
  error: string;
}

const compileErrorOf = (expression: string) => {
  const compiled = jqCompiled.get(expression);
  return compiled && 'compileError' in compiled ? compiled.compileError : undefined;
};

/** The jq expressions of an Application spec's ignoreDifferences that do not compile. */
export function uncompiledJq(appSpec: unknown): UncompiledJq[] {
  return listedEntries(appSpec).flatMap((e, i) =>
    (e && typeof e === 'object' && Array.isArray(e.jqPathExpressions) ? (e.jqPathExpressions as unknown[]) : []).flatMap((expression, j) => {
      const error = typeof expression === 'string' ? compileErrorOf(expression) : undefined;
      return error ? [{ at: { path: ['ignoreDifferences', i, 'jqPathExpressions', j] }, expression: expression as string, error }] : [];
    }),
  );
}

/** The jq expressions of argocd-cm's ignoreDifferences overrides that do not compile. */
export function uncompiledJqOverrides(argocdCm: Obj | undefined): UncompiledJq[] {
  return overrides(argocdCm).flatMap((e) =>
    strings(e.jqPathExpressions).flatMap((expression) => {
      const error = compileErrorOf(expression);
      return error ? [{ at: { key: e.key! }, expression, error }] : [];
    }),
  );
}

/** A jq path as a JSON pointer on `object`: a negative index counts from its array's end; a slice has none. */
function pointerOf(object: Obj, path: readonly unknown[]): string | undefined {
  const out: string[] = [];
  let at: unknown = object;
  for (const step of path) {
    let token: string | number;
    if (typeof step === 'string') token = step;
    else if (typeof step === 'number' && Number.isInteger(step)) token = step < 0 && Array.isArray(at) ? at.length + step : step;
    else return undefined;
    if (typeof token === 'number' && token < 0) return undefined;
    out.push(String(token).replace(/~/g, '~0').replace(/\//g, '~1'));
    at = at && typeof at === 'object' ? (at as Obj)[token] : undefined;
  }
  return out.length ? `/${out.join('/')}` : '';
}

/** What one jq expression ignores of `object`, as `ignoredFields` reports it. */
function jqIgnored(object: Obj, expression: string, out: IgnoredFields): void {
  const answer = jqAnswers.get(object)?.get(expression);
  if (!answer) out.unread.push(`jq ${expression}`);
  else if ('compileError' in answer) out.unread.push(`jq ${expression} (it does not compile, so Argo CD compares nothing of the app)`);
  else if ('unanswered' in answer) out.unread.push(`jq ${expression} (${answer.unanswered})`);
  // A failing expression: Argo CD's normalizer skips it, and ignores nothing of the object for it.
  else if ('paths' in answer)
    for (const path of answer.paths) {
      const pointer = pointerOf(object, path);
      if (pointer === undefined) out.unread.push(`jq ${expression} (a slice of a list)`);
      else out.pointers.push(pointer);
    }
}

/** The fields Argo CD ignores of `object`, owned by an Application with this spec, under this argocd-cm data. */
export function ignoredFields(object: Obj, appSpec: unknown, argocdCm?: Obj): IgnoredFields {
  const out: IgnoredFields = { pointers: [], unread: [] };
  for (const e of entriesFor(object, appSpec, argocdCm)) {
    out.pointers.push(...strings(e.jsonPointers));
    for (const expression of strings(e.jqPathExpressions)) jqIgnored(object, expression, out);
    out.unread.push(...strings(e.managedFieldsManagers).map((m) => `fields managed by ${m}`));
  }
  if (argocdCm && isAggregatedRole(object) && compareOptions(argocdCm).ignoreAggregatedRoles) out.pointers.push('/rules');
  return out;
}

/**
 * A Role or ClusterRole whose rules the aggregation controller writes (its aggregationRule a map): with
 * resource.compareoptions' ignoreAggregatedRoles, gitops-engine's normalizeRole compares it without its rules.
 */
function isAggregatedRole(object: Obj): boolean {
  const aggregation = object.aggregationRule;
  return (
    groupOf(typeof object.apiVersion === 'string' ? object.apiVersion : '') === 'rbac.authorization.k8s.io' &&
    (object.kind === 'Role' || object.kind === 'ClusterRole') &&
    !!aggregation &&
    typeof aggregation === 'object' &&
    !Array.isArray(aggregation)
  );
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
    // jq deletes an item of a list, and the list closes up (as the merge patch's list does).
    if (value === undefined && Array.isArray(at) && /^\d+$/.test(last)) at.splice(Number(last), 1);
    else if (value === undefined) delete (at as Obj)[last];
    else (at as Obj)[last] = structuredClone(value);
  }
  return out;
}

/**
 * `object` as Argo CD's normalizer leaves it for the comparison: each ignored pointer removed (an item of a list taken
 * out, the list closing up). All of an object's pointers go at once, as jq's `del` takes its paths: the deepest and
 * the last items first, so no removal moves another's place.
 */
export function withoutPointers(object: Obj, pointers: readonly string[]): Obj {
  const out = structuredClone(object);
  const paths = pointers.map(tokens).filter((path) => path.length > 0 && !path.some((t) => UNSAFE.has(t)));
  const order = (a: string[], b: string[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] === b[i]) continue;
      const [x, y] = [Number(a[i]), Number(b[i])];
      return /^\d+$/.test(a[i]!) && /^\d+$/.test(b[i]!) ? y - x : a[i]! < b[i]! ? 1 : -1;
    }
    return b.length - a.length;
  };
  for (const path of paths.sort(order)) {
    let at: unknown = out;
    for (const t of path.slice(0, -1)) at = ownAt(at, [t]);
    if (!at || typeof at !== 'object') continue;
    const last = path.at(-1)!;
    if (Array.isArray(at) && /^\d+$/.test(last)) at.splice(Number(last), 1);
    else if (Object.hasOwn(at, last)) delete (at as Obj)[last];
  }
  return out;
}
