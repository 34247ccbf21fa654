/**
 * What each Talos minor runs, as Talos itself decides: the Kubernetes versions its compatibility package allows
 * (`talosKubernetes`), the etcd its constants name (`talosEtcd`) and the Talos a node may move to it from
 * (`talosUpgrades`). Each is a table of the cluster facts, a row per Talos minor with where it was read, and a minor
 * without a row is not known. Beside them, how a Kubernetes version is read and whether the pinned Talos runs it, and
 * what of the nodes' machine config decides whether a pod runs (`machineConfig`).
 */
import { compareReleases } from '../core/workloads.ts';
import { listFact, SEMVER, yamlFact, type FactsProblem } from './fact-lists.ts';

/** One Talos minor's Kubernetes range: from `from`, up to `below` (not inclusive), read from `source`. */
export interface TalosKubernetes {
  talos: string;
  from: string;
  below: string;
  source: string;
}

/** The etcd one Talos minor runs on its control plane (DefaultEtcdVersion), read from `source`. */
export interface TalosEtcd {
  talos: string;
  etcd: string;
  source: string;
}

/**
 * The Talos releases a node may run to move to one Talos minor with `talosctl upgrade`, as that minor's installer
 * decides (compatibility.TalosVersion.UpgradeableFrom): from `from` (MinimumHostUpgradeVersion), below `below`
 * (MaximumHostDowngradeVersion, not inclusive: a node that new cannot come back down), never one of `denied`
 * (DeniedHostUpgradeVersions); read from `source`.
 */
export interface TalosUpgrade {
  talos: string;
  from: string;
  below: string;
  denied: string[];
  source: string;
}

const release = (v: unknown): v is string => typeof v === 'string' && SEMVER.test(v);

/**
 * A fact that is a table of Talos minors (`talosKubernetes`, `talosEtcd`): each row a minor (1.13), what it runs as
 * `fields` reads it (undefined when malformed), and where that was read; one row per minor.
 */
function talosRows<T extends { talos: string; source: string }>(
  key: string,
  { raw, shape }: { raw: unknown; shape: string },
  problems: FactsProblem[],
  fields: (e: Record<string, unknown>) => Omit<T, 'talos' | 'source'> | undefined,
): T[] {
  const out: T[] = [];
  listFact(key, { raw, shape }, problems, (e, refuse) => {
    const { talos, source } = e;
    const read = fields(e);
    if (typeof talos !== 'string' || !/^\d+\.\d+$/.test(talos) || !read || typeof source !== 'string' || source.trim() === '')
      refuse(`: ${shape.slice(shape.indexOf('must'))}`);
    else if (out.some((r) => r.talos === talos)) refuse(` names Talos ${talos} again`);
    else out.push({ ...read, talos, source } as T);
  });
  return out;
}

/**
 * The `talosKubernetes` fact: a YAML list of {talos, kubernetes: {from, below}, source}, each Talos minor's range
 * as its machinery's compatibility package sets it (MinimumKubernetesVersion, and MaximumKubernetesVersion, which
 * it does not include). Absent, no Talos minor's range is known.
 */
export function talosKubernetesOf(raw: unknown, problems: FactsProblem[]): TalosKubernetes[] {
  const shape =
    'cluster fact "talosKubernetes" must be a YAML list of {talos, kubernetes: {from, below}, source}: a Talos minor (1.13), the Kubernetes versions it runs (x.y.z, below not included), and where that was read';
  return talosRows<TalosKubernetes>('talosKubernetes', { raw, shape }, problems, ({ kubernetes }) => {
    const { from, below } = (kubernetes ?? {}) as Record<string, unknown>;
    return release(from) && release(below) ? { from, below } : undefined;
  });
}

/**
 * The `talosEtcd` fact: a YAML list of {talos, etcd, source}, the etcd each Talos minor runs (its constants'
 * DefaultEtcdVersion, which the machine config does not override here). Absent, no Talos minor's etcd is known.
 */
