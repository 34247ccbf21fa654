/**
 * workload-volume-size: an emptyDir's `sizeLimit` holds what its program writes there. The kubelet's eviction manager
 * (pkg/kubelet/eviction/eviction_manager.go, emptyDirLimitEviction) evicts the pod, at once, as soon as the volume's
 * usage is over the limit, and usage is counted in blocks: the first file a program writes takes a 4 KiB block on a
 * node's disk, and a page as large on a memory-backed one (whose tmpfs the kubelet also sizes to the limit). A limit
 * under 4 KiB, such as `16` where `16Mi` was meant (a quantity with no suffix counts bytes), is passed by the API server
 * and evicts the pod once its program writes anything there; its controller makes another, which goes the same way.
 */
import { objects } from '../../model/core/dig.ts';
import { podSpecOf, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import { decodeQuantity, scaledValue } from '../../model/go/quantity.ts';
import { scalarText } from '../../model/core/text.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** A block of a node's file system, and a page of its memory: the least a written file takes of a volume. */
const BLOCK_BYTES = 4096n;

export const volumeSizeCheck: PolicyCheck = {
  id: 'workload-volume-size',
  description: `Every emptyDir sizeLimit, where set and above zero, is at least ${BLOCK_BYTES} bytes (4Ki): the kubelet evicts the pod once the volume uses more than its limit, and the first file a program writes there takes a 4 KiB block (a page on a memory-backed one), so a smaller limit (16 where 16Mi was meant: a quantity with no suffix counts bytes) evicts the pod each time it starts writing; the API server takes it (invariants P1).`,
  invariants: ['P1'],
  remediation: 'give the sizeLimit its unit (16Mi, not 16), at least 4Ki, or leave it unset',
  reads: { kinds: [...WORKLOAD_KINDS], renders: true },
  exemptible: false,
  run(ctx) {
    for (const resource of ctx.resources) {
      const pod = podSpecOf(resource);
      if (!pod) continue;
      objects(pod.spec.volumes).forEach((volume, i) => {
        const limit = objects([volume.emptyDir])[0]?.sizeLimit;
        if (limit === undefined || limit === null) return;
        const parsed = decodeQuantity(limit);
        // A quantity the API server refuses is the schema's finding; zero sets no limit at all.
        const bytes = parsed.ok ? scaledValue(parsed.quantity, 0) : undefined;
        if (bytes === undefined || bytes <= 0n || bytes >= BLOCK_BYTES) return;
        ctx.fail(
          { resource, path: [...pod.at, 'volumes', i, 'emptyDir', 'sizeLimit'] },
          `emptyDir ${scalarText(volume.name)} of ${resource.kind} ${resource.name} may hold ${bytes} byte${bytes === 1n ? '' : 's'} (sizeLimit ${JSON.stringify(limit)}${/^\s*[\d.]+\s*$/.test(scalarText(limit)) ? ': a quantity with no suffix counts bytes' : ''}): the first file its program writes takes a 4 KiB block, and the kubelet evicts the pod each time`,
        );
      });
    }
  },
};
