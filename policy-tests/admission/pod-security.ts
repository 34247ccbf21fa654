/**
 * Pod Security admission: the Pod Security Standards (baseline and
 * restricted) as the API server's PodSecurity plugin evaluates them, at the
 * policy version "latest" of Kubernetes 1.36 (k8s.io/pod-security-admission,
 * policy/check_*.go). Each control is a pure function of the pod's metadata
 * and spec; a violation names the control and the field.
 */
import type { PathSegment } from '../model/core/positions.ts';

export type Level = 'privileged' | 'baseline' | 'restricted';
export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

export interface Violation {
  /** The control's id in the admission plugin (`hostNamespaces`, `capabilities_restricted`, ...). */
  control: string;
  /** Path inside the pod spec (or pod metadata, starting with `metadata`). */
  path: PathSegment[];
  message: string;
}

type Obj = Record<string, any>;

interface Container {
  c: Obj;
  name: string;
  at: PathSegment[];
}

function containersOf(spec: Obj): Container[] {
  const out: Container[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    const list = spec[field];
    if (Array.isArray(list)) list.forEach((c: Obj, i) => out.push({ c: c ?? {}, name: String(c?.name ?? i), at: [field, i] }));
  }
  return out;
}

/** `capabilities_allowed_1_0`: what baseline lets a container add. */
const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
/** `sysctlsAllowedV1Dot32`: the safe sysctls (the newest set, which 1.36 uses). */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
]);
/** `seLinuxOptions1_31`: the types baseline allows. */
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
/** `restrictedVolumes_1_0` (with the image volume source): the only volume sources restricted allows. */
const RESTRICTED_VOLUME_SOURCES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
  'image',
]);
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

/** A control judges a pod's metadata and spec at a policy version (the minor of Kubernetes 1.x). */
type Control = (meta: Obj, spec: Obj, minor: number) => Violation[];

/** The newest policy version these controls describe, and the one a namespace's `latest` means. */
export const LATEST_POLICY_MINOR = 36;

/** A pod whose spec sets hostUsers: false runs in a user namespace: relaxPolicyForUserNamespacePod, from 1.35. */
const inUserNamespace = (spec: Obj, minor: number): boolean => minor >= 35 && spec.hostUsers === false;

/** procMount_1_0: any container that sets a procMount other than Default. */
function procMountUnmasked(_meta: Obj, spec: Obj, control: string): Violation[] {
  return containersOf(spec)
    .filter(({ c }) => c.securityContext?.procMount !== undefined && c.securityContext.procMount !== 'Default')
    .map(({ c, name, at }) => ({
      control,
      path: [...at, 'securityContext', 'procMount'],
      message: `procMount: container ${name} must not set securityContext.procMount to ${String(c.securityContext.procMount)}`,
    }));
}

const isWindows = (spec: Obj) => spec.os?.name === 'windows';

