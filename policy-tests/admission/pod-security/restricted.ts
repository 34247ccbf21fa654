/** The restricted level's controls, added to baseline's (some override one of them: OVERRIDDEN_AT_RESTRICTED), by upstream control id. */
import { list } from '../../model/core/dig.ts';
import {
  containersOf,
  type Control,
  inUserNamespace,
  type Obj,
  procMountUnmasked,
  RESTRICTED_VOLUME_SOURCES,
  type Violation,
  windowsExempt,
} from './controls.ts';

export const restricted: Record<string, Control> = {
  // procMount_restricted (1.35): procMount_1_0 with no user-namespace relaxation; it overrides procMount.
  procMount_restricted: (meta, spec) => procMountUnmasked(meta, spec, 'procMount_restricted'),
  restrictedVolumes(_meta, spec) {
    return (list(spec.volumes) as Obj[]).flatMap((v, i) => {
      const sources = Object.keys(v ?? {}).filter((k) => k !== 'name');
      const bad = sources.filter((s) => !RESTRICTED_VOLUME_SOURCES.has(s));
      return bad.length
        ? [{ control: 'restrictedVolumes', path: ['volumes', i, bad[0]!], message: `restricted volume types: volume ${String(v.name)} uses ${bad.join(', ')}` }]
        : [];
    });
  },
  allowPrivilegeEscalation(_meta, spec, minor) {
    if (windowsExempt(spec, minor)) return [];
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
  seccompProfile_restricted(_meta, spec, minor) {
    if (windowsExempt(spec, minor)) return [];
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
  capabilities_restricted(_meta, spec, minor) {
    if (windowsExempt(spec, minor)) return [];
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
