/**
 * A test that needs a real tool (promtool, restic, PostgreSQL...) skips where the tool is missing, on a laptop,
 * with a notice. Under CI=true it may not: CI installs every tool (.ci/run), so a missing one is a broken job, and a
 * skip there would be a green run that tested nothing. Call once per test file, at its top.
 */
import { expect, test } from 'vitest';

/** Whether to skip for these missing tools; under CI=true, registers a failing test instead and skips the rest. */
export function skipForMissing(missing: readonly string[], what: string): boolean {
  if (missing.length === 0) return false;
  if (process.env.CI === 'true')
    test(`${what}: ${missing.join(', ')} installed (CI=true lets no test skip for a missing tool)`, () => {
      expect.fail(`${missing.join(', ')} not found; bash .ci/run installs it from Debian`);
    });
  return true;
}
