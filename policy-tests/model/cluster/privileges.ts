/**
 * What a pod may do to its node beyond the restricted profile, privilege by
 * privilege: host namespaces and hostPath volumes for the pod; for each
 * container `privileged`, each added capability, running as root, and
 * privilege escalation. A workload names the privileges it holds in one
 * annotation, so a new container or a new privilege in a workload that holds
 * some is never inherited silently: the policy check holds the two together,
 * and the rendered diff flags each privilege a change adds.
 */
import { dig, objects } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { PathSegment } from '../core/positions.ts';
import { scalarText } from '../core/text.ts';
import { capabilityName, containersOf, podSpecOf, type PodSpecRef } from '../core/workloads.ts';

/** Where a workload names its privileges: on itself, or on its pod template (a chart often reaches only podAnnotations). */
export const PRIVILEGES_ANNOTATION = 'gate.homelab-gitops/privileges';

/** The one capability the restricted profile lets a container add. */
const RESTRICTED_CAPABILITIES: ReadonlySet<string> = new Set(['NET_BIND_SERVICE']);

export type PrivilegeKind = 'hostNetwork' | 'hostPID' | 'hostIPC' | 'hostPath' | 'privileged' | 'capability' | 'root' | 'escalation';

export interface Privilege {
  kind: PrivilegeKind;
  /** The container that holds it; none for the pod's own (host namespaces, hostPath volumes). */
  container?: string;
  /** As the annotation spells it: `hostPID`, `hostPath:<volume>`, `privileged`, `cap:NET_ADMIN`, `root`, `escalation`. */
  name: string;
  /** Where in the resource it is set, for findings. */
  path: PathSegment[];
}

/** `container: name` or `pod: name`: how a privilege reads in the annotation and in messages. */
export const privilegeLabel = (p: Pick<Privilege, 'container' | 'name'>): string => `${p.container ?? 'pod'}: ${p.name}`;

/** Every privilege a workload's pods hold, in the order of its spec. */
export function privilegesOf(resource: Pick<Resource, 'kind' | 'object'>): Privilege[] {
  const pod = podSpecOf(resource);
  if (!pod) return [];
  const out: Privilege[] = [];
  for (const kind of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (pod.spec[kind] === true) out.push({ kind, name: kind, path: [...pod.at, kind] });
  const volumes = objects(pod.spec.volumes);
  volumes.forEach((v, i) => {
    if (v?.hostPath !== undefined) out.push({ kind: 'hostPath', name: `hostPath:${scalarText(v.name)}`, path: [...pod.at, 'volumes', i, 'hostPath'] });
  });
  for (const c of containersOf(pod)) out.push(...containerPrivileges(pod, c.container, c.name, c.at));
  return out;
}

function containerPrivileges(pod: PodSpecRef, container: Record<string, unknown>, name: string, at: PathSegment[]): Privilege[] {
  const sc = (dig(container, ['securityContext']) ?? {}) as Record<string, unknown>;
  const podSc = (dig(pod.spec, ['securityContext']) ?? {}) as Record<string, unknown>;
  const scAt = [...at, 'securityContext'];
  const out: Privilege[] = [];
  if (sc.privileged === true) out.push({ kind: 'privileged', container: name, name: 'privileged', path: [...scAt, 'privileged'] });
  const added = dig(sc, ['capabilities', 'add']);
  if (Array.isArray(added))
    added.forEach((cap, i) => {
      const capability = capabilityName(cap);
      if (!RESTRICTED_CAPABILITIES.has(capability))
        out.push({ kind: 'capability', container: name, name: `cap:${capability}`, path: [...scAt, 'capabilities', 'add', i] });
    });
  // A container's own setting overrides the pod's, in both directions.
  const runAsUser = sc.runAsUser ?? podSc.runAsUser;
  const nonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
  if (runAsUser === 0 || (nonRoot !== true && (runAsUser === undefined || runAsUser === null)))
    out.push({ kind: 'root', container: name, name: 'root', path: sc.runAsUser !== undefined || sc.runAsNonRoot !== undefined ? scAt : [...at, 'name'] });
  if (sc.allowPrivilegeEscalation !== false)
    out.push({
      kind: 'escalation',
      container: name,
      name: 'escalation',
      path: sc.allowPrivilegeEscalation !== undefined ? [...scAt, 'allowPrivilegeEscalation'] : [...at, 'name'],
    });
  return out;
}

export interface NamedPrivileges {
  /** `container: name` labels the annotation names. */
  labels: Set<string>;
  /** Where the annotation sits, for findings about it. */
  path?: PathSegment[];
  /** Entries it cannot read. */
  problems: string[];
}

/**
 * The privileges a workload names: `<container>: <privilege>, <privilege>; pod: hostPID, hostPath:<volume>`. The
 * workload's own annotation and its pod template's are read together.
 */
export function namedPrivileges(resource: Resource): NamedPrivileges {
  const pod = podSpecOf(resource);
  const places: PathSegment[][] = [['metadata', 'annotations', PRIVILEGES_ANNOTATION]];
  if (pod && resource.kind !== 'Pod') places.push([...pod.at.slice(0, -1), 'metadata', 'annotations', PRIVILEGES_ANNOTATION]);
  const out: NamedPrivileges = { labels: new Set(), problems: [] };
  for (const path of places) {
    const raw = dig(resource.object, path);
    if (raw === undefined) continue;
    out.path ??= path;
    for (const entry of scalarText(raw).split(';')) {
      if (entry.trim() === '') continue;
      const colon = entry.indexOf(':');
      const owner = colon === -1 ? '' : entry.slice(0, colon).trim();
      const names =
        colon === -1
          ? []
          : entry
              .slice(colon + 1)
              .split(',')
              .map((n) => n.trim())
              .filter(Boolean);
      if (!owner || names.length === 0) {
        out.problems.push(`"${entry.trim()}" is not <container>: <privilege>, ... (or pod: ...)`);
        continue;
      }
      for (const name of names) out.labels.add(privilegeLabel({ container: owner === 'pod' ? undefined : owner, name: normalizeName(name) }));
    }
  }
  return out;
}

/** `cap:net_admin` is the capability NET_ADMIN, as containerd reads an added one (`capabilityName`). */
function normalizeName(name: string): string {
  return name.toLowerCase().startsWith('cap:') ? `cap:${capabilityName(name.slice(4))}` : name;
}
