/** Where the pod template sits in each workload kind, so checks see every container the same way. */
import { dig, obj, objects } from './dig.ts';
import type { Resource } from './manifest.ts';
import type { PathSegment } from './positions.ts';
// semver's functions one by one: its index loads every module of the package (30 ms at each gate's start).
import clean from 'semver/functions/clean.js';
import compare from 'semver/functions/compare.js';
import { scalarText } from './text.ts';

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'CronJob', 'Job', 'Pod'] as const;
/** Kinds whose containers run indefinitely (and therefore need probes). */
export const LONG_RUNNING_KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Pod']);

type Obj = Record<string, unknown>;

export interface PodSpecRef {
  spec: Obj;
  at: PathSegment[];
}

export interface ContainerRef {
  container: Obj;
  name: string;
  at: PathSegment[];
  init: boolean;
}

/** A port a probe or a Service names, as a port of this container: its number, or undefined where it is another's or unknown. */
export function containerPort(c: ContainerRef, port: unknown): number | undefined {
  const ports = objects(c.container.ports);
  if (typeof port === 'string') return ports.find((p) => p.name === port)?.containerPort as number | undefined;
  // A number may be another container's port in the same pod: judged only where this container declares it.
  return typeof port === 'number' && ports.some((p) => p.containerPort === port) ? port : undefined;
}

export function podSpecPath(kind: string): PathSegment[] | undefined {
  if (kind === 'Pod') return ['spec'];
  if (kind === 'CronJob') return ['spec', 'jobTemplate', 'spec', 'template', 'spec'];
  if ((WORKLOAD_KINDS as readonly string[]).includes(kind)) return ['spec', 'template', 'spec'];
  return undefined;
}

export function podSpecOf(resource: Pick<Resource, 'kind' | 'object'>): PodSpecRef | undefined {
  const at = podSpecPath(resource.kind);
  const spec = at && dig(resource.object, at);
  return at && typeof spec === 'object' && spec !== null ? { spec: spec as Obj, at } : undefined;
}

export function containersOf(pod: PodSpecRef): ContainerRef[] {
  const list = (field: 'containers' | 'initContainers'): ContainerRef[] => {
    const raw = pod.spec[field];
    // A null item is what Go decodes as an empty container (no name, no image), which validation then refuses.
    return Array.isArray(raw)
      ? raw.map((c, i) => ({
          container: obj(c),
          name: scalarText((c as Obj)?.name ?? i),
          at: [...pod.at, field, i],
          init: field === 'initContainers',
        }))
      : [];
  };
  return [...list('initContainers'), ...list('containers')];
}

/**
 * Whether a container runs alongside the pod's app containers: an app container, or a native sidecar (an init
 * container with restartPolicy Always). A one-shot init container has exited before they start.
 */
export const runsAlongside = (c: ContainerRef): boolean => !c.init || c.container.restartPolicy === 'Always';

/** A container's command line: its `command` then its `args`, each as text. */
export const containerArgv = (container: Obj): string[] =>
  [...(Array.isArray(container.command) ? container.command : []), ...(Array.isArray(container.args) ? container.args : [])].map((a) => scalarText(a));

/** Each value of a flag as pflag reads a command line, in order, with the index of the word that holds it: `--name=value` or `--name value`. */
export function commandLineFlagEntries(args: readonly string[], name: string): { value: string; index: number }[] {
  return args.flatMap((a, i) =>
    a.startsWith(`--${name}=`)
      ? [{ value: a.slice(name.length + 3), index: i }]
      : a === `--${name}` && i + 1 < args.length
        ? [{ value: args[i + 1]!, index: i + 1 }]
        : [],
  );
}

/** Each value of a flag as pflag reads a command line, in order: `--name=value` or `--name value`. */
export const commandLineFlagValues = (args: readonly string[], name: string): string[] => commandLineFlagEntries(args, name).map((e) => e.value);

/** A flag's value as pflag reads a command line, the last one given; undefined where absent. */
export const commandLineFlag = (args: readonly string[], name: string): string | undefined => commandLineFlagValues(args, name).at(-1);

/** A container's variables from its `env` as the kubelet sets them (the last entry of a name wins): null where one comes from a reference. */
export function containerEnv(container: Obj): Map<string, string | null> {
  const env = Array.isArray(container.env) ? container.env : [];
  return new Map(
    env
      .filter((e): e is Obj => typeof e === 'object' && e !== null && typeof (e as Obj).name === 'string')
      .map((e) => [e.name as string, e.valueFrom !== undefined ? null : scalarText(e.value ?? '')]),
  );
}

