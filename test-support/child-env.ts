/**
 * What the test workers, and every process they start, run with so that they
 * use less CPU, their output unchanged (vitest.config.ts's `env`, which
 * vitest gives each worker it starts). A value the caller set is left as it
 * is.
 *
 * - Go's collector off up to half a gigabyte (GOGC, GOMEMLIMIT): promtool,
 *   amtool, Alertmanager, etcd, restic and esbuild live a second or less on
 *   the tests' small inputs, and collecting as they allocate cost about a
 *   fifth of their CPU (the alert rule tests 5.2 to 4.4 CPU-seconds, the
 *   routing tests 2.4 to 1.9). The render tools get the same from the gate
 *   itself (render/context.ts renderToolEnv). The operator's backups run
 *   without it: this is the test run's environment only.
 * - Node's compile cache (NODE_COMPILE_CACHE) under node_modules/.cache: the
 *   scripts the tests start again and again (the restore driver, the backup
 *   commands, the bundled backup image) compile each module once, not once
 *   per process; a TypeScript script's start-up went from about 0.4 to 0.2
 *   CPU-seconds, and the backup tests from 6.4 to 5.6. Node keys each entry
 *   by the file's content and its own version, so a changed script is
 *   compiled again; npm ci starts it empty, as on a clean clone.
 */
import { join } from 'node:path';

export function childEnv(repoRoot: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const tuning = {
    GOGC: 'off',
    GOMEMLIMIT: '512MiB',
    NODE_COMPILE_CACHE: join(repoRoot, 'node_modules', '.cache', 'homelab-tests', 'node-compile-cache'),
  };
  return Object.fromEntries(Object.entries(tuning).filter(([name]) => env[name] === undefined));
}