const baseline: Record<string, Control> = {
  windowsHostProcess(_meta, spec) {
    const out: Violation[] = [];
    if (spec.securityContext?.windowsOptions?.hostProcess === true)
      out.push({
        control: 'windowsHostProcess',
        path: ['securityContext', 'windowsOptions', 'hostProcess'],
        message: 'the pod must not set securityContext.windowsOptions.hostProcess=true',
      });
    for (const { c, name, at } of containersOf(spec))
      if (c.securityContext?.windowsOptions?.hostProcess === true)
        out.push({
          control: 'windowsHostProcess',
          path: [...at, 'securityContext', 'windowsOptions', 'hostProcess'],
          message: `container ${name} must not set securityContext.windowsOptions.hostProcess=true`,
        });
    return out;
  },
  hostNamespaces(_meta, spec) {
    return (['hostNetwork', 'hostPID', 'hostIPC'] as const)
      .filter((f) => spec[f] === true)
      .map((f) => ({ control: 'hostNamespaces', path: [f], message: `host namespaces: ${f}=true is forbidden` }));
  },
  privileged(_meta, spec) {
    return containersOf(spec)
      .filter(({ c }) => c.securityContext?.privileged === true)
      .map(({ name, at }) => ({
        control: 'privileged',
        path: [...at, 'securityContext', 'privileged'],
        message: `privileged: container ${name} must not set securityContext.privileged=true`,
      }));
  },
  capabilities_baseline(_meta, spec) {
    const out: Violation[] = [];
    for (const { c, name, at } of containersOf(spec)) {
      const add = c.securityContext?.capabilities?.add;
      if (!Array.isArray(add)) continue;
      add.forEach((cap: unknown, i) => {
        if (!BASELINE_CAPABILITIES.has(String(cap)))
          out.push({
            control: 'capabilities_baseline',
            path: [...at, 'securityContext', 'capabilities', 'add', i],
            message: `non-default capabilities: container ${name} must not include ${String(cap)} in securityContext.capabilities.add`,
          });
      });
    }
    return out;
  },
  hostPathVolumes(_meta, spec) {
    return ((spec.volumes ?? []) as Obj[]).flatMap((v, i) =>
      v?.hostPath
        ? [{ control: 'hostPathVolumes', path: ['volumes', i, 'hostPath'], message: `hostPath volumes: volume ${String(v.name)} must not be a hostPath` }]
        : [],
    );
  },
  hostPorts(_meta, spec) {
    const out: Violation[] = [];
    for (const { c, name, at } of containersOf(spec)) {
      ((c.ports ?? []) as Obj[]).forEach((p, i) => {
        if (p?.hostPort !== undefined && p.hostPort !== 0)
          out.push({ control: 'hostPorts', path: [...at, 'ports', i, 'hostPort'], message: `hostPort: container ${name} uses hostPort ${String(p.hostPort)}` });
      });
    }
    return out;
  },
  appArmorProfile(meta, spec) {
    const out: Violation[] = [];
    const bad = (t: unknown) => t !== undefined && t !== 'RuntimeDefault' && t !== 'Localhost';
    if (bad(spec.securityContext?.appArmorProfile?.type))
      out.push({
        control: 'appArmorProfile',
        path: ['securityContext', 'appArmorProfile', 'type'],
        message: `appArmorProfile: the pod must not set type ${String(spec.securityContext.appArmorProfile.type)}`,
      });
    for (const { c, name, at } of containersOf(spec))
      if (bad(c.securityContext?.appArmorProfile?.type))
        out.push({
          control: 'appArmorProfile',
          path: [...at, 'securityContext', 'appArmorProfile', 'type'],
          message: `appArmorProfile: container ${name} must not set type ${String(c.securityContext.appArmorProfile.type)}`,
        });
    for (const [key, value] of Object.entries((meta.annotations ?? {}) as Obj)) {
      if (!key.startsWith(APPARMOR_ANNOTATION)) continue;
      // allowedAnnotationValue: empty, runtime/default or localhost/<profile>.
      if (value !== '' && value !== 'runtime/default' && !(typeof value === 'string' && value.startsWith('localhost/')))
        out.push({
          control: 'appArmorProfile',
          path: ['metadata', 'annotations', key],
          message: `appArmorProfile: annotation ${key}="${String(value)}" is forbidden`,
        });
    }
    return out;
  },
  seLinuxOptions(_meta, spec) {
    const out: Violation[] = [];
    const judge = (opts: Obj | undefined, path: PathSegment[], who: string) => {
      if (!opts) return;
      if (opts.type !== undefined && !SELINUX_TYPES.has(String(opts.type)))
        out.push({ control: 'seLinuxOptions', path: [...path, 'type'], message: `seLinuxOptions: ${who} must not set type "${String(opts.type)}"` });
      for (const f of ['user', 'role'])
        if (opts[f] !== undefined && opts[f] !== '')
          out.push({ control: 'seLinuxOptions', path: [...path, f], message: `seLinuxOptions: ${who} must not set ${f}` });
    };
    judge(spec.securityContext?.seLinuxOptions, ['securityContext', 'seLinuxOptions'], 'the pod');
    for (const { c, name, at } of containersOf(spec))
      judge(c.securityContext?.seLinuxOptions, [...at, 'securityContext', 'seLinuxOptions'], `container ${name}`);
    return out;
  },
  procMount(meta, spec, minor) {
    // A pod in a user namespace may set any procMount at baseline (procMount1_35baseline); restricted has its own control.
    return inUserNamespace(spec, minor) ? [] : procMountUnmasked(meta, spec, 'procMount');
  },
  seccompProfile_baseline(_meta, spec) {
    const out: Violation[] = [];
    if (spec.securityContext?.seccompProfile?.type === 'Unconfined')
      out.push({
        control: 'seccompProfile_baseline',
        path: ['securityContext', 'seccompProfile', 'type'],
        message: 'seccompProfile: the pod must not set securityContext.seccompProfile.type to Unconfined',
      });
    for (const { c, name, at } of containersOf(spec))
      if (c.securityContext?.seccompProfile?.type === 'Unconfined')
        out.push({
          control: 'seccompProfile_baseline',
          path: [...at, 'securityContext', 'seccompProfile', 'type'],
          message: `seccompProfile: container ${name} must not set securityContext.seccompProfile.type to Unconfined`,
        });
    return out;
  },
  sysctls(_meta, spec) {
    return ((spec.securityContext?.sysctls ?? []) as Obj[]).flatMap((s, i) =>
      SAFE_SYSCTLS.has(String(s?.name))
        ? []
        : [{ control: 'sysctls', path: ['securityContext', 'sysctls', i, 'name'], message: `forbidden sysctl ${String(s?.name)}` }],
    );
  },
  hostProbesAndHostLifecycle(_meta, spec) {
    const out: Violation[] = [];
    for (const { c, name, at } of containersOf(spec)) {
      const handlers: [PathSegment[], Obj | undefined][] = [
        ...['livenessProbe', 'readinessProbe', 'startupProbe'].map((p): [PathSegment[], Obj | undefined] => [[p], c[p]]),
        ...['postStart', 'preStop'].map((h): [PathSegment[], Obj | undefined] => [['lifecycle', h], c.lifecycle?.[h]]),
      ];
      for (const [path, handler] of handlers) {
        for (const kind of ['httpGet', 'tcpSocket']) {
          const host = handler?.[kind]?.host;
          if (typeof host === 'string' && host !== '')
            out.push({
              control: 'hostProbesAndHostLifecycle',
              path: [...at, ...path, kind, 'host'],
              message: `probe or lifecycle host: container ${name} must not set ${[...path, kind].join('.')}.host ("${host}")`,
            });
        }
      }
    }
    return out;
  },
};

