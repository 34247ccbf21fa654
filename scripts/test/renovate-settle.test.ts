/**
 * Renovate's own package rules and lookup, run on a copy of the repository: the pull requests it would open, as
 * renovate:check settles them. A file of its own: one run of Renovate is most of a minute on the 2-core machine, and
 * renovate.test.ts holds the other.
 */
import { describe, expect, it } from 'vitest';
import { facts, loadRepo } from '../../policy-tests/index.ts';
import { ask, type ExtractedDep } from '../renovate/renovate.ts';
import { minorsQuestion, type SkippedMinor } from '../renovate/one-minor.ts';
import { pairsQuestion, type SplitPair } from '../renovate/release-pairs.ts';
import { useRenovateCopy } from './renovate-copy.ts';

describe('Renovate itself on a copy of the repository', () => {
  const { root, change, restore } = useRenovateCopy();

  it("settles pull requests as Renovate's own package rules and lookup do, and says so when a config splits Tdarr's node and server, or offers the cluster's newest Kubernetes or Rook at once (not a patch alone and each minor alone)", async () => {
    // Both questions in one run of Renovate's functions, as renovate:check asks them: its start-up is most of a run. The
    // repository's own config gives no SPLIT, SKIPS or HOLDS line in the inspection of the next test, which asks the
    // same questions of every pin Renovate extracts; here, the config broken.
    const pin = (depName: string): ExtractedDep => ({
      file: 'apps/media/tdarr/deployment.yaml',
      manager: 'kubernetes',
      datasource: 'docker',
      depName,
      currentValue: '2.49.01',
    });
    const deps = [pin('ghcr.io/haveagitgat/tdarr'), pin('ghcr.io/haveagitgat/tdarr_node'), pin('ghcr.io/home-operations/plex')];
    const kubernetes: ExtractedDep = {
      file: 'clusters/home/cluster-facts.yaml',
      manager: 'regex',
      datasource: 'github-releases',
      depName: 'kubernetes/kubernetes',
      currentValue: '1.36.3',
    };
    // The chart of an Application annotated upgrades-one-minor-at-a-time, found through the annotation.
    const rook: ExtractedDep = {
      file: 'apps/platform/rook-ceph/application.yaml',
      manager: 'argocd',
      datasource: 'helm',
      depName: 'rook-ceph',
      currentValue: 'v1.20.6',
    };
    const repo = await loadRepo(root());
    await change('.github/renovate.json5', (t) =>
      t
        .replace("groupName: 'tdarr',", '')
        .replace("groupName: 'kubernetes',\n      separateMultipleMinor: true,", "groupName: 'kubernetes',")
        .replace("groupName: 'rook-ceph',\n      separateMultipleMinor: true,", "groupName: 'rook-ceph',"),
    );
    try {
      const cluster = {
        file: 'clusters/home/cluster-facts.yaml',
        depName: 'kubernetes/kubernetes',
        from: '1.36.3',
        why: 'talosctl upgrade-k8s takes the next minor only',
      };
      const chart = { file: rook.file, depName: 'rook-ceph', from: 'v1.20.6', why: "Rook's upgrade guide for each release starts from the minor before" };
      expect(
        await ask<[SplitPair[], SkippedMinor[]]>(root(), [pairsQuestion(repo, deps), minorsQuestion([kubernetes, rook], facts.oneMinorAtATime(repo))]),
      ).toEqual([
        [{ image: 'ghcr.io/haveagitgat/tdarr_node', partner: 'ghcr.io/haveagitgat/tdarr', file: 'apps/media/facts/images.yaml', groups: [undefined] }],
        [
          { ...cluster, step: 'patch', skipped: '1.36.4', proposed: '1.38.0' },
          { ...cluster, step: 'minor', skipped: '1.37.0', proposed: '1.38.0' },
          { ...chart, step: 'patch', skipped: 'v1.20.7', proposed: 'v1.22.0' },
          { ...chart, step: 'minor', skipped: 'v1.21.0', proposed: 'v1.22.0' },
        ],
      ]);
    } finally {
      await restore();
    }
  });

  it("asks of a wrapper chart's dependencies from a chart repository, not of the ones Renovate skips (file://)", () => {
    const why = "the chart's guide starts from the minor before";
    const dep = (depName: string, skipReason?: string): ExtractedDep => ({
      file: 'apps/probe/chart/Chart.yaml',
      manager: 'helmv3',
      datasource: 'helm',
      depName,
      currentValue: '1.2.3',
      ...(skipReason ? { skipReason } : {}),
    });
    const { asked } = minorsQuestion([dep('exporter'), dep('local', 'local-dependency')], new Map([['apps/probe/chart/Chart.yaml', why]]));
    expect(asked).toEqual([expect.objectContaining({ depName: 'exporter', releases: ['1.2.4', '1.3.0', '1.4.0'], why })]);
  });
});
