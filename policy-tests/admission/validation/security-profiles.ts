/**
 * A pod's and its containers' security profiles and sysctls, as pkg/apis/core/validation judges them
 * (`validateSeccompProfileField`, `ValidateAppArmorProfileField`, `validateSysctls`, `ValidateHostSysctl`): a
 * Localhost profile names its file, a relative one that never steps up; no other type names one; a sysctl's name is
 * one the kernel could have, once in the pod, and no sysctl of a namespace the pod shares with its node (a `net.`
 * one under hostNetwork, an IPC one under hostIPC). The profile types themselves are the schema's enums.
 */
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import { localPathFaults } from './syntax.ts';
import { tooLong } from './syntax.ts';

type Obj = Record<string, any>;

/** PATH_MAX - 1 */
const MAX_APPARMOR_PROFILE = 4095;
/** SysctlMaxLength and SysctlContainSlashFmt: segments of `[a-z0-9]([-_a-z0-9]*[a-z0-9])?` joined by `.` or `/`. */
export const SYSCTL_MAX = 253;
const SYSCTL_NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;

/** validateLocalDescendingPath: relative, and no `..` segment. */
function descendingPathProblems(path: string, at: PathSegment[], fn: string): Invalid[] {
  const { absolute, backsteps } = localPathFaults(path);
  const out: Invalid[] = [];
  if (absolute) out.push({ path: at, fn, message: `localhostProfile "${path}": must be a relative path` });
  if (backsteps) out.push({ path: at, fn, message: `localhostProfile "${path}": must not contain '..'` });
  return out;
}

function seccompProblems(profile: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'validateSeccompProfileField';
  const local = profile.localhostProfile;
  if (profile.type === 'Localhost')
    return typeof local === 'string'
      ? descendingPathProblems(local, [...at, 'localhostProfile'], fn)
      : [{ path: [...at, 'localhostProfile'], fn, message: 'localhostProfile: must be set when seccomp type is Localhost' }];
  return local !== undefined && local !== null
    ? [{ path: [...at, 'localhostProfile'], fn, message: 'localhostProfile: can only be set when seccomp type is Localhost' }]
    : [];
}

function appArmorProblems(profile: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'ValidateAppArmorProfileField';
  const local = profile.localhostProfile;
  const here = [...at, 'localhostProfile'];
  if (profile.type !== 'Localhost')
    return local !== undefined && local !== null ? [{ path: here, fn, message: 'localhostProfile: can only be set when AppArmor type is Localhost' }] : [];
  if (typeof local !== 'string') return [{ path: here, fn, message: 'localhostProfile: must be set when AppArmor type is Localhost' }];
  const out: Invalid[] = [];
  if (local.trim() !== local) out.push({ path: here, fn, message: 'localhostProfile: must not be padded with whitespace' });
  else if (local === '') out.push({ path: here, fn, message: 'localhostProfile: must be set when AppArmor type is Localhost' });
  if (local.length > MAX_APPARMOR_PROFILE) out.push({ path: here, fn, message: `localhostProfile: ${tooLong(MAX_APPARMOR_PROFILE)}` });
  return out;
}

/** A security context's seccomp and AppArmor profiles, the pod's or a container's. */
function profileProblems(sc: unknown, at: PathSegment[]): Invalid[] {
  if (!sc || typeof sc !== 'object') return [];
  const { seccompProfile, appArmorProfile } = sc as Obj;
  return [
    ...(seccompProfile && typeof seccompProfile === 'object' ? seccompProblems(seccompProfile, [...at, 'seccompProfile']) : []),
    ...(appArmorProfile && typeof appArmorProfile === 'object' ? appArmorProblems(appArmorProfile, [...at, 'appArmorProfile']) : []),
  ];
}

