/** The layout's promise: the gate's floors import only downward, and nothing imports itself in a circle. */
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../model/repo.ts';
import { floorSources, importProblems } from '../support/import-graph.ts';

const sources = floorSources(REPO_ROOT);

describe('import direction', () => {
  it('the repository has no upward import and no circle', () => {
    expect(sources.size).toBeGreaterThan(50);
    expect(importProblems(sources)).toEqual([]);
  });

  it('fails on a model file that imports a check', () => {
    const broken = new Map(sources);
    broken.set('policy-tests/model/dig.ts', `import { policyChecks } from '../checks/registry.ts';\n${sources.get('policy-tests/model/dig.ts')}`);
    // The upward import also closes circles (the checks import dig); both are reported.
    expect(importProblems(broken)).toContain(
      'policy-tests/model/dig.ts imports policy-tests/checks/registry.ts, a higher floor (policy-tests/checks over policy-tests/model)',
    );
  });

  it('fails on a check that imports the scripts', () => {
    const broken = new Map(sources);
    broken.set('policy-tests/checks/argocd.ts', `import { run } from '../../scripts/lib/exec.ts';\n${sources.get('policy-tests/checks/argocd.ts')}`);
    expect(importProblems(broken)).toEqual([expect.stringMatching(/^policy-tests\/checks\/argocd\.ts imports scripts\/lib\/exec\.ts, a higher floor/)]);
  });

  it('fails on a script that reaches past the front door', () => {
    const broken = new Map(sources);
    broken.set('scripts/falco-facts.ts', `import { dig } from '../policy-tests/model/dig.ts';\n${sources.get('scripts/falco-facts.ts')}`);
    expect(importProblems(broken)).toEqual([
      'scripts/falco-facts.ts imports policy-tests/model/dig.ts; scripts and benchmarks enter the gate through policy-tests/index.ts',
    ]);
  });

  it('fails on a benchmark that reaches past the front door', () => {
    const broken = new Map(sources);
    broken.set('bench/diff.bench.ts', `import { runGate } from '../policy-tests/gate/gate.ts';\n${sources.get('bench/diff.bench.ts')}`);
    expect(importProblems(broken)).toEqual([
      'bench/diff.bench.ts imports policy-tests/gate/gate.ts; scripts and benchmarks enter the gate through policy-tests/index.ts',
    ]);
  });

  it('fails on a circle within one floor', () => {
    const broken = new Map(sources);
    broken.set('policy-tests/model/dig.ts', `import { durationMs } from './durations.ts';\n${sources.get('policy-tests/model/dig.ts')}`);
    broken.set('policy-tests/model/durations.ts', `import { dig } from './dig.ts';\n${sources.get('policy-tests/model/durations.ts')}`);
    expect(importProblems(broken)).toEqual(['circle of imports: policy-tests/model/dig.ts -> policy-tests/model/durations.ts -> policy-tests/model/dig.ts']);
  });
});
