import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['policy-tests/test/**/*.test.ts', 'scripts/test/**/*.test.ts', 'portfolio-api/test/**/*.test.ts', 'monitoring/watchdog/test/**/*.test.ts'],
    testTimeout: 30_000,
    // Vitest leaves one core free by default; on a 2-core runner that means one worker.
    // The tests mostly wait on child processes (restic, PostgreSQL, etcd, Alertmanager, tsx) and
    // sockets, so four workers keep both cores busy: about 52 s instead of 64 s with two, on the 2-core machine.
    maxWorkers: 4,
    minWorkers: 1,
    // The first run builds the field-tree cache from the model packages' .d.ts (a few seconds).
    hookTimeout: 60_000,
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    outputFile: { junit: 'reports/junit.xml' },
  },
});