/** component-helpers' sysctl namespaces (`nameToNamespace`, `prefixToNamespace`): the names the kernel keeps per IPC namespace, and the prefixes. */
const IPC_SYSCTLS = new Set([
  'kernel.sem',
  'kernel.shmall',
  'kernel.shmmax',
  'kernel.shmmni',
  'kernel.shm_rmid_forced',
  'kernel.shm',
  'kernel.msgmax',
  'kernel.msgmnb',
  'kernel.msgmni',
  'kernel.msg',
]);
const PREFIX_NAMESPACES: ReadonlyArray<readonly [string, 'ipc' | 'net']> = [
  ['net.', 'net'],
  ['fs.mqueue.', 'ipc'],
];

/**
 * A sysctl's name in dots, as component-helpers' `NormalizeName` gives it: where a `/` comes before any `.`, the two
 * are swapped (`net/ipv4/conf/eno2.100/rp_filter` is `net.ipv4.conf.eno2/100.rp_filter`).
 */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  return first !== -1 && name[first] === '/' ? name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.')) : name;
}

/**
 * A sysctl, or a pattern ending in `*`, as component-helpers' `GetNamespace` reads it: its name in dots cut at a `*`
 * (`sysctlOrPrefix`), whether it was cut (`prefixed`), and the kernel namespace that name is in: the IPC names by
 * name (`kernel.shm` and `kernel.msg` stand for their patterns), names under `net.` the network's and under
 * `fs.mqueue.` IPC's; undefined when it is not known to be namespaced.
 */
export function sysctlGetNamespace(name: string): { namespace: 'ipc' | 'net' | undefined; sysctlOrPrefix: string; prefixed: boolean } {
  const dotted = normalizeSysctlName(name);
  const star = dotted.indexOf('*');
  const sysctlOrPrefix = star === -1 ? dotted : dotted.slice(0, star);
  const namespace = IPC_SYSCTLS.has(sysctlOrPrefix) ? 'ipc' : PREFIX_NAMESPACES.find(([p]) => sysctlOrPrefix.startsWith(p))?.[1];
  return { namespace, sysctlOrPrefix, prefixed: star !== -1 };
}

/** The kernel namespace a sysctl, or a pattern ending in `*`, belongs to (`GetNamespace`'s first answer). */
export const sysctlNamespace = (name: string): 'ipc' | 'net' | undefined => sysctlGetNamespace(name).namespace;

function sysctlProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'validateSysctls';
  const out: Invalid[] = [];
  const names = new Set<string>();
  (list(spec.securityContext?.sysctls) as Obj[]).forEach((s, i) => {
    const here = [...at, i, 'name'];
    const name = typeof s?.name === 'string' ? s.name : '';
    if (name === '') out.push({ path: here, fn, message: 'sysctl name: Required value' });
    else if (name.length > SYSCTL_MAX || !SYSCTL_NAME.test(name))
      out.push({ path: here, fn, message: `sysctl "${name}": must have at most ${SYSCTL_MAX} characters and match regex ${SYSCTL_NAME.source}` });
    else if (names.has(name)) out.push({ path: here, fn, message: `sysctl "${name}": Duplicate value` });
    const ns = sysctlNamespace(name);
    if (spec.hostNetwork === true && ns === 'net')
      out.push({ path: here, fn: 'ValidateHostSysctl', message: `sysctl "${name}": may not be specified when 'hostNetwork' is true` });
    if (spec.hostIPC === true && ns === 'ipc')
      out.push({ path: here, fn: 'ValidateHostSysctl', message: `sysctl "${name}": may not be specified when 'hostIPC' is true` });
    names.add(name);
  });
  return out;
}

/** The pod's profiles and sysctls, and each container's profiles. */
export function securityProfileProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out = [...profileProblems(spec.securityContext, [...at, 'securityContext']), ...sysctlProblems(spec, [...at, 'securityContext', 'sysctls'])];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers'])
    (list(spec[field]) as Obj[]).forEach((c, i) => out.push(...profileProblems(c?.securityContext, [...at, field, i, 'securityContext'])));
  return out;
}
