/**
 * Pod Security admission at each namespace's level: enforce is a finding,
 * warn and audit are warnings; a namespace below the cluster's default says why.
 */
import {
  levelsFor,
  LABEL_PREFIX,
  LATEST_POLICY_MINOR,
  MODES,
  podSecurityViolations,
  isLevel,
  isPolicyVersion,
  levelRank,
  type PodSecurityConfig,
} from '../pod-security/pod-security.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { dig, obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { podSpecOf } from '../../model/core/workloads.ts';
import { namespaceLevels } from '../pod-security/namespace-levels.ts';
import { MANAGED_METADATA_PATH, managedNamespaces, namespaceAnnotations, namespaceLabels } from '../../model/cluster/namespaces.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { scalarText } from '../../model/core/text.ts';

/** The annotation a namespace whose Pod Security level is below the cluster's default must carry, saying why. */
export const POD_SECURITY_REASON = 'gate.homelab-gitops/pod-security-reason';

export function podSecurityCheck(isBuiltin: (r: Resource) => boolean): PolicyCheck {
  return {
    id: 'pod-security',
    description:
      "Every pod template passes Pod Security admission at its namespace's enforce level (its pod-security.kubernetes.io/enforce label, else the cluster's default in the podSecurity fact, read as Pod Security reads them; exempt namespaces are skipped; a level pinned to an older policy version judged by that version's controls); the warn and audit levels are reported as warnings. A namespace whose level is below the default says why, whether its Namespace sets the level or an Application's managedNamespaceMetadata writes it (invariants P1).",
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
        if (levels === 'exempt' || exemptRuntimeClass(facts.exemptRuntimeClasses, pod.spec)) continue;
        const meta = (r.kind === 'Pod' ? dig(r.object, ['metadata']) : dig(r.object, [...pod.at.slice(0, -1), 'metadata'])) ?? {};
        const metaAt = r.kind === 'Pod' ? [] : pod.at.slice(0, -1);
        const place = (path: (string | number)[]) => ({ resource: r, path: path[0] === 'metadata' ? [...metaAt, ...path] : [...pod.at, ...path] });
        // A mode pinned to a policy version is judged by that version's controls (measured against upstream's fixtures
        // of every version up to the newest); one pinned newer than the cluster is the cluster's latest.
        const versionOf = (mode: (typeof MODES)[number]) => Math.min(levels.versions?.[mode] ?? minor, minor);
        const policy = (mode: (typeof MODES)[number]) => `${levels[mode]}:${levels.versions?.[mode] === undefined ? 'latest' : `v1.${levels.versions[mode]}`}`;
        const enforced = podSecurityViolations(levels.enforce, meta as never, pod.spec, versionOf('enforce'));
        // The cluster exempts some users' requests: whether the one that creates these pods (Argo CD for a bare Pod,
        // a controller for a template's) is among them depends on the controller manager's credentials.
        if (enforced.length > 0 && facts.exemptUsernames.length > 0) {
          ctx.notJudged(
            place(enforced[0]!.path),
            `${r.kind} ${r.name}: violates PodSecurity "${policy('enforce')}" in namespace ${namespace} (${enforced.map((v) => v.control).join(', ')}), unless the user that creates its pods is one the cluster exempts (${facts.exemptUsernames.join(', ')})`,
          );
          continue;
        }
        for (const v of enforced)
          ctx.fail(
            place(v.path),
            `${r.kind} ${r.name}: its pods are refused in namespace ${namespace}: violates PodSecurity "${policy('enforce')}" (enforce): ${v.message} [${v.control}]`,
          );
        const reported = new Set(enforced.map((v) => v.message));
        for (const mode of ['warn', 'audit'] as const) {
          if (levelRank(levels[mode]) <= levelRank(levels.enforce)) continue;
          for (const v of podSecurityViolations(levels[mode], meta as never, pod.spec, versionOf(mode))) {
            if (reported.has(v.message)) continue;
            reported.add(v.message);
            ctx.warn(
              place(v.path),
              `${r.kind} ${r.name}: would violate PodSecurity "${policy(mode)}" (${mode}) in namespace ${namespace}: ${v.message} [${v.control}]`,
            );
          }
        }
      }
      namespacesSayWhy(ctx, facts.defaults);
    },
  };
}

