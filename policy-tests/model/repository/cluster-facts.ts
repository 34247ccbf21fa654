/**
 * The cluster facts the rest of the repository relies on, pinned once in
 * clusters/home/cluster-facts.yaml (a ConfigMap, so Argo CD can apply it and
 * in-cluster jobs can read it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readCni, type CniFacts } from './cni.ts';
import { readNodeNetwork, type NodeNetwork } from './node-network.ts';
import type { Resource } from '../core/manifest.ts';
import { perObject } from '../core/per-object.ts';
import { policyVersionMinor } from '../core/text.ts';
import { listFact, remoteBases, SEMVER, yamlFact, type FactsProblem } from './fact-lists.ts';
import { didYouMean } from '../core/did-you-mean.ts';
import {
  kubernetesMove,
  machineConfigOf,
  parseKubernetesVersion,
  talosEtcdOf,
  talosRunsKubernetes,
  talosKubernetesOf,
  talosMove,
  talosUpgradesOf,
  type MachineConfigFacts,
  type TalosEtcd,
  type TalosKubernetes,
  type TalosUpgrade,
  type VersionMove,
} from './talos-facts.ts';

export type { FactsProblem } from './fact-lists.ts';
export type { MachineConfigFacts, TalosEtcd, TalosKubernetes, TalosUpgrade, VersionMove } from './talos-facts.ts';
export { parseKubernetesVersion, talosRunsEtcd, talosRunsKubernetes } from './talos-facts.ts';

export const CLUSTER_FACTS_FILE = 'clusters/home/cluster-facts.yaml';
export const CLUSTER_FACTS_NAME = 'cluster-facts';

export interface ClusterFacts {
  kubernetesVersion: string;
  kubernetesMinor: number;
  talosVersion: string;
  nodeCount: number;
  controlPlaneCount: number;
  /** The nodes' CPU architecture as Go names it (`nodeArchitecture`), which the kubelet writes as kubernetes.io/arch; undefined where the facts do not say. */
  nodeArchitecture?: NodeArchitecture;
  repoURL: string;
  /** Branch every repo source tracks. */
  revision: string;
  /** What the cluster has that no file of this repository provides, each with the reason (Talos ships it, ...). */
  providedOutsideGit: OutsideGit[];
  /** Pod Security admission as the API server is configured: the levels for a namespace without labels, and the exempt namespaces. */
  podSecurity: PodSecurityFacts;
  /** The CNI and what it enforces (model/repository/cni.ts). */
  cni: CniFacts;
  /** The hosts a kustomization may fetch a remote base from, each listed with its reason; no other is ever looked up. */
  remoteBases: string[];
  /** The nodes' segment, gateway, VIP and addresses (model/repository/node-network.ts); undefined when the fact is missing or malformed. */
  nodeNetwork?: NodeNetwork;
  /** How many devices of each extended resource the nodes hold, cluster-wide (a GPU for gpu.intel.com/i915). */
  devices: ReadonlyMap<string, number>;
  /** The requests a day each secret store's backend allows, by `Kind/name` as ExternalSecrets name the store. */
  secretStores: ReadonlyMap<string, { dailyRequests: number; reason: string }>;
  /** The Kubernetes versions each Talos minor runs, as Talos' own compatibility package gives them (`talosKubernetes`). */
  talosKubernetes: readonly TalosKubernetes[];
  /** The etcd each Talos minor runs, as its constants give it (`talosEtcd`). */
  talosEtcd: readonly TalosEtcd[];
  /** The Talos a node may move to each Talos minor from, as its compatibility package gives it (`talosUpgrades`). */
  talosUpgrades: readonly TalosUpgrade[];
  /** What the nodes' Talos machine config sets that decides whether a pod runs (`machineConfig`): unsafe sysctls, control-plane scheduling. */
  machineConfig: MachineConfigFacts;
}

/** The architectures Talos builds its images for, as Go's GOARCH names them. */
export const NODE_ARCHITECTURES = ['amd64', 'arm64'] as const;
export type NodeArchitecture = (typeof NODE_ARCHITECTURES)[number];

export const POD_SECURITY_LEVELS = ['privileged', 'baseline', 'restricted'] as const;
export type PodSecurityLevel = (typeof POD_SECURITY_LEVELS)[number];

