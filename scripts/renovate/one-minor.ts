/**
 * Dependencies whose upgrade takes one minor at a time: the cluster's
 * Kubernetes, which `talosctl upgrade-k8s` moves to the next minor only
 * (siderolabs/go-kubernetes' upgrade path; the rendered diff judges a move,
 * scripts/diff/upgrade-risks.ts), and the chart of every Application that
 * says so (gate.homelab-gitops/upgrades-one-minor-at-a-time: Rook's, whose
 * upgrade guide for each release starts from the minor before). Renovate proposes the newest release of a
 * bucket, and by default every minor shares one bucket, so a cluster two
 * minors behind would be offered the newest in one pull request that
 * talosctl refuses. Each must be offered minor by minor (separateMultipleMinor
 * on a rule without matchUpdateTypes: the lookup buckets releases before it
 * knows an update's type). And a patch of the running minor must be offered
 * on its own, not only inside the next minor's pull request, which waits for
 * a person. Asked of Renovate's own functions, offline, with the next patch
 * and the next two minors as the releases to choose from.
 */
import type { ExtractedDep, Question } from './renovate.ts';

/** The pins that move one minor at a time wherever they are, by Renovate's dependency name, and what holds them to it. */
const ONE_MINOR_AT_A_TIME: ReadonlyMap<string, string> = new Map([['kubernetes/kubernetes', 'talosctl upgrade-k8s takes the next minor only']]);

/** A pin Renovate would not offer step by step: the release it would skip or hold back, and the one it offers instead. */
export interface SkippedMinor {
  file: string;
  depName: string;
  from: string;
  /** `minor`: the next minor is offered only with the one after it; `patch`: the patch only with the next minor. */
  step: 'minor' | 'patch';
  /** The release not offered on its own. */
  skipped: string;
  /** The release of the pull request it would come in. */
  proposed: string;
  /** What holds the pin to one minor at a time. */
  why: string;
}

/** The next patch and the next two minors' first releases of `current` (x.y.z, a leading v kept); none when it is no such version. */
export function nextSteps(current: string): [string, string, string] | undefined {
  const m = /^(v?)(\d+)\.(\d+)\.(\d+)$/.exec(current);
  if (!m) return undefined;
  const [, v, major, minor, patch] = m;
  return [`${v}${major}.${minor}.${Number(patch) + 1}`, `${v}${major}.${Number(minor) + 1}.0`, `${v}${major}.${Number(minor) + 2}.0`];
}

/**
 * What to ask Renovate of the pins of `deps` that move one minor at a time, and which it would not offer step by
 * step: the cluster's Kubernetes, and the chart of each Application file `charts` names (those annotated
 * gate.homelab-gitops/upgrades-one-minor-at-a-time, with the reason they give).
 */
export function minorsQuestion(deps: readonly ExtractedDep[], charts: ReadonlyMap<string, string> = new Map()): Question<SkippedMinor[]> {
  // What Renovate skips (a wrapper chart's file:// dependency beside a fetched one) it offers nothing for: not asked.
  const why = (d: ExtractedDep) =>
    d.skipReason ? undefined : (d.depName && ONE_MINOR_AT_A_TIME.get(d.depName)) || (d.datasource === 'helm' ? charts.get(d.file) : undefined);
  const asked = deps.flatMap((d) => {
    const reason = why(d);
    const next = reason && d.currentValue ? nextSteps(d.currentValue) : undefined;
    return next && reason ? [{ ...d, releases: next, why: reason }] : [];
  });
  return {
    asked,
    judge: (answers) =>
      asked.flatMap((d, i) => {
        const offered = new Set((answers[i]?.proposals ?? []).map((p) => p.version));
        const [patch, next, after] = d.releases;
        // What Renovate offers a release in when not on its own: the next step up it does offer.
        const carrier = (from: string) => d.releases.slice(d.releases.indexOf(from) + 1).find((v) => offered.has(v)) ?? after;
        const at = { file: d.file, depName: d.depName!, from: d.currentValue!, why: d.why };
        return [
          ...(offered.has(patch) ? [] : [{ ...at, step: 'patch' as const, skipped: patch, proposed: carrier(patch) }]),
          ...(offered.has(next) ? [] : [{ ...at, step: 'minor' as const, skipped: next, proposed: carrier(next) }]),
        ];
      }),
  };
}
