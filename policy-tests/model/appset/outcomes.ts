/**
 * What became of each ApplicationSet the repository applies (model/appset/expand.ts): the Applications it makes, or
 * why Argo CD's controller would make none (it fails the ApplicationSet), or why the gate could not tell. Kept by the
 * ApplicationSet's resource, which every later view of the repository shares. `argocd-applied-files` fails an
 * ApplicationSet that failed or was not judged; the rendered diff cannot vouch for one.
 */
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';
import { isMap, obj } from '../core/dig.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import { cmdParamsList } from '../argocd/refusals.ts';

export interface SetOutcome {
  apps: Resource[];
  /** The files its git files generator read, and the folders its directories generator took (`a/b/`): inputs of what it makes. */
  reads: string[];
  /** Argo CD's controller fails the ApplicationSet with this, and makes nothing. */
  fails?: string;
  /** Argo CD's controller never reads the ApplicationSet (it watches other namespaces), and makes nothing: why. */
  ignored?: string;
  /**
   * Applications its controller's validation refuses and does not make, the rest made (validateGeneratedApplications):
   * each refusal in Argo CD's words.
   */
  refused?: string[];
  /** The gate cannot tell what it makes. */
  unjudged?: string;
  /**
   * What the controller may do to the Applications it made before (its ApplicationsSyncPolicy: `sync`, or
   * `create-only`, `create-update`, `create-delete`); absent where it made none.
   */
  policy?: string;
  /** Under a RollingSync, where the sync that applies the ApplicationSet waits for the Applications it made. */
  rolling?: boolean;
}

export const isApplicationSet = (r: Resource): boolean => r.kind === 'ApplicationSet' && r.apiVersion === 'argoproj.io/v1alpha1';

/**
 * Outcomes by the ApplicationSet's file and content as Argo CD applies it: its namespace as it lands (its own, or the
 * destination of the app that applies it), the rest with keys in order. A kustomization that takes the file in puts
 * its own output in the resource's place: one that only sets the namespace it lands in, or orders keys its own way,
 * keeps the outcome; one that changes anything else leaves an ApplicationSet with none until it is expanded as it
 * lands (expand.ts withRenderedApplicationSets). The oldest are forgotten past a bound (a long test run).
 */
const outcomes = new Map<string, SetOutcome>();
const OUTCOMES_KEPT = 1000;

function keyOf(repo: Repo, set: Resource): string {
  const metadata = obj(set.object.metadata);
  const rest = { ...set.object, metadata: Object.fromEntries(Object.entries(metadata).filter(([k]) => k !== 'namespace')) };
  return `${repo.root}\0${set.file}\0${namespaceOrDestination(repo, set) ?? ''}\0${canonicalJson(rest)}`;
}

/** JSON with every object's keys in order: two readings of one object that differ only in key order are one text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (isMap(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

/** Each Application an ApplicationSet made: its ApplicationSet, and whether Argo CD's sync of that waits for it. */
const makers = new WeakMap<Resource, { set: Resource; waited: boolean }>();

/**
 * The ApplicationSet that made an Application, and whether the app that applies the ApplicationSet waits for the
 * Application: its sync waits for the ApplicationSet's health, which the controller reports Healthy once it has
 * created the Applications (argoproj.io/ApplicationSet/health.lua), not once they are synced or healthy; under a
 * RollingSync it reports Progressing until every step's Applications are. Undefined for any other resource.
 */
export function madeBy(app: Resource): { set: Resource; waited: boolean } | undefined {
  return makers.get(app);
}

export function recordOutcome(repo: Repo, set: Resource, outcome: SetOutcome): void {
  for (const app of outcome.apps) makers.set(app, { set, waited: outcome.rolling === true });
  const key = keyOf(repo, set);
  outcomes.delete(key);
  outcomes.set(key, outcome);
  if (outcomes.size > OUTCOMES_KEPT) outcomes.delete(outcomes.keys().next().value!);
}

/** The outcome of an ApplicationSet, or none where the gate never expanded it as Argo CD applies it. */
export function outcomeOf(repo: Repo, set: Resource): SetOutcome | undefined {
  return outcomes.get(keyOf(repo, set));
}

/**
 * What Argo CD's comparison of an Application an ApplicationSet made goes by, where that is not its syncing app's: no
 * sync writes it, its controller does, leaving the fields the ApplicationSet's ignoreApplicationDifferences names as
 * the cluster holds them (BuildIgnoreDiffConfig: rules on argoproj.io Applications, by name where one is given, and
 * none of argocd-cm's). As an Application spec's ignoreDifferences, for model/compare/ignore-differences.ts to read.
 */
export function controllerComparison(app: Resource): { ignoreDifferences: Record<string, unknown>[] } | undefined {
  const made = madeBy(app);
  if (!made) return undefined;
  const rules = obj(made.set.object.spec).ignoreApplicationDifferences;
  return {
    ignoreDifferences: (Array.isArray(rules) ? rules : []).map((rule) => {
      const { name, jsonPointers, jqPathExpressions } = obj(rule);
      return { group: 'argoproj.io', kind: 'Application', ...(typeof name === 'string' && name ? { name } : {}), jsonPointers, jqPathExpressions };
    }),
  };
}

