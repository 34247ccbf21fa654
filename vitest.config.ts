import { defineConfig } from 'vitest/config';

/**
 * A hang guard, not a speed limit: a full run takes about two minutes, so a test
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
    // The tests mostly wait on child processes (restic, PostgreSQL, etcd, Alertmanager, tsx) and
    // sockets, asynchronously, so four workers keep both cores busy.
    maxWorkers: 4,
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    outputFile: { junit: 'reports/junit.xml' },
  },
});