export function talosEtcdOf(raw: unknown, problems: FactsProblem[]): TalosEtcd[] {
  const shape =
    'cluster fact "talosEtcd" must be a YAML list of {talos, etcd, source}: a Talos minor (1.13), the etcd version it runs (x.y.z), and where that was read';
  return talosRows<TalosEtcd>('talosEtcd', { raw, shape }, problems, ({ etcd }) => (release(etcd) ? { etcd } : undefined));
}

/**
 * The `talosUpgrades` fact: a YAML list of {talos, host: {from, below, denied?}, source}, the Talos a node may run to
 * move to each minor, as that minor's compatibility package sets it. Absent, no Talos minor's is known.
 */
export function talosUpgradesOf(raw: unknown, problems: FactsProblem[]): TalosUpgrade[] {
  const shape =
    'cluster fact "talosUpgrades" must be a YAML list of {talos, host: {from, below, denied}, source}: a Talos minor (1.13), the Talos a node may run to move to it (x.y.z, below not included, denied a list of x.y.z it refuses, may be left out), and where that was read';
  return talosRows<TalosUpgrade>('talosUpgrades', { raw, shape }, problems, ({ host }) => {
    const { from, below, denied = [] } = (host ?? {}) as Record<string, unknown>;
    return release(from) && release(below) && Array.isArray(denied) && denied.every(release) ? { from, below, denied } : undefined;
  });
}

/**
 * What the nodes' Talos machine config sets that decides whether a pod the API server admitted runs, at the paths
 * Talos reads it: the kubelet's `machine.kubelet.extraConfig` (merged into the KubeletConfiguration Talos writes,
 * NewKubeletConfiguration), `machine.nodeLabels`, `machine.features.kubePrism`,
 * `cluster.allowSchedulingOnControlPlanes`, `cluster.proxy.disabled`, `cluster.network.cni.name` and the controller
 * manager's and the scheduler's `extraArgs.bind-address`.
 */
export interface MachineConfigFacts {
  /** The sysctls, or patterns ending in `*`, a pod may set beyond the safe ones (allowedUnsafeSysctls; Talos sets none). */
  allowedUnsafeSysctls: string[];
  /** Whether the control-plane nodes run workloads: false (Talos' default) taints them node-role.kubernetes.io/control-plane:NoSchedule. */
  allowSchedulingOnControlPlanes: boolean;
  /** The labels the machine config gives the nodes (machine.nodeLabels), beside Talos' and the kubelet's own. */
  nodeLabels: Readonly<Record<string, string>>;
  /**
   * KubePrism (machine.features.kubePrism): the API server on localhost at `port` on every node, where `enabled`. The
   * config type's default is off (an absent `enabled`); `talosctl gen config` writes it on, port 7445, and an absent
   * port is 7445 (v1alpha1_features.go).
   */
  kubePrism: { enabled: boolean; port: number };
  /** Whether Talos runs no kube-proxy (cluster.proxy.disabled; it runs one unless told not to, ProxyConfig.Enabled). */
  proxyDisabled: boolean;
  /** The CNI Talos itself deploys (cluster.network.cni.name): flannel where the config names none, custom, or none. */
  cni: 'flannel' | 'custom' | 'none';
  /**
   * Where the controller manager and the scheduler listen (cluster.controllerManager / cluster.scheduler
   * .extraArgs.bind-address): 127.0.0.1 as Talos starts them (control_plane_static_pod.go), an extra argument over it.
   */
  bindAddress: { controllerManager: string; scheduler: string };
}

const TALOS_CNIS = ['flannel', 'custom', 'none'] as const;

/** KubePrism's port where the machine config names none (defaultKubePrismPort). */
export const KUBEPRISM_DEFAULT_PORT = 7445;

