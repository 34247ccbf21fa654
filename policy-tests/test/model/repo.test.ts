/** The real repository passes its own gate: schema layer and every policy check. */
import { describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { describeFindings } from '../support/helpers.ts';

describe('this repository', () => {
  it('passes the whole gate with no finding', async () => {
    const result = await runGate();
    expect(describeFindings(allFindings(result))).toBe('(no findings)');
    expect(result.policy).toBe(true);
    expect(result.summary.invalid + result.summary.errors).toBe(0);
    expect(result.summary.valid).toBeGreaterThan(10);
  });

  it('pins the cluster facts once, in clusters/home', async () => {
    const repo = await loadRepo();
    expect(repo.factsProblems).toEqual([]);
    expect(repo.facts).toMatchObject({ nodeCount: 6, revision: 'main', kubernetesMinor: 36 });
    const factFiles = repo.resources.filter((r) => r.kind === 'ConfigMap' && r.name === 'cluster-facts').map((r) => r.file);
    expect(factFiles).toEqual(['clusters/home/cluster-facts.yaml']);
  });

  it('reports progress while it validates', async () => {
    const calls: [string, number, number][] = [];
    await runGate({ onProgress: (phase, done, total) => calls.push([phase, done, total]) });
    // The stages in their order: load, the schema layer, then the admission and policy checks.
    expect([...new Set(calls.map((c) => c[0]))]).toEqual(['parse', 'schema', 'admission', 'policy']);
    const last = calls.at(-1)!;
    expect(last[1]).toBe(last[2]);
  });
});