export interface PodSecurityFacts {
  defaults: {
    enforce: PodSecurityLevel;
    audit: PodSecurityLevel;
    warn: PodSecurityLevel;
    /** The policy version a mode's default is pinned to (`<mode>-version: v1.N`, its minor); a mode not here is "latest". */
    versions?: Partial<Record<'enforce' | 'audit' | 'warn', number>>;
  };
  exemptNamespaces: string[];
  /** Pods whose runtimeClassName is one of these are not judged by Pod Security (exemptions.runtimeClasses). */
  exemptRuntimeClasses: string[];
  /** Requests by these users are not judged by Pod Security (exemptions.usernames). */
  exemptUsernames: string[];
}

/** Kubernetes' own default when no AdmissionConfiguration sets one: nothing enforced. Used only when the fact is missing, which is itself a problem. */
const UNCONFIGURED: PodSecurityFacts = {
  defaults: { enforce: 'privileged', audit: 'privileged', warn: 'privileged' },
  exemptNamespaces: [],
  exemptRuntimeClasses: [],
  exemptUsernames: [],
};

export interface OutsideGit {
  kind: string;
  name: string;
  namespace?: string;
  reason: string;
  /** A Pod's labels: what a Service's selector finds it by. */
  labels?: Record<string, string>;
  /** A Secret's or ConfigMap's keys, where the hand that makes it is known: what a reference to one of them is held to. */
  keys?: string[];
}

export function findFactsResource(resources: readonly Resource[]): Resource | undefined {
  return resources.find((r) => r.file === CLUSTER_FACTS_FILE && r.kind === 'ConfigMap' && r.name === CLUSTER_FACTS_NAME);
}

/** Every key of the facts ConfigMap the gate reads. */
const FACT_KEYS = [
  ...['kubernetesVersion', 'talosVersion', 'talosKubernetes', 'talosEtcd', 'talosUpgrades', 'nodeCount', 'controlPlaneCount', 'nodeArchitecture'],
  ...['nodeNetwork', 'devices', 'machineConfig', 'secretStores', 'repoURL', 'revision', 'podSecurity', 'cni', 'providedOutsideGit', 'remoteBases'],
];

/**
 * Reads the facts ConfigMap, reporting every key that is missing or malformed. Facts are returned even when
 * some keys are bad, so one typo does not cascade into every check. Once per object: an unchanged file's
 * parsed object is shared by every view of the repository, and the result is never mutated.
 */
export function readClusterFacts(resource: Resource): { facts: ClusterFacts; problems: readonly FactsProblem[] } {
  return factsOf(resource.object);
}

const factsOf = perObject((object: Resource['object']): { facts: ClusterFacts; problems: readonly FactsProblem[] } => {
  const data = (object.data ?? {}) as Record<string, unknown>;
  const problems: FactsProblem[] = [];
  const text = (key: string): string => {
    const v = data[key];
    if (typeof v !== 'string' || v === '') problems.push({ key, message: `cluster fact "${key}" is missing` });
    return typeof v === 'string' ? v : '';
  };
  const count = (key: string): number => {
    const raw = text(key);
    const n = Number(raw);
    if (raw !== '' && !(Number.isInteger(n) && n > 0)) problems.push({ key, message: `cluster fact "${key}" must be a positive integer, got "${raw}"` });
    return n;
  };
  const kubernetesVersion = text('kubernetesVersion');
  const talosVersion = text('talosVersion');
  const version = parseKubernetesVersion(kubernetesVersion);
  if (kubernetesVersion && !version)
    problems.push({ key: 'kubernetesVersion', message: `kubernetesVersion "${kubernetesVersion}" is not an exact x.y.z version` });
  if (talosVersion && !SEMVER.test(talosVersion)) problems.push({ key: 'talosVersion', message: `talosVersion "${talosVersion}" is not an exact version` });
  const [nodeCount, controlPlaneCount] = [count('nodeCount'), count('controlPlaneCount')];
  const nodes = readNodeNetwork(data.nodeNetwork, { nodeCount, controlPlaneCount });
  const architecture = data.nodeArchitecture;
  if (architecture !== undefined && !NODE_ARCHITECTURES.includes(architecture as NodeArchitecture))
    problems.push({
      key: 'nodeArchitecture',
      message: `cluster fact "nodeArchitecture" must be one of ${NODE_ARCHITECTURES.join(', ')} (Go's names for what Talos builds), got ${JSON.stringify(architecture)}`,
    });
  for (const message of nodes.problems) problems.push({ key: 'nodeNetwork', message });
  const facts: ClusterFacts = {
    kubernetesVersion,
    kubernetesMinor: version ? version.minor : NaN,
    talosVersion,
    nodeCount,
    controlPlaneCount,
    ...(NODE_ARCHITECTURES.includes(architecture as NodeArchitecture) ? { nodeArchitecture: architecture as NodeArchitecture } : {}),
    repoURL: text('repoURL'),
    revision: text('revision'),
    providedOutsideGit: outsideGit(data.providedOutsideGit, problems),
    podSecurity: podSecurity(data.podSecurity, problems),
    cni: cniOf(data.cni, problems),
    remoteBases: remoteBases(data.remoteBases, problems),
    ...(nodes.network ? { nodeNetwork: nodes.network } : {}),
    devices: devicesOf(data.devices, problems),
    secretStores: secretStoresOf(data.secretStores, problems),
    talosKubernetes: talosKubernetesOf(data.talosKubernetes, problems),
    talosEtcd: talosEtcdOf(data.talosEtcd, problems),
    talosUpgrades: talosUpgradesOf(data.talosUpgrades, problems),
    machineConfig: machineConfigOf(data.machineConfig, problems),
  };
  // A key no reader asks for is a misspelt fact: what it says is read by nothing, and a default stands in its place.
  for (const key of Object.keys(data).filter((k) => !FACT_KEYS.includes(k)))
    problems.push({ key, message: `cluster fact "${key}" is none the gate reads${didYouMean(key, FACT_KEYS)}: what it says is read by nothing` });
  return { facts, problems };
});