const TALOS_DEFAULTS: MachineConfigFacts = {
  allowedUnsafeSysctls: [],
  allowSchedulingOnControlPlanes: false,
  nodeLabels: {},
  kubePrism: { enabled: false, port: KUBEPRISM_DEFAULT_PORT },
  proxyDisabled: false,
  cni: 'flannel',
  bindAddress: { controllerManager: '127.0.0.1', scheduler: '127.0.0.1' },
};
const READ = [
  'machine.kubelet.extraConfig.allowedUnsafeSysctls',
  'machine.nodeLabels',
  'machine.features.kubePrism.enabled',
  'machine.features.kubePrism.port',
  'cluster.allowSchedulingOnControlPlanes',
  'cluster.proxy.disabled',
  'cluster.network.cni.name',
  'cluster.controllerManager.extraArgs.bind-address',
  'cluster.scheduler.extraArgs.bind-address',
];
const READ_PATHS = `${READ.slice(0, -1).join(', ')} and ${READ.at(-1)}`;
/** Whether `path` leads to a path the gate reads (the root, `machine`, `machine.kubelet`, ...). */
const leadsToRead = (path: string) => path === '' || READ.some((p) => p.startsWith(`${path}.`));

/**
 * The `machineConfig` fact: the part of the nodes' Talos machine config the gate reads, as YAML at Talos' own paths
 * (`machine.kubelet.extraConfig.allowedUnsafeSysctls`, a list of names; `machine.nodeLabels`, a map of labels every node
 * is given; `machine.features.kubePrism.enabled` and `.port`; `cluster.allowSchedulingOnControlPlanes`;
 * `cluster.proxy.disabled`; `cluster.network.cni.name`; `cluster.controllerManager.extraArgs.bind-address` and
 * `cluster.scheduler.extraArgs.bind-address`).
 * What it leaves out is Talos' default; any other key is a problem, so a misspelt one is not read as the default.
 */
export function machineConfigOf(raw: unknown, problems: FactsProblem[]): MachineConfigFacts {
  const value = yamlFact('machineConfig', raw, problems);
  if (value === null) return TALOS_DEFAULTS;
  const say = (message: string) => problems.push({ key: 'machineConfig', message: `cluster fact "machineConfig"${message}` });
  const out = { ...TALOS_DEFAULTS };
  const walk = (node: unknown, path: string): void => {
    if (path === 'machine.kubelet.extraConfig.allowedUnsafeSysctls') {
      if (Array.isArray(node) && node.every((n) => typeof n === 'string')) out.allowedUnsafeSysctls = node;
      else say(`: ${path} must be a list of sysctl names or patterns ending in *`);
    } else if (path === 'machine.nodeLabels') {
      if (node && typeof node === 'object' && !Array.isArray(node) && Object.values(node).every((v) => typeof v === 'string'))
        out.nodeLabels = node as Record<string, string>;
      else say(`: ${path} must map label keys to string values`);
    } else if (path === 'cluster.allowSchedulingOnControlPlanes') {
      if (typeof node === 'boolean') out.allowSchedulingOnControlPlanes = node;
      else say(`: ${path} must be true or false`);
    } else if (path === 'cluster.controllerManager.extraArgs.bind-address' || path === 'cluster.scheduler.extraArgs.bind-address') {
      const which = path.startsWith('cluster.controllerManager') ? 'controllerManager' : 'scheduler';
      if (typeof node === 'string' && node !== '') out.bindAddress = { ...out.bindAddress, [which]: node };
      else say(`: ${path} must be an address`);
    } else if (path === 'cluster.network.cni.name') {
      if (TALOS_CNIS.includes(node as (typeof TALOS_CNIS)[number])) out.cni = node as (typeof TALOS_CNIS)[number];
      else say(`: ${path} must be ${TALOS_CNIS.join(', ')}`);
    } else if (path === 'cluster.proxy.disabled') {
      if (typeof node === 'boolean') out.proxyDisabled = node;
      else say(`: ${path} must be true or false`);
    } else if (path === 'machine.features.kubePrism.enabled') {
      if (typeof node === 'boolean') out.kubePrism = { ...out.kubePrism, enabled: node };
      else say(`: ${path} must be true or false`);
    } else if (path === 'machine.features.kubePrism.port') {
      // ServerPort 0 is the default port, as Port() reads it.
      if (Number.isInteger(node) && (node as number) >= 0 && (node as number) <= 65535)
        out.kubePrism = { ...out.kubePrism, port: (node as number) || KUBEPRISM_DEFAULT_PORT };
      else say(`: ${path} must be a port number`);
    } else if (node && typeof node === 'object' && !Array.isArray(node) && leadsToRead(path))
      for (const [key, child] of Object.entries(node)) walk(child, path ? `${path}.${key}` : key);
    else say(path ? `: ${path} is not read by the gate, which reads ${READ_PATHS} alone` : ` must be a YAML mapping of the machine config's ${READ_PATHS}`);
  };
  walk(value, '');
  return out;
}