/** Every container of every workload among `resources`, with its pod spec. */
export function* workloadContainers(resources: readonly Resource[]): Generator<{ resource: Resource; pod: PodSpecRef; c: ContainerRef }> {
  for (const resource of resources) {
    const pod = podSpecOf(resource);
    if (!pod) continue;
    for (const c of containersOf(pod)) yield { resource, pod, c };
  }
}

/** The prefix of an exemption annotation: `gate.homelab-gitops/exempt-<check id>: <reason>`. */
export const EXEMPTION_PREFIX = 'gate.homelab-gitops/exempt-';

/**
 * A workload's annotations as the gate reads them: its pod template's, then its own over them (a chart often lets
 * values reach only podAnnotations).
 */
export function workloadAnnotations(resource: Resource): Record<string, unknown> {
  const own = dig(resource.object, ['metadata', 'annotations']);
  const at = podSpecPath(resource.kind);
  const pod = at && resource.kind !== 'Pod' ? dig(resource.object, [...at.slice(0, -1), 'metadata', 'annotations']) : undefined;
  const map = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  return { ...map(pod), ...map(own) };
}

/** The taint Talos (like kubeadm) puts on every control-plane node: key, empty value, NoSchedule. */
export const CONTROL_PLANE_TAINT = 'node-role.kubernetes.io/control-plane';

/**
 * core/v1's Toleration.ToleratesTaint: the effect (or none), the key (or none), and the operator: Equal (or none)
 * compares the values, Exists takes any. Gt and Lt compare integers only behind the TaintTolerationComparisonOperators
 * feature gate, which the gate takes as off: such a toleration tolerates nothing.
 */
export function toleratesTaint(toleration: unknown, taint: unknown): boolean {
  const t = (toleration ?? {}) as Record<string, unknown>;
  const n = (taint ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  if (text(t.effect) !== '' && text(t.effect) !== text(n.effect)) return false;
  if (text(t.key) !== '' && text(t.key) !== text(n.key)) return false;
  if (text(t.operator) === '' || t.operator === 'Equal') return text(t.value) === text(n.value);
  return t.operator === 'Exists';
}

/**
 * Whether a pod's tolerations let it onto a control-plane node, matched as the scheduler matches a toleration to
 * that taint: the key (or an empty key with Exists), the effect (or none), and Exists or an empty value.
 */
export function toleratesControlPlane(tolerations: unknown): boolean {
  return Array.isArray(tolerations) && tolerations.some((t) => toleratesTaint(t, { key: CONTROL_PLANE_TAINT, effect: 'NoSchedule' }));
}

/**
 * The most pods a workload keeps at once: its replicas, and during a Deployment's rolling update its surge on top
 * (maxSurge, 25 % by default, a percentage rounded up, as the controller counts it); a Job's parallelism. Undefined
 * for a DaemonSet (one pod per node it lands on) and for a count that is not a plain number.
 */
export function podsAtOnce(resource: Pick<Resource, 'kind' | 'object'>): number | undefined {
  const count = (path: string[], otherwise: number): number | undefined => {
    const v = dig(resource.object, path) ?? otherwise;
    return Number.isInteger(v) && (v as number) >= 0 ? (v as number) : undefined;
  };
  switch (resource.kind) {
    case 'Pod':
      return 1;
    case 'Job':
      return count(['spec', 'parallelism'], 1);
    case 'CronJob':
      return count(['spec', 'jobTemplate', 'spec', 'parallelism'], 1);
    case 'StatefulSet':
    case 'ReplicaSet':
      return count(['spec', 'replicas'], 1);
    case 'Deployment': {
      const replicas = count(['spec', 'replicas'], 1);
      const surge = replicas === undefined ? undefined : surgePods(resource, replicas);
      return replicas === undefined || surge === undefined ? undefined : replicas + surge;
    }
    default:
      return undefined;
  }
}

/**
 * An IntOrString against a total, as apimachinery's GetScaledValueFromIntOrPercent reads it: an integer as it is, a
 * percentage of the total rounded up or down; undefined for anything else.
 */
export function scaledIntOrPercent(value: unknown, total: number, roundUp: boolean): number | undefined {
  if (Number.isInteger(value)) return value as number;
  const percent = typeof value === 'string' ? /^(\d+)%$/.exec(value) : null;
  return percent ? (roundUp ? Math.ceil : Math.floor)((total * Number(percent[1])) / 100) : undefined;
}

/** A count the controller takes only when it is not negative. */
const notNegative = (n: number | undefined): number | undefined => (n !== undefined && n >= 0 ? n : undefined);

/** The pods a Deployment's rolling update adds above its replicas (none with Recreate); undefined when unreadable. */
export function surgePods(deployment: Pick<Resource, 'object'>, replicas: number): number | undefined {
  if (dig(deployment.object, ['spec', 'strategy', 'type']) === 'Recreate') return 0;
  return notNegative(scaledIntOrPercent(dig(deployment.object, ['spec', 'strategy', 'rollingUpdate', 'maxSurge']) ?? '25%', replicas, true));
}

/**
 * The pods a Deployment's rolling update may take away before new ones are ready (maxUnavailable, 25 % by default, a
 * percentage rounded down, as the controller counts it); undefined when it is not a plain number or percentage.
 */
export function unavailablePods(deployment: Pick<Resource, 'object'>, replicas: number): number | undefined {
  return notNegative(scaledIntOrPercent(dig(deployment.object, ['spec', 'strategy', 'rollingUpdate', 'maxUnavailable']) ?? '25%', replicas, false));
}

/** An image reference's parts: the repository it names (registry and path), its tag and its digest. */
export function imageParts(image: string): { name: string; tag?: string; digest?: string } {
  const [nameAndTag, digest] = image.split('@', 2) as [string, string | undefined];
  const slash = nameAndTag.lastIndexOf('/');
  // A colon after the last slash opens the tag; one before it is a registry's port.
  const colon = nameAndTag.indexOf(':', slash + 1);
  return { name: colon === -1 ? nameAndTag : nameAndTag.slice(0, colon), tag: colon === -1 ? undefined : nameAndTag.slice(colon + 1), digest };
}

/** The release an image's tag names (`v3.40.4` is 3.40.4), or undefined when it names none (`latest`, a build id). */
export const imageRelease = (image: string): string | undefined => clean(imageParts(image).tag ?? '') ?? undefined;

/** Two releases (x.y.z) in semver's order: negative when `a` comes first, zero when equal, positive after. */
export const compareReleases = (a: string, b: string): number => compare(a, b);

/** The capabilities the runtime gives a container by default (containerd's and CRI-O's set, as Docker's). */
export const RUNTIME_DEFAULT_CAPABILITIES: readonly string[] = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'NET_RAW',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];

