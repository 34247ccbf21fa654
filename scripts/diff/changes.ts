/**
 * What a change does to the cluster: the objects each Application applies on
 * two refs, compared per resource with the noise stripped, and the changes
 * that carry a risk, each with its reason. Pure functions of two snapshots.
 */
import { type Snapshot, facts } from '../../policy-tests/index.ts';
import { asText, valueAt } from '../lib/values.ts';
import { imageRisk, major, registryRisk } from './image-risks.ts';
import { listed, NETWORK_POLICY_KINDS, networkPolicyRisk } from './policy-risks.ts';
import { argocdAccessReasons, privilegeReasons } from './privilege-risks.ts';
import { chartStepRisk, upgradeRisk, upgradeWindowRisk } from './upgrade-risks.ts';
import { cutOf, idParts, objectLabel, sentOf, storageClasses, updateRefusals } from './refusals.ts';
import { rolloutRisks } from './rollouts.ts';
import { adoptionRisks } from './adoption.ts';
import { isDeletion, leftReason, removalOutcomes, type RemovalOutcome } from './removals.ts';
import { syncRisks } from './sync-runs.ts';
import { sameObject } from './same-object.ts';
import { fieldChanges, masked, type FieldChange } from './fields.ts';

export { fieldChanges, MASK, type FieldChange } from './fields.ts';

export type { Snapshot };

/**
 * The Applications that cannot be judged because one side could not render
 * them, and whether their inputs changed between the refs. Their objects are
 * left out of both sides, so nothing is reported as added or removed for them.
 */
export function notJudged(base: Snapshot, head: Snapshot): { app: string; cause: string; inputsChanged: boolean }[] {
  const apps = [...new Set([...(base.unrendered?.keys() ?? []), ...(head.unrendered?.keys() ?? [])])].sort();
  return apps.map((app) => {
    const [b, h] = [base.unrendered?.get(app), head.unrendered?.get(app)];
    const cause = [b && `base: ${b.cause}`, h && `head: ${h.cause}`].filter(Boolean).join('; ');
    const inputsChanged = (b?.inputs ?? base.fingerprints?.get(app)) !== (h?.inputs ?? head.fingerprints?.get(app));
    return { app, cause, inputsChanged };
  });
}

/** A snapshot without the objects of these Applications. */
export function without(s: Snapshot, apps: ReadonlySet<string>): Snapshot {
  return cutOf({ ...s, objects: new Map([...s.objects].filter(([, v]) => !apps.has(v.app))) }, s);
}

export interface ResourceChange {
  app: string;
  id: string;
  kind: string;
  name: string;
  namespace: string;
  change: 'added' | 'removed' | 'changed';
  fields: FieldChange[];
  /** For a removed object, what the sync does with it (facts.pruneOutcome): deletes it, or leaves it in the cluster. */
  pruned?: PruneOutcome;
}

export type PruneOutcome = RemovalOutcome;

export interface Risk {
  app: string;
  id: string;
  flag: RiskFlag;
  reason: string;
  /** For a version flag: whether the major moved (a person's call, even for an update bot). */
  major?: boolean;
  /**
   * `refused`: the API server refuses the update, so Argo CD's sync fails at the object (exit status 4).
   * `review`: a person must look (RBAC grows, privilege is added, reach widens, a delete under prune, an object
   * the sync deletes and creates, a registry or repository moves, a major version, ...). `note`: news only (a
   * policy that widens nothing, a version inside its major). Review risks set exit status 3 and hold an update
   * bot's pull request.
   */
  level: 'refused' | 'review' | 'note';
}

/** The level of a risk (see Risk.level); a network policy's is its own to say (networkPolicyRisk). */
export function levelOf(r: Pick<Risk, 'flag' | 'major'>): Risk['level'] {
  if (r.flag === 'refused') return 'refused';
  return r.flag === 'version' && r.major !== true ? 'note' : 'review';
}

/** The risk flags, most severe first: the order the report ranks them in. */
export const RISK_FLAGS = [
  'refused',
  'rbac',
  'privilege',
  'project',
  'network-policy',
  'delete',
  'not-pruned',
  'replaced',
  'immutable',
  'no-sync',
  'rollout',
  'stale',
  'hooks',
  'upgrade',
  'capabilities',
  'crd-version',
  'secret-target',
  'registry',
  'repo',
  'version',
] as const;
export type RiskFlag = (typeof RISK_FLAGS)[number];