function cniOf(raw: unknown, problems: FactsProblem[]): CniFacts {
  const { cni, problem } = readCni(raw);
  if (problem) problems.push({ key: 'cni', message: problem });
  return cni;
}

/** The `providedOutsideGit` fact: a YAML list in a string (a ConfigMap holds strings), each entry with its reason. */
function outsideGit(raw: unknown, problems: FactsProblem[]): OutsideGit[] {
  const list = yamlFact('providedOutsideGit', raw, problems);
  if (list === null) return [];
  if (!Array.isArray(list)) {
    problems.push({
      key: 'providedOutsideGit',
      message: 'cluster fact "providedOutsideGit" must be a YAML list of {kind, name, namespace?, reason, labels?, keys?}',
    });
    return [];
  }
  const out: OutsideGit[] = [];
  list.forEach((e: Record<string, unknown>, i) => {
    const str = (k: string) => (typeof e?.[k] === 'string' && e[k] !== '' ? (e[k] as string) : undefined);
    const [kind, name, reason] = [str('kind'), str('name'), str('reason')];
    if (!kind || !name) problems.push({ key: 'providedOutsideGit', message: `providedOutsideGit entry ${i + 1} needs a kind and a name` });
    else if (!reason)
      problems.push({
        key: 'providedOutsideGit',
        message: `providedOutsideGit entry ${i + 1} (${kind} ${name}) gives no reason: say what provides it outside git`,
      });
    else if (e.labels !== undefined && !stringMap(e.labels))
      problems.push({ key: 'providedOutsideGit', message: `providedOutsideGit entry ${i + 1} (${kind} ${name}): labels must map names to strings` });
    else if (e.keys !== undefined && !(Array.isArray(e.keys) && e.keys.every((k) => typeof k === 'string' && k !== '')))
      problems.push({ key: 'providedOutsideGit', message: `providedOutsideGit entry ${i + 1} (${kind} ${name}): keys must be a list of key names` });
    else
      out.push({
        kind,
        name,
        reason,
        ...(str('namespace') ? { namespace: str('namespace') } : {}),
        ...(e.labels !== undefined ? { labels: e.labels as Record<string, string> } : {}),
        ...(e.keys !== undefined ? { keys: e.keys as string[] } : {}),
      });
  });
  return out;
}

/**
 * The `devices` fact: a YAML list of {resource, count, reason}, the devices the nodes hold for a device plugin to
 * advertise (hardware no file here can show). Absent, the cluster holds none.
 */
function devicesOf(raw: unknown, problems: FactsProblem[]): Map<string, number> {
  const out = new Map<string, number>();
  const shape =
    'cluster fact "devices" must be a YAML list of {resource, count, reason}: each extended resource, how many devices the nodes hold, and what they are';
  listFact('devices', { raw, shape }, problems, ({ resource, count, reason }, refuse) => {
    if (typeof resource !== 'string' || !Number.isInteger(count) || (count as number) < 1 || typeof reason !== 'string' || reason.trim() === '')
      refuse(`: ${shape.slice(shape.indexOf('must'))}, count a positive integer`);
    else if (out.has(resource)) refuse(` names ${resource} again: give each resource once, with its total`);
    else out.set(resource, count as number);
  });
  return out;
}