/**
 * Every capability runc knows (moby/sys/capability's list, CAP_CHOWN to CAP_CHECKPOINT_RESTORE, Linux 5.9 on, which
 * Talos' kernels have passed), as Kubernetes writes them: without `CAP_`.
 */
export const LINUX_CAPABILITIES: ReadonlySet<string> = new Set(
  [
    'CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE NET_BIND_SERVICE',
    'NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN',
    'SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE',
    'MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE',
  ]
    .join(' ')
    .split(' '),
);

/**
 * A capability as containerd's CRI reads it (WithCapabilities): upper case, `net_admin` is NET_ADMIN. It writes
 * `CAP_` before the name itself, so `CAP_NET_ADMIN` is CAP_CAP_NET_ADMIN, a capability runc does not know.
 */
export const capabilityName = (raw: unknown): string => scalarText(raw).toUpperCase();

/** The capabilities a container starts with: the runtime's defaults less what it drops (ALL drops every one), plus what it adds. */
export function capabilitiesOf(container: Record<string, unknown>): Set<string> {
  const list = (field: 'add' | 'drop') => {
    const v = dig(container, ['securityContext', 'capabilities', field]);
    return Array.isArray(v) ? v.map(capabilityName) : [];
  };
  const drop = new Set(list('drop'));
  const held = new Set(drop.has('ALL') ? [] : RUNTIME_DEFAULT_CAPABILITIES.filter((c) => !drop.has(c)));
  for (const c of list('add')) held.add(c);
  return held;
}

/** What a HorizontalPodAutoscaler scales: its scaleTargetRef's kind and name, where both are names. */
export function scaleTargetOf(autoscaler: unknown): { kind: string; name: string } | undefined {
  const [kind, name] = [dig(autoscaler, ['spec', 'scaleTargetRef', 'kind']), dig(autoscaler, ['spec', 'scaleTargetRef', 'name'])];
  return typeof kind === 'string' && typeof name === 'string' ? { kind, name } : undefined;
}

/** A workload's key among the targets autoscalers scale: its namespace, kind and name. */
export const scaledKey = (namespace: string, kind: string, name: string): string => `${namespace}/${kind}/${name}`;

/** The key of what an autoscaler in `namespace` scales (`scaledKey`), or undefined where it names none. */
export function scaleTargetKey(namespace: string, autoscaler: unknown): string | undefined {
  const target = scaleTargetOf(autoscaler);
  return target && scaledKey(namespace, target.kind, target.name);
}
