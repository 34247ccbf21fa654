/**
 * Privilege is never inherited silently. An exemption speaks for a workload,
 * and a namespace labelled `privileged` lets any pod in it do anything: in
 * both, the workload names each privilege it holds, container by container
 * (model/cluster/privileges.ts), so a new sidecar, host namespace, capability
 * or hostPath in it is a finding until someone names it.
 */
import { levelsFor } from '../../admission/index.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { namespaceLabels } from '../../model/cluster/namespaces.ts';
import { namedPrivileges, privilegeLabel, privilegesOf, PRIVILEGES_ANNOTATION, type Privilege, type PrivilegeKind } from '../../model/cluster/privileges.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { EXEMPTION_PREFIX, podSpecOf, WORKLOAD_KINDS, workloadAnnotations } from '../../model/core/workloads.ts';
import type { Repo } from '../../model/repository/repo.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** What an exemption speaks for: with it, the workload names each such privilege it holds (the exempted check no longer will). */
const EXEMPTION_COVERS: Record<string, readonly PrivilegeKind[]> = {
  'workload-privilege': ['root', 'escalation', 'privileged', 'capability', 'hostNetwork', 'hostPID', 'hostIPC'],
  'workload-hostpath': ['hostPath'],
};

/** What no other check refuses where Pod Security enforces nothing (root, escalation and hostPath are workload-privilege's and workload-hostpath's). */
const UNGUARDED: readonly PrivilegeKind[] = ['privileged', 'capability', 'hostNetwork', 'hostPID', 'hostIPC'];

/** Where Pod Security admission refuses nothing: a namespace enforced at `privileged`, or one (or a runtime class) the cluster exempts. */
function unguarded(repo: Repo, resource: Resource): boolean {
  const facts = repo.facts?.podSecurity;
  const namespace = namespaceOrDestination(repo, resource);
  if (!facts || !namespace) return false;
  if (facts.exemptNamespaces.includes(namespace)) return true;
  const runtimeClass = podSpecOf(resource)?.spec.runtimeClassName;
  if (typeof runtimeClass === 'string' && facts.exemptRuntimeClasses.includes(runtimeClass)) return true;
  return levelsFor(namespaceLabels(repo).get(namespace), facts.defaults).enforce === 'privileged';
}

/** The privileges a workload must name: those its exemptions speak for, and where Pod Security does not guard, those no other check refuses. */
function demanded(repo: Repo, resource: Resource, held: Privilege[]): Privilege[] {
  const annotations = workloadAnnotations(resource);
  const kinds = new Set<PrivilegeKind>();
  for (const [id, covers] of Object.entries(EXEMPTION_COVERS)) if (annotations[`${EXEMPTION_PREFIX}${id}`] !== undefined) covers.forEach((k) => kinds.add(k));
  if (unguarded(repo, resource)) UNGUARDED.forEach((k) => kinds.add(k));
  return held.filter((p) => kinds.has(p.kind));
}

export const privilegeChecks: PolicyCheck[] = [
  {
    id: 'workload-privileges-named',
    description: `A workload under a privilege exemption, or in a namespace where Pod Security enforces nothing, names every privilege it holds in ${PRIVILEGES_ANNOTATION} (host namespaces, hostPath volumes, and per container privileged, added capabilities, root, escalation): a new container or privilege is never inherited from an exemption or a namespace (invariants P1, S8).`,
    invariants: ['P1', 'S8'],
    remediation: `name it in the workload's ${PRIVILEGES_ANNOTATION} annotation ("<container>: privileged, cap:NET_ADMIN, root, escalation; pod: hostPID, hostPath:<volume>"), or drop the privilege; remove names the workload no longer holds`,
    reads: { kinds: [...WORKLOAD_KINDS] },
    exemptible: false,
    run(ctx) {
      for (const resource of ctx.resources) {
        const held = privilegesOf(resource);
        const named = namedPrivileges(resource);
        const annotation = named.path ?? ['metadata', 'name'];
        for (const problem of named.problems) ctx.fail({ resource, path: annotation }, `${PRIVILEGES_ANNOTATION}: ${problem}`);
        const wanted = demanded(ctx.repo, resource, held);
        for (const p of wanted)
          if (!named.labels.has(privilegeLabel(p)))
            ctx.fail(
              { resource, path: p.path },
              `${resource.kind} ${resource.name} holds ${privilegeLabel(p)}, which its ${PRIVILEGES_ANNOTATION} annotation does not name${named.path ? '' : ' (it has none)'}`,
            );
        const heldLabels = new Set(held.map(privilegeLabel));
        for (const label of named.labels)
          if (!heldLabels.has(label))
            ctx.fail(
              { resource, path: annotation },
              `${PRIVILEGES_ANNOTATION} names ${label}, which ${resource.kind} ${resource.name} no longer holds: remove it`,
            );
      }
    },
  },
];
