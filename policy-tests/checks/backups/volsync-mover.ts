/**
 * volsync-mover-pod: the mover Job VolSync makes for each ReplicationSource and ReplicationDestination is one the API
 * server admits. VolSync copies the mover's `moverSecurityContext` into the Job's pod and `moverResources` into its
 * container (controllers/mover/*: the Job builders); the custom resource's schema takes any int64 and any quantity,
 * and the API server refuses the Job (a user id below 0, a request above its limit): the controller retries and no
 * copy ever runs, the object stuck in its error condition while the gate stayed green.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { dig, isMap } from '../../model/core/dig.ts';
import { containerResourceProblems, securityContextPodProblems } from '../../admission/index.ts';

const REPLICATION_KINDS = ['ReplicationSource', 'ReplicationDestination'];
/** The movers a replication names its settings under (api/v1alpha1: one of them per object). */
const MOVERS = ['restic', 'rclone', 'rsync', 'rsyncTLS', 'syncthing'];

export const volsyncMoverCheck: PolicyCheck = {
  id: 'volsync-mover-pod',
  description:
    'Every VolSync ReplicationSource and ReplicationDestination gives its mover a securityContext and resources the API server admits on the mover Job VolSync makes of them (user, group and fsGroup ids from 0 to 2147483647; resource names and quantities, requests within limits); otherwise the Job is refused, and no copy ever runs (B3).',
  invariants: ['B3'],
  remediation: "give the mover's moverSecurityContext ids from 0 to 2147483647, and moverResources requests within its limits",
  reads: { kinds: REPLICATION_KINDS },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources) {
      if (!REPLICATION_KINDS.includes(r.kind) || !r.apiVersion.startsWith('volsync.backube/')) continue;
      for (const mover of MOVERS) {
        const settings = dig(r.object, ['spec', mover]);
        if (!isMap(settings)) continue;
        const at = ['spec', mover];
        const problems = [
          ...securityContextPodProblems(isMap(settings.moverSecurityContext) ? settings.moverSecurityContext : undefined, [...at, 'moverSecurityContext']),
          ...containerResourceProblems(settings.moverResources, [...at, 'moverResources'], 'the mover'),
        ];
        for (const p of problems)
          ctx.fail(
            { resource: r, path: p.path },
            `${r.kind} ${r.name}: VolSync makes its ${mover} mover Job with this, and the API server refuses the Job (${p.message}): no copy ever runs`,
          );
      }
    }
  },
};
