import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test-support/longest-first.ts';
import { childEnv } from './test-support/child-env.ts';
import { SlowestFiles } from './test-support/slowest-files.ts';

/**
 * A hang guard, not a speed limit: a full run takes about a minute on the 2-core machine, so a test
 * that passes ten minutes is stuck, not slow. Tests wait for readiness (never
 * a fixed sleep) and set no timeouts of their own, so a busy machine makes the
 * suite slower, never red.
 */
const HANG_GUARD_MS = 10 * 60_000;

export default defineConfig({
  test: {
    include: ['policy-tests/test/**/*.test.ts', 'scripts/test/**/*.test.ts', 'portfolio-api/test/**/*.test.ts', 'monitoring/watchdog/test/**/*.test.ts'],
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    teardownTimeout: HANG_GUARD_MS,
    // expect.poll waits for a state to be reached: as long as it takes, within the guard.
    expect: { poll: { timeout: HANG_GUARD_MS, interval: 25 } },
    // Vitest leaves one core free by default; on a 2-core runner that means one worker.
    // The tests mostly wait on child processes (restic, PostgreSQL, etcd, Alertmanager, node) and
    // sockets, asynchronously, so four workers keep both cores busy.
    maxWorkers: 4,
    // Test files run one after another in the same workers, which load vitest, the gate's modules and its
    // memos once rather than once per file: 12-15 % of the suite's CPU time on the 2-core machine. No test file
    // changes the process for the next one (no env writes, mocks, fake clocks or process listeners);
    // policy-tests/test/gate/shared-worker.test.ts holds every test file to that.
    isolate: false,
    // On a clean clone the files that hold a worker longest start first (test-support/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    // Scratch space in memory where the machine has it (test-support/scratch.ts).
    globalSetup: ['./test-support/scratch.ts'],
    // Go's collector and Node's compile cache tuned for the processes the tests start (test-support/child-env.ts).
    env: childEnv(import.meta.dirname),
    // The five slowest files close every run (test-support/slowest-files.ts).
    reporters: process.env.CI ? ['default', 'junit', new SlowestFiles()] : ['default', new SlowestFiles()],
    outputFile: { junit: 'reports/junit.xml' },
  },
});
