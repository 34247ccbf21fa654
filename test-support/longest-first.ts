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
  'scripts/test/backup-postgres.test.ts', // a PostgreSQL server, pg_dump and pg_restore per case
  'scripts/test/backup.test.ts', // real SQLite, zstd and restic per case
  'scripts/test/bootstrap.test.ts', // the repository loaded and rendered per run, kubectl as a process per call
  'policy-tests/test/gate/cli.test.ts', // a built gate process per case
  'scripts/test/renovate.test.ts', // Renovate's own start-up
  'policy-tests/test/checks/render-checks.test.ts', // real Helm renders, mutation by mutation
  'monitoring/watchdog/test/watchdog.test.ts', // workerd
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