/** The minor (1.13) of the pinned Talos, or the fact as written when it is no version. */
export function talosMinor(talosVersion: string): string {
  const talos = SEMVER.exec(talosVersion);
  return talos ? `${talos[1]}.${talos[2]}` : talosVersion;
}

/** The etcd the pinned Talos runs, with its minor; no row when the facts have none for that minor. */
export function talosRunsEtcd(facts: { talosVersion: string; talosEtcd: readonly TalosEtcd[] }): { minor: string; row?: TalosEtcd } {
  const minor = talosMinor(facts.talosVersion);
  const row = facts.talosEtcd.find((r) => r.talos === minor);
  return row ? { minor, row } : { minor };
}

/**
 * A Kubernetes version as the facts and `--kubernetes-version` give it: x.y.z, or x.y for x.y.0, a leading v allowed.
 * The one parser of it: Helm's --kube-version, the schema layer, Pod Security and built-in validation all follow it.
 */
export function parseKubernetesVersion(text: string, { patchRequired = true } = {}): { version: string; major: number; minor: number } | undefined {
  const m = (patchRequired ? SEMVER : /^v?(\d+)\.(\d+)(?:\.(\d+))?$/).exec(text);
  if (!m) return undefined;
  return { version: `${m[1]}.${m[2]}.${m[3] ?? '0'}`, major: Number(m[1]), minor: Number(m[2]) };
}

/**
 * Whether Talos runs this Kubernetes version, as its compatibility package decides (`SupportedWith`): too old below
 * the minor's minimum, too new from its maximum on; unknown when the facts have no row for the minor.
 */
export function talosRunsKubernetes(facts: { talosVersion: string; kubernetesVersion: string; talosKubernetes: readonly TalosKubernetes[] }): {
  verdict: 'runs' | 'too old' | 'too new' | 'unknown';
  minor: string;
  row?: TalosKubernetes;
} {
  const minor = talosMinor(facts.talosVersion);
  const row = facts.talosKubernetes.find((r) => r.talos === minor);
  const kubernetes = parseKubernetesVersion(facts.kubernetesVersion)?.version;
  if (!row || !kubernetes) return { verdict: 'unknown', minor };
  if (compareReleases(kubernetes, row.from) < 0) return { verdict: 'too old', minor, row };
  if (compareReleases(kubernetes, row.below) >= 0) return { verdict: 'too new', minor, row };
  return { verdict: 'runs', minor, row };
}

/** One version a change to the facts moves, judged as the tool that makes the move judges it. */
export interface VersionMove {
  what: 'Kubernetes' | 'Talos';
  from: string;
  to: string;
  /** Whether the minor (or major) moves: a cluster upgrade, not a patch. */
  minorMoved: boolean;
  /** Why the tool refuses the move; absent when it makes it. */
  refusal?: string;
  /** Why the move cannot be judged (the facts lack the target's row); absent when it is judged. */
  notJudged?: string;
}