/** Risks ranked: by flag severity, a cluster-admin grant first among RBAC, then by Application and object. */
export function rankRisks(list: readonly Risk[]): Risk[] {
  const weight = (r: Risk) => RISK_FLAGS.indexOf(r.flag) * 2 + (r.flag === 'rbac' && r.reason.includes('cluster-admin') ? 0 : 1);
  return [...list].sort((a, b) => weight(a) - weight(b) || a.app.localeCompare(b.app) || a.id.localeCompare(b.id));
}

/** Whether a risk needs a person: its level is review. */
export const needsPerson = (r: Risk) => r.level === 'review';

/** Whether the cluster refuses it: Argo CD's sync fails at the object. */
export const isRefused = (r: Risk) => r.level === 'refused';

export function compare(base: Snapshot, head: Snapshot): ResourceChange[] {
  const out: ResourceChange[] = [];
  const removal = removalOutcomes(base, head);
  for (const id of [...new Set([...base.objects.keys(), ...head.objects.keys()])].sort()) {
    const rawA = base.objects.get(id);
    // Under RespectIgnoreDifferences=true the sync sends what Argo CD ignores as the cluster holds it: no change there.
    const headB = head.objects.get(id);
    const rawB = headB && rawA ? sentOf(headB, rawA) : headB;
    // Secrets are compared masked: no value reaches a report, a comment or an artifact.
    const a = rawA && { ...rawA, object: masked(rawA.object, undefined) };
    const b = rawB && { ...rawB, object: masked(rawB.object, rawA?.object) };
    const { app, namespace, name } = idParts(id);
    // Shown as the head writes it (the base, for a delete): a move to another API version is a change of one object.
    const shown = (rawB ?? rawA)!.object;
    const kind = `${String(shown.apiVersion)}/${String(shown.kind)}`;
    if (!a) out.push({ app, id, kind, name, namespace, change: 'added', fields: [] });
    else if (!b) out.push({ app, id, kind, name, namespace, change: 'removed', fields: [], pruned: removal(id, rawA) });
    // Most objects are untouched by a change: equal as rendered (often the very object, from the parse and render caches), they need no walk.
    else if (!sameObject(a.object, b.object)) {
      const fields = fieldChanges(a.object, b.object);
      if (fields.length) out.push({ app, id, kind, name, namespace, change: 'changed', fields });
    }
  }
  return out;
}

const kindOf = (id: string) => idParts(id).kind;

/** Each grant of a role, one group, resource and verb at a time, the group spelled as Kubernetes does ("" is core). */
function rbacRules(o: unknown): Set<string> {
  const out = new Set<string>();
  for (const r of (valueAt(o, ['rules']) ?? []) as Record<string, unknown[]>[]) {
    if (Array.isArray(r.nonResourceURLs))
      for (const url of r.nonResourceURLs as string[]) for (const v of (r.verbs ?? []) as string[]) out.add(`nonResourceURL ${url} ${v}`);
    for (const g of (r.apiGroups ?? []) as string[])
      for (const res of (r.resources ?? []) as string[]) for (const v of (r.verbs ?? []) as string[]) out.add(`${JSON.stringify(g)} ${res} ${v}`);
  }
  return out;
}

const DELETE_RISK = new Set(['PersistentVolumeClaim', 'PersistentVolume', 'Namespace', 'CustomResourceDefinition', 'StatefulSet', 'Secret']);

type Flag = (f: Risk['flag'], reason: string, major?: boolean, level?: Risk['level']) => void;
type Applied = { app: string; prune: boolean; object: Record<string, unknown> } | undefined;
/** One change as the risk rules read it: the change, its kind and label, the object on each side, and where a risk goes. */
interface Judged {
  c: ResourceChange;
  kind: string;
  label: string;
  a: Applied;
  b: Applied;
  flag: Flag;
  /** The base's StorageClasses: what the cluster holds. */
  classes: ReturnType<typeof storageClasses>;
}

/**
 * What else a delete takes: a claim's volume goes with it where its class reclaims by Delete (the default), and a
 * StatefulSet's claims only where its persistentVolumeClaimRetentionPolicy says whenDeleted: Delete.
 */