const restricted: Record<string, Control> = {
  // procMount_restricted (1.35): procMount_1_0 with no user-namespace relaxation; it overrides procMount.
  procMount_restricted: (meta, spec) => procMountUnmasked(meta, spec, 'procMount_restricted'),
  restrictedVolumes(_meta, spec) {
    return ((spec.volumes ?? []) as Obj[]).flatMap((v, i) => {
      const sources = Object.keys(v ?? {}).filter((k) => k !== 'name');
      const bad = sources.filter((s) => !RESTRICTED_VOLUME_SOURCES.has(s));
      return bad.length
        ? [{ control: 'restrictedVolumes', path: ['volumes', i, bad[0]!], message: `restricted volume types: volume ${String(v.name)} uses ${bad.join(', ')}` }]
        : [];
    });
  },
  allowPrivilegeEscalation(_meta, spec) {
    if (isWindows(spec)) return [];
    return containersOf(spec)
      .filter(({ c }) => c.securityContext?.allowPrivilegeEscalation !== false)
      .map(({ name, at }) => ({
        control: 'allowPrivilegeEscalation',
        path: [...at, 'securityContext'],
        message: `allowPrivilegeEscalation != false: container ${name} must set securityContext.allowPrivilegeEscalation=false`,
      }));
  },
  runAsNonRoot(_meta, spec, minor) {
    if (inUserNamespace(spec, minor)) return []; // runAsNonRoot1_35
    const podValue = spec.securityContext?.runAsNonRoot;
    const out: Violation[] = [];
    if (podValue === false)
      out.push({
        control: 'runAsNonRoot',
        path: ['securityContext', 'runAsNonRoot'],
        message: 'runAsNonRoot != true: the pod must not set securityContext.runAsNonRoot=false',
      });
    for (const { c, name, at } of containersOf(spec)) {
      const own = c.securityContext?.runAsNonRoot;
      if (own === false)
        out.push({
          control: 'runAsNonRoot',
          path: [...at, 'securityContext', 'runAsNonRoot'],
          message: `runAsNonRoot != true: container ${name} must not set securityContext.runAsNonRoot=false`,
        });
      else if (own === undefined && podValue !== true)
        out.push({
          control: 'runAsNonRoot',
          path: [...at, 'securityContext'],
          message: `runAsNonRoot != true: container ${name} must set securityContext.runAsNonRoot=true (or the pod must)`,
        });
    }
    return out;
  },
  runAsUser(_meta, spec, minor) {
    if (inUserNamespace(spec, minor)) return []; // runAsUser1_35
    const out: Violation[] = [];
    if (spec.securityContext?.runAsUser === 0)
      out.push({ control: 'runAsUser', path: ['securityContext', 'runAsUser'], message: 'runAsUser=0: the pod must not run as user 0' });
    for (const { c, name, at } of containersOf(spec))
      if (c.securityContext?.runAsUser === 0)
        out.push({ control: 'runAsUser', path: [...at, 'securityContext', 'runAsUser'], message: `runAsUser=0: container ${name} must not run as user 0` });
    return out;
  },
  seccompProfile_restricted(_meta, spec) {
    if (isWindows(spec)) return [];
    const ok = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
    const podType = spec.securityContext?.seccompProfile?.type;
    const out: Violation[] = [];
    if (podType !== undefined && !ok(podType))
      out.push({
        control: 'seccompProfile_restricted',
        path: ['securityContext', 'seccompProfile', 'type'],
        message: `seccompProfile: the pod must not set securityContext.seccompProfile.type to ${String(podType)}`,
      });
    for (const { c, name, at } of containersOf(spec)) {
      const own = c.securityContext?.seccompProfile?.type;
      if (own !== undefined && !ok(own))
        out.push({
          control: 'seccompProfile_restricted',
          path: [...at, 'securityContext', 'seccompProfile', 'type'],
          message: `seccompProfile: container ${name} must not set securityContext.seccompProfile.type to ${String(own)}`,
        });
      else if (own === undefined && !ok(podType))
        out.push({
          control: 'seccompProfile_restricted',
          path: [...at, 'securityContext'],
          message: `seccompProfile: container ${name} (or the pod) must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
        });
    }
    return out;
  },
  capabilities_restricted(_meta, spec) {
    if (isWindows(spec)) return [];
    const out: Violation[] = [];
    for (const { c, name, at } of containersOf(spec)) {
      const caps = c.securityContext?.capabilities ?? {};
      if (!Array.isArray(caps.drop) || !caps.drop.includes('ALL'))
        out.push({
          control: 'capabilities_restricted',
          path: [...at, 'securityContext', ...(c.securityContext?.capabilities ? ['capabilities'] : [])],
          message: `unrestricted capabilities: container ${name} must set securityContext.capabilities.drop=["ALL"]`,
        });
      ((Array.isArray(caps.add) ? caps.add : []) as unknown[]).forEach((cap, i) => {
        if (cap !== 'NET_BIND_SERVICE')
          out.push({
            control: 'capabilities_restricted',
            path: [...at, 'securityContext', 'capabilities', 'add', i],
            message: `unrestricted capabilities: container ${name} must not include ${String(cap)} in securityContext.capabilities.add`,
          });
      });
    }
    return out;
  },
};

/** Restricted controls that replace a baseline one (OverrideCheckIDs), so one cause is reported once: baseline → restricted. */
export const OVERRIDDEN_AT_RESTRICTED: ReadonlyMap<string, string> = new Map([
  ['hostPathVolumes', 'restrictedVolumes'],
  ['capabilities_baseline', 'capabilities_restricted'],
  ['seccompProfile_baseline', 'seccompProfile_restricted'],
  ['procMount', 'procMount_restricted'],
]);

/** Every control id, by the lowest level that enforces it. */
export const CONTROLS: Readonly<Record<Exclude<Level, 'privileged'>, readonly string[]>> = {
  baseline: Object.keys(baseline),
  restricted: Object.keys(restricted),
};

/** Controls that exist only from a policy version on (their MinimumVersion): before it, they neither judge nor override. */
const SINCE: Readonly<Record<string, number>> = { procMount_restricted: 35 };
const exists = (id: string, minor: number) => (SINCE[id] ?? 0) <= minor;

/** The violations of `level`, at policy version 1.`minor` (the newest by default), by a pod with this metadata and spec. */
export function podSecurityViolations(level: Level, meta: Obj, spec: Obj, minor: number = LATEST_POLICY_MINOR): Violation[] {
  if (level === 'privileged') return [];
  const overridden = new Set([...OVERRIDDEN_AT_RESTRICTED].filter(([, by]) => exists(by, minor)).map(([id]) => id));
  const controls =
    level === 'baseline'
      ? Object.values(baseline)
      : [
          ...Object.entries(baseline)
            .filter(([id]) => !overridden.has(id))
            .map(([, f]) => f),
          ...Object.entries(restricted)
            .filter(([id]) => exists(id, minor))
            .map(([, f]) => f),
        ];
  return controls.flatMap((control) => control(meta ?? {}, spec ?? {}, minor));
}

/** A namespace's Pod Security labels, falling back per mode to the cluster's defaults. */
export interface PodSecurityConfig {
  enforce: Level;
  audit: Level;
  warn: Level;
}

export const MODES = ['enforce', 'audit', 'warn'] as const;
export const LABEL_PREFIX = 'pod-security.kubernetes.io/';

export function isLevel(value: unknown): value is Level {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

/** The levels in force in a namespace with these labels, given the cluster-wide defaults. */
export function levelsFor(labels: Record<string, unknown> | undefined, defaults: PodSecurityConfig): PodSecurityConfig {
  const pick = (mode: (typeof MODES)[number]): Level => {
    const v = labels?.[`${LABEL_PREFIX}${mode}`];
    return isLevel(v) ? v : defaults[mode];
  };
  return { enforce: pick('enforce'), audit: pick('audit'), warn: pick('warn') };
}