/**
 * The `secretStores` fact: a YAML list of {kind, name, dailyRequests, reason}, what each store's backend allows a day
 * (a plan's limit no file here can show). Absent, no store is held to a budget.
 */
function secretStoresOf(raw: unknown, problems: FactsProblem[]): Map<string, { dailyRequests: number; reason: string }> {
  const out = new Map<string, { dailyRequests: number; reason: string }>();
  const shape =
    'cluster fact "secretStores" must be a YAML list of {kind, name, dailyRequests, reason}: each store, the requests a day its backend allows, and why';
  listFact('secretStores', { raw, shape }, problems, ({ kind, name, dailyRequests, reason }, refuse) => {
    const known = (kind === 'ClusterSecretStore' || kind === 'SecretStore') && typeof name === 'string';
    if (!known || !Number.isInteger(dailyRequests) || (dailyRequests as number) < 1 || typeof reason !== 'string' || reason.trim() === '')
      refuse(`: ${shape.slice(shape.indexOf('must'))}, kind ClusterSecretStore or SecretStore`);
    else out.set(`${kind}/${name}`, { dailyRequests: dailyRequests as number, reason });
  });
  return out;
}

/**
 * What a change to the cluster facts asks of the cluster, from the facts before it (`before`, the ConfigMap's
 * object) to the facts after it: each version it moves, Talos first (the nodes are upgraded before the Kubernetes
 * they run), judged with the rows of the facts after it, which describe the target.
 */
export function versionMoves(before: Resource['object'], after: Resource['object']): VersionMove[] {
  const [a, b] = [factsOf(before).facts, factsOf(after).facts];
  const moves: VersionMove[] = [];
  if (a.talosVersion !== b.talosVersion) moves.push(talosMove(a.talosVersion, b.talosVersion, b.talosUpgrades));
  if (a.kubernetesVersion !== b.kubernetesVersion) moves.push(kubernetesMove(a.kubernetesVersion, b.kubernetesVersion));
  return moves;
}

/**
 * When a change moves both the nodes' Talos and the cluster's Kubernetes, the order they can be moved in: a running
 * Talos refuses a machine config whose Kubernetes it does not run (RuntimeValidate: ValidateKubernetesImageTag,
 * KubernetesVersion.SupportedWith), so Talos goes first only if the new Talos runs the old Kubernetes, and
 * Kubernetes first only if the old Talos runs the new one (the rows of the facts after the change). Undefined when
 * not both move, or when either order works.
 */
export function upgradeOrder(before: Resource['object'], after: Resource['object']): { order?: string; refusal?: string; notJudged?: string } | undefined {
  const [a, b] = [factsOf(before).facts, factsOf(after).facts];
  if (a.talosVersion === b.talosVersion || a.kubernetesVersion === b.kubernetesVersion) return undefined;
  const rows = b.talosKubernetes;
  const talosFirst = talosRunsKubernetes({ talosVersion: b.talosVersion, kubernetesVersion: a.kubernetesVersion, talosKubernetes: rows });
  const kubernetesFirst = talosRunsKubernetes({ talosVersion: a.talosVersion, kubernetesVersion: b.kubernetesVersion, talosKubernetes: rows });
  if (talosFirst.verdict === 'runs' && kubernetesFirst.verdict === 'runs') return undefined;
  const unknown = [talosFirst, kubernetesFirst].find((v) => v.verdict === 'unknown');
  if (unknown) return { notJudged: `the cluster facts have no talosKubernetes row for Talos ${unknown.minor}, so the order of the two moves is not known` };
  const talosRuns = (talos: string, kubernetes: string, verdict: string) => `Talos ${talos} does not run Kubernetes ${kubernetes} (${verdict})`;
  if (talosFirst.verdict === 'runs') return { order: `upgrade Talos first: ${talosRuns(a.talosVersion, b.kubernetesVersion, kubernetesFirst.verdict)}` };
  if (kubernetesFirst.verdict === 'runs')
    return {
      order: `upgrade Kubernetes first: ${talosRuns(b.talosVersion, a.kubernetesVersion, talosFirst.verdict)}, and a running Talos refuses a machine config whose Kubernetes it does not run`,
    };
  return {
    refusal: `no order takes both in one change: ${talosRuns(b.talosVersion, a.kubernetesVersion, talosFirst.verdict)}, and ${talosRuns(a.talosVersion, b.kubernetesVersion, kubernetesFirst.verdict)}; move one a step at a time`,
  };
}