function deleteTakes(kind: string, object: Record<string, unknown> | undefined, classes: Judged['classes']): string {
  if (kind === 'StatefulSet')
    return valueAt(object, ['spec', 'persistentVolumeClaimRetentionPolicy', 'whenDeleted']) === 'Delete'
      ? ' and the claims it made, with their data (whenDeleted: Delete)'
      : ' and its pods; the claims it made stay (whenDeleted: Retain), out of the repository';
  if (kind !== 'PersistentVolumeClaim') return '';
  const name = asText(valueAt(object, ['spec', 'storageClassName']) ?? classes.defaultClass ?? '');
  const cls = classes.byName.get(name);
  if (!cls) return `; its volume and data go too if its class${name ? ` ${name}` : ''} (not in the repository) reclaims by Delete, the default`;
  return (cls.reclaimPolicy ?? 'Delete') === 'Delete'
    ? ` and its data with it (StorageClass ${name} reclaims by Delete)`
    : `; its volume stays Released with its data (StorageClass ${name} reclaims by ${asText(cls.reclaimPolicy)})`;
}

/**
 * A hook that leaves the repository: Argo CD never prunes a hook (gitops-engine leaves live hooks out of a sync's
 * prune), so what its last run left stays, unless HookSucceeded deleted it after that run; the default policy,
 * BeforeHookCreation, deletes it only before the next run, which now never comes. A Skipped object was never applied.
 */
function removedHookRisk({ label, c, flag }: Judged, live: Record<string, unknown>): void {
  const lifecycle = facts.syncLifecycle(live);
  if (!lifecycle.hook) return;
  if (lifecycle.deletedOnSuccess)
    flag(
      'not-pruned',
      `${label}, a hook, is no longer in the repository: Argo CD never prunes a hook, and HookSucceeded deleted it after its last run; a last run that failed left it in the cluster`,
      undefined,
      'note',
    );
  else
    flag(
      'not-pruned',
      `${label}, a hook, is no longer in the repository: Argo CD never prunes a hook, and its delete policies (${facts.deletePolicies(live).join(', ')}) remove none after a successful run (BeforeHookCreation waits for a next run of app ${c.app}'s hook, which never comes): it stays in the cluster as its last run left it until someone deletes it`,
    );
}

/** Risks of what appears or goes: deletes under prune, what a sync leaves behind, bindings and roles that grow, a new Secret writer. */
function lifecycleRisks(judged: Judged): void {
  const { c, kind, label, a, b, flag } = judged;
  // Gone by its app's prune, or with its Application, which the change deletes.
  const how =
    c.pruned === 'deleted' ? `app ${c.app} prunes, so Argo CD removes it` : `app ${c.app} is deleted, and its resources finalizer removes what it runs`;
  if (c.change === 'removed' && isDeletion(c.pruned) && DELETE_RISK.has(kind) && a)
    flag('delete', `${label} is deleted: ${how}${deleteTakes(kind, a.object, judged.classes)}`);
  if (c.change === 'removed' && c.pruned === 'waits for confirmation')
    flag(
      'not-pruned',
      `${label} is no longer in the repository, and Prune=confirm holds its deletion: app ${c.app}'s sync stays Syncing until a person confirms the prune (the UI's Confirm Pruning, the CLI, or the annotation argocd.argoproj.io/deletion-approved on the Application)`,
    );
  if (c.change === 'removed' && c.pruned === 'never pruned' && a) removedHookRisk(judged, a.object);
  const left = c.change === 'removed' ? leftReason(label, c.app, c.pruned) : undefined;
  if (left) flag('not-pruned', left);
  if ((kind === 'ClusterRoleBinding' || kind === 'RoleBinding') && c.change !== 'removed') {
    const role = asText(valueAt(b?.object, ['roleRef', 'name']) ?? '');
    if (c.change === 'added') flag('rbac', `${label} is a new binding (to ${role})${role === 'cluster-admin' ? ': cluster-admin' : ''}`);
    else if (c.fields.some((f) => f.path.startsWith('subjects') || f.path.startsWith('roleRef')))
      flag('rbac', `${label} binds ${role} to other subjects${role === 'cluster-admin' ? ': cluster-admin' : ''}`);
  }
  for (const reason of argocdAccessReasons(label, a?.object, b?.object)) flag('rbac', reason);
  if ((kind === 'ClusterRole' || kind === 'Role') && c.change !== 'removed') {
    const [before, after] = [rbacRules(a?.object), rbacRules(b?.object)];
    const grown = [...after].filter((r) => !before.has(r));
    const shrunk = [...before].filter((r) => !after.has(r));
    if (grown.length) flag('rbac', `${label} grows: adds ${listed(grown)}${shrunk.length ? `; removes ${listed(shrunk)}` : ''}`);
  }
  if (NETWORK_POLICY_KINDS.has(kind)) {
    const { reason, level } = networkPolicyRisk({ change: c.change, kind, label, namespace: c.namespace }, a?.object, b?.object);
    flag('network-policy', reason, undefined, level);
  }
  if (b) for (const reason of privilegeReasons(kind, label, a?.object, b.object)) flag('privilege', reason);
  if (c.change === 'added' && kind === 'ExternalSecret')
    flag('secret-target', `${label} writes Secret ${asText(valueAt(b?.object, ['spec', 'target', 'name']) ?? c.name)}`);
}

