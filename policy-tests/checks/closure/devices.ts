/**
 * closure-device-capacity: the devices pods ask for are there in number. A
 * device plugin advertises each device it finds to as many containers as it
 * shares it with (Intel's GPU plugin: one, unless -shared-dev-num says more),
 * and the scheduler places a pod only where an unallocated one is left: with
 * Plex and the Tdarr node each asking for the lab's one GPU, one of them stays
 * Pending ("Insufficient gpu.intel.com/i915"), and the API server never says.
 * How many devices the nodes hold is hardware, stated in the cluster facts.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { unrenderedSources } from './closing.ts';
import { deviceCapacity, deviceDemand, SHARES_FLAG, type DeviceDemand } from '../../model/cluster/providers.ts';

export const deviceCapacityCheck: PolicyCheck = {
  id: 'closure-device-capacity',
  description: `The extended resources the workloads ask for (a GPU's gpu.intel.com/i915) fit what the nodes offer: every pod a workload keeps at once (its replicas, a rolling update's surge, a Job's parallelism) times what each asks for, summed over the workloads, is at most the devices the cluster facts say the nodes hold (devices) times the containers its plugin shares each one with (the flag ${SHARES_FLAG} names on the plugin's DaemonSet; one when unset); otherwise the pods beyond it stay Pending (invariants P1).`,
  invariants: ['P1'],
  remediation: `let the plugin share each device with more containers (the flag ${SHARES_FLAG} names, in its args), ask for fewer, or state the devices the nodes hold in the cluster facts (devices)`,
  reads: { kinds: ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob'], renders: true },
  exemptible: false,
  run(ctx) {
    if (!ctx.repo.facts) return;
    const capacity = deviceCapacity(ctx.repo, ctx.resources);
    const byName = new Map<string, DeviceDemand[]>();
    for (const d of deviceDemand(ctx.resources)) if (capacity.has(d.name)) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
    const unrendered = unrenderedSources(ctx);
    for (const [name, demands] of byName) {
      const { units, why } = capacity.get(name)!;
      const counted = demands.filter((d) => d.pods !== undefined);
      for (const d of demands.filter((x) => x.pods === undefined))
        ctx.notJudged(
          { resource: d.resource, path: d.path },
          `${d.resource.kind} ${d.resource.name} asks for ${name}${d.resource.kind === 'DaemonSet' ? ' on every node it lands on' : ', and how many pods it keeps at once is not a plain number'}: not counted against what the nodes offer`,
        );
      if (units === undefined) {
        for (const d of counted) ctx.notJudged({ resource: d.resource, path: d.path }, `what the nodes offer of ${name} cannot be read: ${why}`);
        continue;
      }
      const total = counted.reduce((sum, d) => sum + d.perPod * d.pods!, 0);
      if (total > units) {
        const who = counted.map((d) => `${d.resource.kind} ${d.resource.name} ${d.perPod * d.pods!}`).join(', ');
        for (const d of counted)
          ctx.fail(
            { resource: d.resource, path: d.path },
            `${d.resource.kind} ${d.resource.name} asks for ${d.perPod} ${name} per pod, for up to ${d.pods} pod${d.pods === 1 ? '' : 's'} at once; the workloads ask for ${total} in all (${who}) and the nodes offer ${units}: ${why}, so ${total - units} stay${total - units === 1 ? 's' : ''} Pending`,
          );
      } else if (unrendered.count > 0 && counted.length > 0)
        ctx.notJudged(
          { resource: counted[0]!.resource, path: counted[0]!.path },
          `${total} of the ${units} ${name} the nodes offer are asked for in what the gate sees, and ${unrendered.text}, any of which may ask for more`,
        );
    }
  },
};
