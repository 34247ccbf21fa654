/** What the Pod Security controls share: the containers of a pod, the allowed sets by policy version, and the user-namespace relaxation. */
import type { PathSegment } from '../../model/core/positions.ts';
import { RUNTIME_DEFAULT_CAPABILITIES } from '../../model/core/workloads.ts';

export interface Violation {
  /** The control's id in the admission plugin (`hostNamespaces`, `capabilities_restricted`, ...). */
  control: string;
  /** Path inside the pod spec (or pod metadata, starting with `metadata`). */
  path: PathSegment[];
  message: string;
}

export type Obj = Record<string, any>;

export interface Container {
  c: Obj;
  name: string;
  at: PathSegment[];
}

export function containersOf(spec: Obj): Container[] {
  const out: Container[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    const list = spec[field];
    if (Array.isArray(list)) list.forEach((c: Obj, i) => out.push({ c: c ?? {}, name: String(c?.name ?? i), at: [field, i] }));
  }
  return out;
}

/**
 * `capabilities_allowed_1_0`: what baseline lets a container add. It is the runtime's default set without NET_RAW
 * (the Pod Security Standards: the capabilities a container gets by default, less the one that allows spoofing).
 */
export const BASELINE_CAPABILITIES: ReadonlySet<string> = new Set(RUNTIME_DEFAULT_CAPABILITIES.filter((c) => c !== 'NET_RAW'));
/**
 * The safe sysctls by the policy version that added them (`sysctlsAllowedV1Dot0` ... `V1Dot32`; `V1Dot37` adds two
 * more, past the newest version these controls describe).
 */
const SYSCTLS_SINCE: ReadonlyArray<readonly [number, readonly string[]]> = [
  [
    0,
    ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'],
  ],
  [27, ['net.ipv4.ip_local_reserved_ports']],
  [29, ['net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']],
  [32, ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']],
];
/** A set by policy version, made once per version: every pod of a run asks at the same one or two. */
function byVersion(make: (minor: number) => ReadonlySet<string>): (minor: number) => ReadonlySet<string> {
  const made = new Map<number, ReadonlySet<string>>();
  return (minor) => {
    let set = made.get(minor);
    if (!set) made.set(minor, (set = make(minor)));
    return set;
  };
}
/** The sysctls baseline allows at a policy version. */
export const safeSysctls = byVersion((minor) => new Set(SYSCTLS_SINCE.filter(([since]) => since <= minor).flatMap(([, names]) => names)));
/** The SELinux types baseline allows at a policy version: `selinuxAllowedTypes1_0`, and `1_31`'s container_engine_t. */
export const selinuxTypes = byVersion(
  (minor) => new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', ...(minor >= 31 ? ['container_engine_t'] : [])]),
);
/** `restrictedVolumes_1_0` (with the image volume source): the only volume sources restricted allows. */
export const RESTRICTED_VOLUME_SOURCES = new Set([
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
export const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

/** A control judges a pod's metadata and spec at a policy version (the minor of Kubernetes 1.x). */
export type Control = (meta: Obj, spec: Obj, minor: number) => Violation[];

/** The newest policy version these controls describe, and the one a namespace's `latest` means. */
export const LATEST_POLICY_MINOR = 36;

/** A pod whose spec sets hostUsers: false runs in a user namespace: relaxPolicyForUserNamespacePod, from 1.35. */
export const inUserNamespace = (spec: Obj, minor: number): boolean => minor >= 35 && spec.hostUsers === false;

/** procMount_1_0: any container that sets a procMount other than Default. */
export function procMountUnmasked(_meta: Obj, spec: Obj, control: string): Violation[] {
  return containersOf(spec)
    .filter(({ c }) => c.securityContext?.procMount !== undefined && c.securityContext.procMount !== 'Default')
    .map(({ c, name, at }) => ({
      control,
      path: [...at, 'securityContext', 'procMount'],
      message: `procMount: container ${name} must not set securityContext.procMount to ${String(c.securityContext.procMount)}`,
    }));
}

export const isWindows = (spec: Obj) => spec.os?.name === 'windows';

/**
 * A Windows pod, which the restricted controls that read Linux fields admit from 1.25 (`allowPrivilegeEscalation_1_25`,
 * `capabilitiesRestricted_1_25`, `seccompProfileRestricted_1_25`: the API server refuses those fields on it).
 */
export const windowsExempt = (spec: Obj, minor: number) => minor >= 25 && isWindows(spec);