/** Risks of an update: cluster upgrades, versions, registries, repositories, what a Secret writer writes, CRD versions. */
function updateRisks({ c, kind, label, a, b, flag }: Judged): void {
  const changed = (prefix: string) => c.fields.some((f) => f.path === prefix || f.path.startsWith(`${prefix}.`) || f.path.startsWith(`${prefix}[`));
  for (const { line, review } of upgradeRisk(kind, a?.object, b?.object)) flag('upgrade', `${label}: ${line}`, undefined, review ? 'review' : 'note');
  for (const { line, major: moved } of imageRisk(a?.object, b?.object)) flag('version', `${label}: ${line}`, moved);
  for (const line of registryRisk(a?.object, b?.object)) flag('registry', `${label}: ${line}`);
  if (kind === 'Application') {
    // Its AppProject says what it may deploy, where, and from which repositories: a move is a move of trust.
    for (const f of c.fields.filter((x) => x.path === 'spec.project'))
      flag(
        'project',
        `${label}: moves from project ${String(f.from)} to ${String(f.to)}, which now says what it may deploy, where, and from which repositories`,
      );
    for (const f of c.fields.filter((x) => /(^|\.)repoURL$/.test(x.path)))
      flag('repo', `${label}: ${f.path} moves from ${String(f.from)} to ${String(f.to)}: another chart or git repository, whatever its version`);
    // A chart's version moves only where the source is a chart on both sides: a source that became a git path (a
    // wrapper chart of the repository, say) or the other way round moves its repository, said above, not a version.
    // The field changes say so: the source's `chart` is there on one side only.
    const chartComesOrGoes = (source: string) => c.fields.some((x) => x.path === `${source}.chart` && (x.from === undefined || x.to === undefined));
    for (const f of c.fields.filter((x) => /targetRevision$/.test(x.path))) {
      const source = f.path.replace(/\.targetRevision$/, '');
      if (chartComesOrGoes(source)) continue;
      const step = chartStepRisk(facts.upgradesOneMinor(b?.object), String(f.from), String(f.to));
      if (step) flag('upgrade', `${label}: chart ${source} ${step}`, undefined, 'review');
      const moved = major(String(f.from)) !== major(String(f.to));
      flag('version', `${label}: chart ${source} ${String(f.from)} -> ${String(f.to)}${moved ? ' (a major version)' : ''}`, moved);
    }
  }
  if (kind === 'ExternalSecret' && (changed('spec.target') || changed('spec.data') || changed('spec.dataFrom')))
    flag(
      'secret-target',
      `${label} writes something else: ${c.fields
        .map((f) => f.path)
        .slice(0, 5)
        .join(', ')}`,
    );
  if (kind === 'CustomResourceDefinition') {
    const versions = (o: unknown) => (valueAt(o, ['spec', 'versions']) ?? []) as { name?: string; storage?: boolean }[];
    const kept = new Set(versions(b?.object).map((v) => v.name));
    // The version the cluster stores objects in cannot go at all (refusals.ts); any other may have stored some.
    const gone = versions(a?.object)
      .filter((v) => v.storage !== true && !kept.has(v.name))
      .map((v) => v.name);
    if (gone.length) flag('crd-version', `${label}: version ${gone.join(', ')} removed; objects stored in it become unreadable`);
  }
}

/**
 * An Application whose inputs changed (its values among them) and whose chart can read the API versions (it
 * names them, or renders values through tpl, which reaches them by any spelling): what it renders in the
 * cluster depends on the APIs the cluster serves, and the render here used the ones the repository declares.
 */
