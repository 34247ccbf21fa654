/**
 * The policy runner. Exemptions are handled here, once, for every exemptible
 * check: a workload opts out of one check with an annotation next to it that
 * names the check and the reason.
 */
import { EXEMPTION_CHECK_ID, EXEMPTION_PREFIX, exemptionCheck } from '../checks/registry.ts';
import type { CheckContext, PolicyCheck } from '../checks/types.ts';
import type { Finding } from '../model/findings.ts';
import { findingAt, type Resource } from '../model/manifest.ts';
import type { Repo } from '../model/repo.ts';

function exemptionsOf(resource: Resource): Map<string, string> {
  const annotations = (resource.object.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations ?? {};
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(annotations)) {
    if (key.startsWith(EXEMPTION_PREFIX)) out.set(key.slice(EXEMPTION_PREFIX.length), typeof value === 'string' ? value.trim() : '');
  }
  return out;
}

function contextFor(check: PolicyCheck, repo: Repo, out: Finding[]): CheckContext {
  const all = check.kinds.includes('*');
  return {
    repo,
    resources: all ? repo.resources : repo.resources.filter((r) => check.kinds.includes(r.kind)),
    fail(resource, path, message, target) {
      out.push(findingAt(resource, path, check.id, message, check.remediation, target));
    },
    failAtFile(file, message) {
      out.push({ file, line: 1, col: 1, check: check.id, message, fix: check.remediation });
    },
    failAt(file, line, col, message) {
      out.push({ file, line, col, check: check.id, message, fix: check.remediation });
    },
  };
}

export function runPolicy(repo: Repo, checks: readonly PolicyCheck[]): Finding[] {
  const byLocation = new Map(repo.resources.map((r) => [`${r.file}#${r.doc}`, r]));
  const known = new Map(checks.map((c) => [c.id, c]));
  const used = new Set<string>();
  const findings: Finding[] = [];
  for (const check of checks) {
    const raw: Finding[] = [];
    check.run(contextFor(check, repo, raw));
    for (const finding of raw) {
      const resource = finding.doc === undefined ? undefined : byLocation.get(`${finding.file}#${finding.doc}`);
      const reason = check.exemptible && resource ? exemptionsOf(resource).get(check.id) : undefined;
      if (reason) used.add(`${finding.file}#${finding.doc}#${check.id}`);
      else findings.push(finding);
    }
  }
  if (known.has(EXEMPTION_CHECK_ID)) {
    for (const resource of repo.resources) {
      for (const [id, reason] of exemptionsOf(resource)) {
        const path = ['metadata', 'annotations', `${EXEMPTION_PREFIX}${id}`];
        const fail = (message: string): void => {
          findings.push(findingAt(resource, path, EXEMPTION_CHECK_ID, message, exemptionCheck.remediation, 'key'));
        };
        const check = known.get(id);
        if (!check) fail(`exemption names unknown check "${id}"`);
        else if (!check.exemptible) fail(`check ${id} cannot be exempted`);
        else if (!reason) fail(`exemption from ${id} gives no reason`);
        else if (!used.has(`${resource.file}#${resource.doc}#${id}`)) fail(`exemption from ${id} is stale: ${resource.kind} ${resource.name} passes it`);
      }
    }
  }
  return findings;
}
