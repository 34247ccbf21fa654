/**
 * workload-volumes-mounted: every volume a pod template declares is mounted by one of its containers. The API server
 * takes a volume nothing mounts, and the kubelet sets it up all the same; but what it holds reaches no program: a
 * mount removed or renamed leaves the program on the image's own folder (an optional status file read from nothing,
 * a read-only root with no writable /tmp), and the pod starts as if all were well. A chart's pod templates are left
 * to upstream: some declare volumes only a part the values leave off mounts.
 */
import { objects } from '../../model/core/dig.ts';
import { containersOf, podSpecOf, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

export const volumesMountedCheck: PolicyCheck = {
  id: 'workload-volumes-mounted',
  description:
    'Every volume a pod template declares is mounted by one of its containers or init containers (a volumeMount, or a volumeDevice for a block volume): the API server and the kubelet take a volume nothing mounts, and what it holds reaches no program, so a mount removed or renamed leaves the program on the image folder without a word. Held on the pod templates the repository writes (a chart declares volumes only a part it leaves off mounts, as the Falco driver loader does) (invariants P1).',
  invariants: ['P1'],
  remediation: 'mount the volume where the program reads or writes it, or remove the volume',
  reads: { kinds: [...WORKLOAD_KINDS] },
  exemptible: false,
  run(ctx) {
    for (const resource of ctx.resources) {
      // A chart's templates are upstream's, and some declare volumes only a disabled part mounts (Falco's driver loader).
      if (resource.rendered?.source.startsWith('chart')) continue;
      const pod = podSpecOf(resource);
      if (!pod) continue;
      const used = new Set(
        containersOf(pod).flatMap(({ container }) => [...objects(container.volumeMounts), ...objects(container.volumeDevices)].map((m) => m.name)),
      );
      objects(pod.spec.volumes).forEach((volume, i) => {
        if (typeof volume.name !== 'string' || used.has(volume.name)) return;
        ctx.fail(
          { resource, path: [...pod.at, 'volumes', i, 'name'] },
          `volume ${volume.name} is mounted by no container of ${resource.kind} ${resource.name}: what it holds reaches no program, which reads or writes the image's own folder instead`,
        );
      });
    }
  },
};
