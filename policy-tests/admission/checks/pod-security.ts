/**
 * Pod Security admission at each namespace's level: enforce is a finding,
 * warn and audit are warnings; a namespace below the cluster's default says why.
 */
import { levelsFor, LABEL_PREFIX, LATEST_POLICY_MINOR, MODES, podSecurityViolations, isLevel, type Level } from '../pod-security/pod-security.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { podSpecOf } from '../../model/core/workloads.ts';
import { namespaceLevels } from '../pod-security/namespace-levels.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { scalarText } from '../../model/core/text.ts';

/** The annotation a namespace whose Pod Security level is below the cluster's default must carry, saying why. */
export const POD_SECURITY_REASON = 'gate.homelab-gitops/pod-security-reason';

const LEVEL_ORDER: Record<Level, number> = { privileged: 0, baseline: 1, restricted: 2 };

export function podSecurityCheck(isBuiltin: (r: Resource) => boolean): PolicyCheck {
  return {
    id: 'pod-security',
    description:
      "Every pod template passes Pod Security admission at its namespace's enforce level (its pod-security.kubernetes.io/enforce label, else the cluster's default in the podSecurity fact; exempt namespaces are skipped); the warn and audit levels are reported as warnings. A namespace whose level is below the default says why (invariants P1).",
    invariants: ['P1'],
    remediation: `make the pod meet the level (drop the capability, the host namespace, the hostPath), or move it to a namespace labelled for what it needs, annotated ${POD_SECURITY_REASON}: "<why>"`,
    reads: { kinds: ['*'], everyKind: "a pod may come from any kind that carries a pod template, and its namespace's labels set the level" },
    exemptible: false,
    run(ctx) {
      const { repo } = ctx;
      const facts = repo.facts?.podSecurity;
      const levelsOf = namespaceLevels(repo);
      if (!facts || !levelsOf) return;
      // "latest" is the cluster's own version: the facts' (or --kubernetes-version's), never newer than the controls.
      const factsMinor = repo.facts?.kubernetesMinor;
      const minor = Number.isFinite(factsMinor) ? Math.min(factsMinor!, LATEST_POLICY_MINOR) : LATEST_POLICY_MINOR;
      for (const r of ctx.resources) {
        const pod = podSpecOf(r);
        if (!pod || !isBuiltin(r)) continue;
        const namespace = namespaceOrDestination(repo, r);
        if (!namespace) continue;
        const levels = levelsOf(namespace);
        if (levels === 'exempt') continue;
        const meta = (r.kind === 'Pod' ? dig(r.object, ['metadata']) : dig(r.object, [...pod.at.slice(0, -1), 'metadata'])) ?? {};
        const metaAt = r.kind === 'Pod' ? [] : pod.at.slice(0, -1);
        const place = (path: (string | number)[]) => ({ resource: r, path: path[0] === 'metadata' ? [...metaAt, ...path] : [...pod.at, ...path] });
        const enforced = podSecurityViolations(levels.enforce, meta as never, pod.spec, minor);
        for (const v of enforced)
          ctx.fail(
            place(v.path),
            `${r.kind} ${r.name}: its pods are refused in namespace ${namespace}: violates PodSecurity "${levels.enforce}:latest" (enforce): ${v.message} [${v.control}]`,
          );
        const reported = new Set(enforced.map((v) => v.message));
        for (const mode of ['warn', 'audit'] as const) {
          if (LEVEL_ORDER[levels[mode]] <= LEVEL_ORDER[levels.enforce]) continue;
          for (const v of podSecurityViolations(levels[mode], meta as never, pod.spec, minor)) {
            if (reported.has(v.message)) continue;
            reported.add(v.message);
            ctx.warn(
              place(v.path),
              `${r.kind} ${r.name}: would violate PodSecurity "${levels[mode]}:latest" (${mode}) in namespace ${namespace}: ${v.message} [${v.control}]`,
            );
          }
        }
      }
      for (const ns of repo.resources.filter((r) => r.kind === 'Namespace')) {
        const labels = (dig(ns.object, ['metadata', 'labels']) ?? {}) as Record<string, unknown>;
        for (const mode of MODES) {
          const key = `${LABEL_PREFIX}${mode}`;
          if (labels[key] !== undefined && !isLevel(labels[key]))
            ctx.fail(
              { resource: ns, path: ['metadata', 'labels', key] },
              `Namespace ${ns.name}: ${key} must be privileged, baseline or restricted, not "${scalarText(labels[key])}"`,
            );
        }
        const enforce = levelsFor(labels, facts.defaults).enforce;
        if (LEVEL_ORDER[enforce] >= LEVEL_ORDER[facts.defaults.enforce]) continue;
        const reason = dig(ns.object, ['metadata', 'annotations', POD_SECURITY_REASON]);
        // Whether its pods need that level cannot be judged here: operators (Rook, for one) create the privileged pods at run time.
        if (typeof reason !== 'string' || reason.trim() === '')
          ctx.fail(
            { resource: ns, path: ['metadata', 'labels', `${LABEL_PREFIX}enforce`] },
            `Namespace ${ns.name} enforces only "${enforce}", below the cluster's "${facts.defaults.enforce}", without saying why: annotate it ${POD_SECURITY_REASON}`,
          );
      }
    },
  };
}
