/** The baseline level's controls (k8s.io/pod-security-admission, policy/check_*.go), by upstream control id. */
import type { PathSegment } from '../../model/core/positions.ts';
import { list } from '../../model/core/dig.ts';
import {
  APPARMOR_ANNOTATION,
  BASELINE_CAPABILITIES,
  containersOf,
  type Control,
  inUserNamespace,
  type Obj,
  procMountUnmasked,
  safeSysctls,
  selinuxTypes,
  type Violation,
} from './controls.ts';

/** The seccomp annotations' prefixes, which policy versions before 1.19 judge instead of the fields. */
const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION = 'container.seccomp.security.alpha.kubernetes.io/';

/** `seccompProfileBaseline_1_0`: the pod's and each container's seccomp annotation, if set, is runtime/default, docker/default or localhost/<profile>. */
function seccompAnnotations(meta: Obj, spec: Obj): Violation[] {
  const annotations = (meta.annotations ?? {}) as Obj;
  const valid = (v: unknown) => v === 'runtime/default' || v === 'docker/default' || (typeof v === 'string' && v.startsWith('localhost/'));
  const keys = [SECCOMP_POD_ANNOTATION, ...containersOf(spec).map(({ name }) => `${SECCOMP_CONTAINER_ANNOTATION}${name}`)];
  return keys
    .filter((key) => key in annotations && !valid(annotations[key]))
    .map((key) => ({
      control: 'seccompProfile_baseline',
      path: ['metadata', 'annotations', key],
      message: `seccompProfile: forbidden annotation ${key}="${String(annotations[key])}"`,
    }));
}

export const baseline: Record<string, Control> = {
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
    return (list(spec.volumes) as Obj[]).flatMap((v, i) =>
      v?.hostPath
        ? [{ control: 'hostPathVolumes', path: ['volumes', i, 'hostPath'], message: `hostPath volumes: volume ${String(v.name)} must not be a hostPath` }]
        : [],
    );
  },
  hostPorts(_meta, spec) {
    const out: Violation[] = [];
    for (const { c, name, at } of containersOf(spec)) {
      (list(c.ports) as Obj[]).forEach((p, i) => {
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
  seLinuxOptions(_meta, spec, minor) {
    const out: Violation[] = [];
    const types = selinuxTypes(minor);
    const judge = (opts: Obj | undefined, path: PathSegment[], who: string) => {
      if (!opts) return;
      if (opts.type !== undefined && !types.has(String(opts.type)))
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
  seccompProfile_baseline(meta, spec, minor) {
    if (minor < 19) return seccompAnnotations(meta, spec);
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
  sysctls(_meta, spec, minor) {
    const safe = safeSysctls(minor);
    return ((spec.securityContext?.sysctls ?? []) as Obj[]).flatMap((s, i) =>
      safe.has(String(s?.name))
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
