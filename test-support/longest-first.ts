/**
 * The order test files start in. Vitest starts the files that took longest
 * last time first, from its own cache; with no cache (a clean clone, as CI
 * runs) it starts the largest files first, and a small file that holds a
 * worker for a minute can start last and decide when the run ends. These are
 * the files that hold a worker longest, and why; with no timings of its own,
 * vitest starts them first, in this order, and then the rest by size.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const LONGEST_FILES = [
  // In the order of a clean clone's run on the 2-core machine (2026-11-26, seconds each held a worker): longest
  // first, so the last files to start are short ones and no long file ends the run alone on one core (the
  // largest mutation list, started 48 s in by size, had ended that run alone, 5.6 s after the others).
  'scripts/test/workflows-run.test.ts', // 8.5 alone (2026-12-02): a bump's pull request, its three jobs, each step a process
  'scripts/test/workflows-cache-forged.test.ts', // 8.6 alone (2026-12-02): the gate's job run twice, the cache forged between
  'scripts/test/workflows-cache.test.ts', // 8.2 alone (2026-12-02): the gate's job run twice
  'scripts/test/workflows-cache-bump.test.ts', // 8.3 alone (2026-12-01): the gate's job run twice on a bump
  'scripts/test/renovate.test.ts', // 18.6: Renovate's own start-up, and its extraction of the whole repository
  'policy-tests/test/gate/warm-equals-cold.test.ts', // 9.5 alone (2026-12-04): cold gate processes, split in three from 22.5
  'scripts/test/backup-postgres.test.ts', // 9.0 alone (2026-12-04): a PostgreSQL server, pg_dump per case; its restores split off
  'policy-tests/test/gate/warm-equals-cold-checks.test.ts', // 8.4 alone (2026-12-04)
  'policy-tests/test/gate/warm-equals-cold-programs.test.ts', // 8.3 alone (2026-12-04)
  'scripts/test/restore-postgres-crash.test.ts', // 8.2 alone (2026-12-04): a restore killed or crashed at each step
  'scripts/test/restore-postgres.test.ts', // 7.7 alone (2026-12-04)
  'scripts/test/backup.test.ts', // 7.6 alone (2026-12-04): real SQLite, zstd and restic per case; split in three from 15.1
  'scripts/test/restore.test.ts', // 7.2 alone (2026-12-04): the SQLite target's backup read back
  'scripts/test/front-door-hook.test.ts', // 8.2 alone (2026-12-05): the gate's build made twice, in a copy of the code
  'policy-tests/test/checks/media-checks.test.ts', // 7-8: the largest mutation lists, a gate run per mutation
  'scripts/test/workflows-record.test.ts', // 6 alone (2026-12-02): the merged bump's record job
  'monitoring/watchdog/test/watchdog.test.ts', // workerd: the heartbeat path; the sites split off (2026-12-04, 12.8 alone)
  'monitoring/watchdog/test/sites.test.ts', // workerd: the sites and configuration
  'policy-tests/test/render/render.test.ts', // 9.3: real Helm and kubectl renders into fresh caches
  'policy-tests/test/render/render-cache.test.ts', // a cold cache's passes, split from render.test (2026-12-04)
  'policy-tests/test/render/chart-lock.test.ts', // charts:pull and the lock, split from render.test (2026-12-04)
  'scripts/test/scripts-help.test.ts', // every npm script's --help, split from command.test (2026-12-04)
  'policy-tests/test/checks/alert-rules.test.ts', // 8.6: promtool on every rule file and test
  'policy-tests/test/checks/alert-routing.test.ts', // 4.4 alone (2026-12-04): amtool on every row, a real Alertmanager's inhibition
  'policy-tests/test/checks/admission-checks.test.ts', // 8.3 alone (2026-12-04): the API server's validation, split from 13.4
  'policy-tests/test/checks/workload-checks.test.ts', // 8.5 alone (2026-12-04): a workload's hygiene, images, registries, split from core-checks
  'policy-tests/test/checks/crd-checks.test.ts', // 7.7 alone (2026-12-04): a CRD's schema and rules, split from admission-checks
  'policy-tests/test/checks/sync-authorized-checks.test.ts', // 7.8 alone (2026-12-04): split from admission-sync-checks (15.4)
  'policy-tests/test/checks/admission-sync-checks.test.ts', // 7.5 alone (2026-12-04)
  'policy-tests/test/checks/core-checks.test.ts', // 7.2 alone (2026-12-04): mutations, the coverage, exemptions
  'policy-tests/test/checks/argocd-checks.test.ts', // 8.4 alone (2026-12-04): what Argo CD reads, split from 13.3
  'policy-tests/test/checks/argocd-sync-checks.test.ts', // 8.0 alone (2026-12-04): how it syncs
  'scripts/test/backup-image.test.ts', // 6.3: the image's bundle built and run
  'scripts/test/backup-etcd.test.ts', // 9.6 alone (2026-12-04): an etcd server; its requests split off (12.3 before)
  'scripts/test/backup-etcd-requests.test.ts', // 7.2 alone (2026-12-04): the job's kubectl and Talos calls
  'policy-tests/test/checks/network-policy-checks.test.ts', // the network policies' mutations, split from platform-checks (14.3 alone, 2026-12-04)
  'policy-tests/test/checks/platform-checks.test.ts', // a sync's order and health: mutations
  'policy-tests/test/checks/monitoring-checks.test.ts', // 5.6: mutations
  'policy-tests/test/checks/monitoring-sources-checks.test.ts', // the monitoring sources' mutations, split from it (2026-12-04)
  'policy-tests/test/checks/closure-node-checks.test.ts', // the closure's mutations of what a pod asks of the nodes, split from closure-checks (2026-12-04)
  // Split by what they prove on 2026-12-04 (each 5-9 s alone): small files by size, which vitest alone would start last.
  'policy-tests/test/checks/closure-checks.test.ts',
  'policy-tests/test/checks/closure-traffic-checks.test.ts',
  'policy-tests/test/checks/alerting-checks.test.ts',
  'policy-tests/test/checks/falco-tuning-checks.test.ts',
  'policy-tests/test/checks/media-settings-checks.test.ts',
  'policy-tests/test/checks/media-downloads-checks.test.ts',
  'policy-tests/test/checks/pod-security-checks.test.ts',
  'policy-tests/test/checks/closure-resource-checks.test.ts',
  'scripts/test/backup-failures.test.ts',
  'portfolio-api/test/hostile.test.ts', // 5.5: slow clients, waited on
  'scripts/test/backup-under-writes.test.ts', // 5.4: a backup while a writer commits
  'policy-tests/test/checks/falco-checks.test.ts', // 5.1: mutations
  'scripts/test/diff.test.ts', // 4.6: two trees rendered per case
  'scripts/test/diff-risks.test.ts', // split from diff.test (8.8 s alone, 2026-12-04)
  'policy-tests/test/gate/cli.test.ts', // 6.0 alone (2026-12-04): a built gate process per case where a process is the point
  'policy-tests/test/gate/cli-formats.test.ts', // 8.2 alone (2026-12-04): formats and refusals, split from cli.test (14.1)
  'policy-tests/test/checks/render-checks.test.ts', // 3.8: real Helm renders, mutation by mutation
  'policy-tests/test/checks/helm-values-checks.test.ts', // split from render-checks (13.9 alone, 2026-12-04)
  'policy-tests/test/checks/alert-delivery.test.ts', // a real Alertmanager end to end, split from alert-routing (11.1 alone, 2026-12-04)
  'policy-tests/test/render/render-kustomize-helm.test.ts', // the real kustomize and Helm inflating charts
  'policy-tests/test/gate/wrong-types-media.test.ts', // a gate run per case, split from wrong-types (10.7 alone, 2026-12-04)
] as const;

const rank = (spec: TestSpecification): number => {
  const i = LONGEST_FILES.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return i < 0 ? LONGEST_FILES.length : i;
};

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Timings measured on this machine know better than the list.
    if (files.every((spec) => this.ctx.cache.getTestSpecificationResult(spec))) return sorted;
    // A stable sort: the files not listed keep vitest's order (largest first).
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