/** The annotations and labels the ApplicationSet controller keeps as the cluster holds them on an Application it writes. */
export interface PreservedMetadata {
  annotations: readonly string[];
  labels: readonly string[];
}

/** The annotations it always keeps (defaultPreservedAnnotations): notifications' record, a refresh or hydrate asked for. */
const ALWAYS_PRESERVED = ['notified.notifications.argoproj.io', 'argocd.argoproj.io/refresh', 'argocd.argoproj.io/hydrate'];

/**
 * What the ApplicationSet `set`'s controller keeps of an Application it made, where the cluster holds it
 * (createOrUpdateInCluster): the ApplicationSet's preservedFields, argocd-cmd-params-cm's
 * applicationsetcontroller.global.preserved.annotations and .labels, and its own three annotations. Where the live
 * Application has no such key, the generated value is written.
 */
export function preservedMetadata(repo: Repo, set: Resource): PreservedMetadata {
  const own = obj(obj(set.object.spec).preservedFields);
  const keys = (list: unknown) => (Array.isArray(list) ? list.filter((k): k is string => typeof k === 'string') : []);
  return {
    annotations: [...keys(own.annotations), ...cmdParamsList(repo, 'applicationsetcontroller.global.preserved.annotations'), ...ALWAYS_PRESERVED],
    labels: [...keys(own.labels), ...cmdParamsList(repo, 'applicationsetcontroller.global.preserved.labels')],
  };
}

/** `target` with each preserved annotation and label the live object holds set to the live value, as the controller writes it. */
export function withPreservedMetadata(target: Record<string, unknown>, live: Record<string, unknown>, preserved: PreservedMetadata): Record<string, unknown> {
  const liveMetadata = obj(live.metadata);
  let out = target;
  for (const field of ['annotations', 'labels'] as const) {
    const held = obj(liveMetadata[field]);
    for (const key of preserved[field]) {
      const value = Object.hasOwn(held, key) ? held[key] : undefined;
      if (typeof value !== 'string') continue;
      if (out === target) out = structuredClone(target);
      const metadata = (out.metadata = { ...obj(out.metadata) });
      metadata[field] = { ...obj(metadata[field]), [key]: value };
    }
  }
  return out;
}

/**
 * What the controller's policy lets it do to an Application it made (utils/policy.go: AllowUpdate, AllowDelete):
 * `sync`, the default (or none), both; `create-only` neither; `create-update` no delete; `create-delete` no update.
 */
export function policyAllows(policy: string | undefined): { update: boolean; delete: boolean } {
  return { update: policy !== 'create-only' && policy !== 'create-delete', delete: policy !== 'create-only' && policy !== 'create-update' };
}

export interface SetProblem {
  resource: Resource;
  message: string;
  /** What its generators read of the checkout (SetOutcome's reads); none where it was never expanded. */
  reads: readonly string[];
  /** What Argo CD makes of it is unknown here: the diff cannot vouch for it. */
  unread: boolean;
}

/** ApplicationSets Argo CD fails, or the gate could not expand: each one's problem, said at its generators. */
export function applicationSetProblems(repo: Repo): SetProblem[] {
  return repo.resources.filter(isApplicationSet).flatMap((resource): SetProblem[] => {
    const outcome = outcomeOf(repo, resource);
    const problem = (message: string, unread: boolean): SetProblem[] => [
      { resource, reads: outcome?.reads ?? [], unread, message: `ApplicationSet ${resource.name}: ${message}` },
    ];
    if (!outcome) return problem('not expanded as Argo CD applies it, so the Applications its controller makes are not judged', true);
    if (outcome.fails) return problem(`Argo CD's ApplicationSet controller fails it and makes no Application: ${outcome.fails}`, false);
    if (outcome.ignored) return problem(`Argo CD's ApplicationSet controller never reads it and makes no Application: ${outcome.ignored}`, false);
    if (outcome.refused)
      return problem(`Argo CD's ApplicationSet controller makes the other Applications and refuses these: ${outcome.refused.join('; ')}`, false);
    if (outcome.unjudged) return problem(`the gate cannot tell which Applications Argo CD's controller makes of it: ${outcome.unjudged}`, true);
    return [];
  });
}

/**
 * The Applications ApplicationSets make whose controller policy keeps it from updating or deleting them, each with
 * that policy (`create-only`, `create-update`, `create-delete`): what the rendered diff says of a change to one.
 */
export function restrainedApplications(repo: Repo): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of repo.resources) {
    if (!isApplicationSet(r)) continue;
    const outcome = outcomeOf(repo, r);
    if (!outcome?.policy || outcome.policy === 'sync') continue;
    for (const app of outcome.apps) out.set(app.name, outcome.policy);
  }
  return out;
}