/** Whether the pod runs under a runtime class the cluster exempts from Pod Security (exemptions.runtimeClasses). */
function exemptRuntimeClass(exempt: readonly string[], spec: Record<string, unknown>): boolean {
  const runtimeClass = spec.runtimeClassName;
  return typeof runtimeClass === 'string' && exempt.includes(runtimeClass);
}

/** Who sets a namespace's Pod Security labels: a Namespace, or an Application writing managedNamespaceMetadata on it. */
interface LevelWriter {
  who: string;
  labels: Record<string, unknown>;
  at: (key: string) => FailurePlace;
  /** The labels the namespace ends up with, where this writer answers for its level (an Application only where it sets enforce). */
  final: Record<string, unknown> | undefined;
  /** The reason annotation the namespace ends up with. */
  reason: unknown;
}

function levelWriters(repo: Repo): LevelWriter[] {
  const objects = repo.resources
    .filter((r) => r.kind === 'Namespace')
    .map((ns): LevelWriter => {
      const labels = obj(dig(ns.object, ['metadata', 'labels']));
      return {
        who: `Namespace ${ns.name}`,
        labels,
        at: (key) => ({ resource: ns, path: ['metadata', 'labels', key] }),
        final: labels,
        reason: dig(ns.object, ['metadata', 'annotations', POD_SECURITY_REASON]),
      };
    });
  // What an Application writes on its namespace sets its level as a Namespace's labels do; it answers for a level only where it sets enforce.
  const written = managedNamespaces(repo).flatMap((m): LevelWriter[] =>
    m.written && m.metadata
      ? [
          {
            who: `Namespace ${m.namespace} (as Application ${m.app.name}'s managedNamespaceMetadata writes it)`,
            labels: m.metadata.labels,
            at: (key) => ({ resource: m.app.resource, path: [...MANAGED_METADATA_PATH, 'labels', key] }),
            final: m.metadata.labels[`${LABEL_PREFIX}enforce`] === undefined ? undefined : namespaceLabels(repo).get(m.namespace),
            reason: namespaceAnnotations(repo, m.namespace)[POD_SECURITY_REASON],
          },
        ]
      : [],
  );
  return [...objects, ...written];
}

/** Each level label is a level, and a namespace below the cluster's default enforce level says why where it is lowered. */
function namespacesSayWhy(ctx: CheckContext, defaults: PodSecurityConfig): void {
  for (const w of levelWriters(ctx.repo)) {
    // Pod Security refuses a namespace whose labels it cannot read (ValidateNamespace on create).
    for (const mode of MODES) {
      const key = `${LABEL_PREFIX}${mode}`;
      if (w.labels[key] !== undefined && !isLevel(w.labels[key]))
        ctx.fail(w.at(key), `${w.who}: ${key} must be privileged, baseline or restricted, not "${scalarText(w.labels[key])}"`);
      const version = `${key}-version`;
      if (w.labels[version] !== undefined && !isPolicyVersion(w.labels[version]))
        ctx.fail(w.at(version), `${w.who}: ${version} must be "latest" or "v1.x", not "${scalarText(w.labels[version])}"`);
    }
    if (!w.final) continue;
    const enforce = levelsFor(w.final, defaults).enforce;
    // Whether its pods need that level cannot be judged here: operators (Rook, for one) create the privileged pods at run time.
    if (levelRank(enforce) < levelRank(defaults.enforce) && (typeof w.reason !== 'string' || w.reason.trim() === ''))
      ctx.fail(
        w.at(`${LABEL_PREFIX}enforce`),
        `${w.who} enforces only "${enforce}", below the cluster's "${defaults.enforce}", without saying why: annotate it ${POD_SECURITY_REASON}`,
      );
  }
}