function capabilityRisks(base: Snapshot, head: Snapshot): Risk[] {
  const out: Risk[] = [];
  for (const app of head.capabilityReaders ?? []) {
    const [before, after] = [base.fingerprints?.get(app), head.fingerprints?.get(app)];
    if (before === undefined || before === after) continue;
    // Rendered once more with the built-in API versions alone: the same objects mean nothing it makes depends on them.
    const independent = head.apiDependent !== undefined && !head.apiDependent.has(app);
    out.push({
      app,
      id: `${app}|argoproj.io/Application|argocd|${app}`,
      flag: 'capabilities',
      level: independent ? 'note' : 'review',
      reason: independent
        ? `Application ${app} changed, and its chart can read the API versions; it renders the same with the cluster's built-in APIs alone, so nothing it makes depends on them`
        : `Application ${app} changed, and its chart can read the API versions (.Capabilities, or values rendered through tpl): what it renders depends on them, so the cluster renders it with the APIs it serves, here with those the repository declares (provides-crds, provides-crds-at-runtime)`,
    });
  }
  return out;
}

/**
 * A chart a wrapper chart of the repository depends on, at another version (its Chart.lock, or Chart.yaml): no object
 * names that version, so it is read from the two sides' chart faces; a major is a person's call, as for any chart,
 * and so is a step past the next minor where the wrapper's Application says its chart upgrades one minor at a time.
 */
function dependencyBumpRisks(base: Snapshot, head: Snapshot): Risk[] {
  const out: Risk[] = [];
  for (const [key, now] of head.charts ?? []) {
    const before = base.charts?.get(key);
    if (now.dependencyOf === undefined || !before || before.version === now.version) continue;
    const moved = major(before.version) !== major(now.version);
    const id = `${now.app}|argoproj.io/Application|argocd|${now.app}`;
    const what = `Application ${now.app}: chart ${now.chart}${now.alias === undefined ? '' : ` (as ${now.alias})`}, a dependency of the chart at ${now.dependencyOf},`;
    const step = chartStepRisk(now.oneMinor, before.version, now.version);
    if (step) out.push({ app: now.app, id, flag: 'upgrade', level: 'review', reason: `${what} ${step}` });
    out.push({
      app: now.app,
      id,
      flag: 'version',
      major: moved,
      level: levelOf({ flag: 'version', major: moved }),
      reason: `${what} ${before.version} -> ${now.version}${moved ? ' (a major version)' : ''}`,
    });
  }
  return out;
}

export function risks(changes: readonly ResourceChange[], base: Snapshot, head: Snapshot): Risk[] {
  const out: Risk[] = [];
  const classes = storageClasses(base);
  for (const c of changes) {
    const flag: Flag = (f, reason, major, level) =>
      out.push({ app: c.app, id: c.id, flag: f, reason, ...(major === undefined ? {} : { major }), level: level ?? levelOf({ flag: f, major }) });
    const kind = kindOf(c.id);
    const [a, b] = [base.objects.get(c.id), head.objects.get(c.id)];
    const label = objectLabel(kind, c.namespace, c.name);
    const judged: Judged = { c, kind, label, a, b, flag, classes };
    lifecycleRisks(judged);
    if (c.change === 'changed') updateRisks(judged);
  }
  const updates = [...updateRefusals(base, head, classes), ...rolloutRisks(base, head, changes)];
  // What starts a sync: every change, and every object an update risk names (a pod template changed only in a checksum).
  const touched = [...changes, ...updates.filter((r) => r.flag !== 'stale').map((r) => ({ ...r, change: 'changed' }))];
  out.push(...capabilityRisks(base, head), ...dependencyBumpRisks(base, head), ...updates, ...syncRisks(touched, base, head), ...adoptionRisks(base, head));
  const moved = changes.find((c) => c.change === 'changed' && kindOf(c.id) === 'ConfigMap' && c.name === facts.CLUSTER_FACTS_NAME);
  const window = moved && upgradeWindowRisk(base.objects.get(moved.id)?.object, head.objects.get(moved.id)?.object, changes.length - 1);
  if (moved && window)
    out.push({ app: moved.app, id: moved.id, flag: 'upgrade', reason: `ConfigMap ${moved.namespace}/${moved.name}: ${window}`, level: 'review' });
  return rankRisks(out);
}
