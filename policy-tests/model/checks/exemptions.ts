/**
 * Exemptions, a step of the runner declared once, here: a workload opts out of one exemptible check with an
 * annotation next to it that names the check and says why. The runner drops the findings an exemption covers;
 * this step then judges every exemption itself (`exemption-valid`), which needs every other check's outcome,
 * so it is not a check of its own area.
 */
import type { PolicyCheck } from './kit.ts';
import type { Finding } from '../core/findings.ts';
import { findingAt, resourceKey, type Resource } from '../core/manifest.ts';
import { EXEMPTION_PREFIX, workloadAnnotations } from '../core/workloads.ts';

export const EXEMPTION_CHECK_ID = 'exemption-valid';

/** The step's declaration, for the registry's ids, the check table and docs/invariants.md; the step itself is `exemptionFindings`. */
export const exemptionCheck: PolicyCheck = {
  id: EXEMPTION_CHECK_ID,
  description:
    'Every exemption annotation names an exemptible check, gives a reason, and is still needed (docs/design.md: exemptions sit next to the workload; S8).',
  invariants: ['S8'],
  remediation: `use ${EXEMPTION_PREFIX}<check-id>: "<why>" on the workload itself, and delete exemptions that no longer suppress anything`,
  reads: { kinds: ['*'], everyKind: 'an exemption annotation may sit on any resource' },
  exemptible: false,
  run() {
    // Judged by exemptionFindings after every other check ran: whether an exemption is still needed depends on them.
  },
};

/** A workload's exemptions: annotations on the workload, or on its pod template (model/core/workloads.ts). */
export function exemptionsOf(resource: Resource): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(workloadAnnotations(resource))) {
    if (key.startsWith(EXEMPTION_PREFIX)) out.set(key.slice(EXEMPTION_PREFIX.length), typeof value === 'string' ? value.trim() : '');
  }
  return out;
}

/** The key under which the runner records an exemption that suppressed a finding. */
export const exemptionUse = (at: Parameters<typeof resourceKey>[0], check: string): string => `${resourceKey(at)}#${check}`;

/** Every exemption judged: one naming an unknown check, a check that cannot be exempted, no reason, or nothing it still suppresses. */
export function exemptionFindings(resources: readonly Resource[], known: ReadonlyMap<string, PolicyCheck>, used: ReadonlySet<string>): Finding[] {
  const findings: Finding[] = [];
  for (const resource of resources) {
    for (const [id, reason] of exemptionsOf(resource)) {
      const path = ['metadata', 'annotations', `${EXEMPTION_PREFIX}${id}`];
      const fail = (message: string): void =>
        void findings.push(findingAt(resource, path, { check: EXEMPTION_CHECK_ID, message, fix: exemptionCheck.remediation, target: 'key' }));
      const check = known.get(id);
      if (!check) fail(`exemption names unknown check "${id}"`);
      else if (!check.exemptible) fail(`check ${id} cannot be exempted`);
      else if (!reason) fail(`exemption from ${id} gives no reason`);
      else if (!used.has(exemptionUse(resource, id))) fail(`exemption from ${id} is stale: ${resource.kind} ${resource.name} passes it`);
    }
  }
  return findings;
}