/**
 * How a release moves from `from` to `to` by its major and minor (x.y.z, a leading v allowed): within its minor, to
 * the next minor, past the next (`skip`), back a minor, or to another major; `unread` when either is no release.
 * What a tool that upgrades one minor at a time judges (talosctl upgrade-k8s, Rook's upgrade guide).
 */
export function minorStep(from: string, to: string): { step: 'same' | 'next' | 'skip' | 'back' | 'major' | 'unread'; next?: string; path?: string } {
  const [a, b] = [SEMVER.exec(from), SEMVER.exec(to)];
  if (!a || !b) return { step: 'unread' };
  const [fromMinor, toMinor] = [Number(a[2]), Number(b[2])];
  const at = { next: `${a[1]}.${fromMinor + 1}`, path: `${a[1]}.${fromMinor}->${b[1]}.${toMinor}` };
  if (a[1] !== b[1]) return { step: 'major', ...at };
  if (toMinor === fromMinor) return { step: 'same', ...at };
  return { step: toMinor < fromMinor ? 'back' : toMinor === fromMinor + 1 ? 'next' : 'skip', ...at };
}

/** The start of a move: what moves, whether its minor does (and how), and not judged when either version is no release. */
function startMove(what: VersionMove['what'], from: string, to: string): { move: VersionMove; step: ReturnType<typeof minorStep> } {
  const step = minorStep(from, to);
  const move: VersionMove = { what, from, to, minorMoved: step.step !== 'same' };
  return { move: step.step === 'unread' ? { ...move, notJudged: `${SEMVER.test(from) ? to : from} is no x.y.z version` } : move, step };
}

/**
 * A move of the cluster's Kubernetes, as `talosctl upgrade-k8s` takes it: siderolabs/go-kubernetes' upgrade path
 * (upgrade.Path.IsSupported) lists each minor to itself and to the next one only, so a move skips no minor and
 * never goes back one. Whether the pinned Talos runs the target at all is the gate's (cluster-facts).
 */
export function kubernetesMove(from: string, to: string): VersionMove {
  const { move, step } = startMove('Kubernetes', from, to);
  const refuses = `talosctl upgrade-k8s refuses the path ${step.path}`;
  const refusal = {
    major: `${refuses}: it never changes the major`,
    back: `${refuses}: it never takes Kubernetes back a minor (a control plane cannot downgrade)`,
    skip: `${refuses}: it moves Kubernetes one minor at a time, so upgrade to ${step.next} first`,
  }[step.step as 'major' | 'back' | 'skip'];
  return refusal ? { ...move, refusal } : move;
}

/**
 * A move of the nodes' Talos, as `talosctl upgrade` takes it: the target minor's installer refuses a node older than
 * its row's `from`, one from its `below` on (too new to come down to it), and any release its row denies. Without a
 * row for the target minor the move is not judged.
 */
export function talosMove(from: string, to: string, rows: readonly TalosUpgrade[]): VersionMove {
  const { move } = startMove('Talos', from, to);
  if (move.notJudged) return move;
  const minor = talosMinor(to);
  const row = rows.find((r) => r.talos === minor);
  if (!row)
    return { ...move, notJudged: `the cluster facts have no talosUpgrades row for Talos ${minor}: add it, read from its compatibility package at ${to}` };
  const host = from.replace(/^v/, '');
  const installer = `the Talos ${minor} installer (talosctl upgrade) refuses a node on ${from}`;
  if (compareReleases(host, row.from) < 0) return { ...move, refusal: `${installer}: too old, it upgrades from ${row.from} on (${row.source})` };
  if (compareReleases(host, row.below) >= 0)
    return { ...move, refusal: `${installer}: too new to come down to it, it takes nodes below ${row.below} (${row.source})` };
  if (row.denied.some((d) => compareReleases(host, d.replace(/^v/, '')) === 0))
    return { ...move, refusal: `${installer}: that release is denied (${row.source})` };
  return move;
}
