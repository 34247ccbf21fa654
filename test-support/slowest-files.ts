/**
 * A reporter that ends the run with the five test files that held a worker longest, so the next slow file is
 * seen the day it lands (the suite's wall time is decided by its longest files: policy-tests/test/README.md).
 */
import type { Reporter, TestModule } from 'vitest/node';

export const SLOWEST_SHOWN = 5;

/** The `count` slowest modules, longest first, as `seconds  path` lines. */
export function slowestLines(modules: readonly { path: string; ms: number }[], root: string, count = SLOWEST_SHOWN): string[] {
  return [...modules]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((m) => `${(m.ms / 1000).toFixed(1).padStart(6)} s  ${m.path.startsWith(`${root}/`) ? m.path.slice(root.length + 1) : m.path}`);
}

export class SlowestFiles implements Reporter {
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const modules = testModules.map((m) => ({ path: m.moduleId, ms: m.diagnostic().duration }));
    if (modules.length === 0) return;
    process.stdout.write(`\nThe slowest test files (at most ${SLOWEST_SHOWN}):\n${slowestLines(modules, this.root).join('\n')}\n`);
  }
}
