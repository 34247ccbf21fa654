/**
 * workload-capabilities-known: every capability a container adds or drops is one the container runtime can give or
 * take. The API server takes any text there. containerd's CRI (`WithCapabilities`, v2.2) skips `ALL` (in any case),
 * writes `CAP_` and the name in upper case into the OCI spec, and runc (libcontainer/capabilities, `capSlice`)
 * leaves out a name it does not know, with a warning in the runtime's log alone: a misspelt drop drops nothing (the
 * container keeps every capability it was meant to lose), a misspelt add grants nothing (the program fails on its
 * first privileged call), and a name written with its `CAP_` prefix is CAP_CAP_..., unknown the same way.
 */
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { dig } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { capabilityName, LINUX_CAPABILITIES, workloadContainers, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** What the entry does where runc does not know it. */
const EFFECT = { add: 'grants nothing', drop: 'drops nothing' } as const;

/** What an entry may name: ALL, or a capability runc knows. */
const NAMES: ReadonlySet<string> = new Set(['ALL', ...LINUX_CAPABILITIES]);

/** Why runc does not know a name, and the name meant where one is near. */
function unknownBecause(raw: string): string {
  const name = capabilityName(raw);
  if (name.startsWith('CAP_') && NAMES.has(name.slice(4)))
    return `is written with its CAP_ prefix, which containerd writes itself (CAP_${name}) (did you mean "${name.slice(4)}"?)`;
  return `is no Linux capability (containerd asks runc for CAP_${name})${didYouMean(name, NAMES)}`;
}

export const capabilitiesKnownCheck: PolicyCheck = {
  id: 'workload-capabilities-known',
  description:
    "Every capability a container adds or drops is ALL or a Linux capability runc knows, written without its CAP_ prefix (in any case): the API server takes any text, containerd writes CAP_ before the name, and runc leaves out a name it does not know with a warning in the runtime's log alone, so a misspelt drop drops nothing (the container keeps what it was meant to lose) and a misspelt add grants nothing (invariants P1, S8).",
  invariants: ['P1', 'S8'],
  remediation: 'write the capability as Kubernetes documents it, without CAP_ (NET_ADMIN, SYS_TIME, ALL), or remove the entry',
  reads: { kinds: [...WORKLOAD_KINDS] },
  exemptible: false,
  run(ctx) {
    for (const { resource, c } of workloadContainers(ctx.resources))
      for (const field of ['add', 'drop'] as const) {
        const names = dig(c.container, ['securityContext', 'capabilities', field]);
        if (!Array.isArray(names)) continue;
        names.forEach((raw, i) => {
          const name = capabilityName(raw);
          if (NAMES.has(name)) return;
          ctx.fail(
            { resource, path: [...c.at, 'securityContext', 'capabilities', field, i] },
            `container ${c.name}: capabilities.${field} "${scalarText(raw)}" ${unknownBecause(scalarText(raw))}; runc leaves out a capability it does not know, so this entry ${EFFECT[field]}`,
          );
        });
      }
  },
};