const stringMap = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/**
 * The `podSecurity` fact: the cluster-wide PodSecurityConfiguration (for Talos, its admissionControl entry) as a YAML
 * mapping in a string: `defaults: {enforce, audit, warn}`, each with an optional `<mode>-version`, and the exemptions
 * (`exemptNamespaces`, or the configuration's `exemptions: {namespaces, runtimeClasses, usernames}`).
 */
function podSecurity(raw: unknown, problems: FactsProblem[]): PodSecurityFacts {
  const say = (message: string) => problems.push({ key: 'podSecurity', message: `cluster fact "podSecurity"${message}` });
  const fail = (message: string): PodSecurityFacts => {
    say(message);
    return UNCONFIGURED;
  };
  if (raw === undefined)
    return fail(" is missing: state the API server's Pod Security defaults (Talos: enforce baseline, audit and warn restricted, kube-system exempt)");
  let value: any;
  try {
    value = typeof raw === 'string' ? parse(raw) : undefined;
  } catch (err) {
    return fail(` does not parse: ${(err as Error).message.split('\n')[0]}`);
  }
  const defaults = value?.defaults;
  const level = (mode: string): PodSecurityLevel | undefined =>
    (POD_SECURITY_LEVELS as readonly string[]).includes(defaults?.[mode]) ? defaults[mode] : undefined;
  const [enforce, audit, warn] = [level('enforce'), level('audit'), level('warn')];
  if (!enforce || !audit || !warn) return fail(` needs defaults.enforce, defaults.audit and defaults.warn, each one of ${POD_SECURITY_LEVELS.join(', ')}`);
  const versions: NonNullable<PodSecurityFacts['defaults']['versions']> = {};
  for (const mode of ['enforce', 'audit', 'warn'] as const) {
    const version = defaults[`${mode}-version`];
    if (version === undefined || version === 'latest') continue;
    const pinned = policyVersionMinor(version);
    // The API server does not start with it: a problem of the fact, the rest read on.
    if (pinned !== undefined) versions[mode] = pinned;
    else say(`: defaults.${mode}-version ${JSON.stringify(version)} is neither "latest" nor "v1.N"`);
  }
  const exemptions = value.exemptions ?? {};
  const names = (list: unknown, key: string): string[] | undefined => {
    if (list === undefined || list === null) return [];
    if (Array.isArray(list) && list.every((n) => typeof n === 'string')) return list;
    say(`: ${key} must be a list of names`);
    return undefined;
  };
  const [namespaces, fromExemptions, runtimeClasses, usernames] = [
    names(value.exemptNamespaces, 'exemptNamespaces'),
    ...(['namespaces', 'runtimeClasses', 'usernames'] as const).map((key) => names(exemptions[key], `exemptions.${key}`)),
  ];
  if (!namespaces || !fromExemptions || !runtimeClasses || !usernames) return UNCONFIGURED;
  return {
    defaults: { enforce, audit, warn, ...(Object.keys(versions).length ? { versions } : {}) },
    exemptNamespaces: [...new Set([...namespaces, ...fromExemptions])],
    exemptRuntimeClasses: runtimeClasses,
    exemptUsernames: usernames,
  };
}

/** The data of the cluster facts file of the checkout at `root`, read on its own (scripts, tests, benchmarks). */
function factsData(root: string): Record<string, unknown> {
  const facts = parse(readFileSync(join(root, CLUSTER_FACTS_FILE), 'utf8')) as { data?: Record<string, unknown> } | null;
  return facts?.data ?? {};
}

/**
 * The repository URL the cluster facts of the checkout at `root` name: what a fork changes, and what tests and
 * benchmarks that build Applications must use so that they hold on a fork too.
 */
export function factsRepoURL(root: string): string {
  const url = factsData(root).repoURL;
  if (typeof url !== 'string' || url === '') throw new Error(`${CLUSTER_FACTS_FILE} names no repoURL`);
  return url;
}

/** The cluster facts of the checkout at `root`, read on their own (scripts, tests); the gate's check names their problems. */
export function checkoutFacts(root: string): ClusterFacts {
  return factsOf({ data: factsData(root) } as Resource['object']).facts;
}

/** The minor version of Kubernetes 1.x the cluster facts of the checkout at `root` name. */
export function factsKubernetesMinor(root: string): number {
  const version = factsData(root).kubernetesVersion;
  const parsed = typeof version === 'string' ? parseKubernetesVersion(version) : undefined;
  if (parsed?.major !== 1) throw new Error(`${CLUSTER_FACTS_FILE} names no kubernetesVersion 1.x.y`);
  return parsed.minor;
}
