/**
 * The benchmark's synthetic repository is as clean as the real one: bench:validate refuses to time a gate that
 * finds anything in it, so a check that flags the generated apps leaves the benchmark throwing before it measures.
 * A small one (three app folders) is held to no finding here, through the gate's front door, as the benchmark runs it.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { allFindings, runGate } from '../../index.ts';
import { generateSyntheticRepo, PER_KIND } from '../../../bench/synthetic-repo.ts';

const { root, resources } = generateSyntheticRepo(3);
afterAll(() => rmSync(root, { recursive: true, force: true }));

it("the benchmark's synthetic apps pass the gate with no finding, as bench:validate requires before it times anything", async () => {
  expect(resources).toBe(3 * (1 + Object.values(PER_KIND).reduce((a, b) => a + b, 0)));
  const findings = allFindings(await runGate({ root, env: { ...process.env, HOMELAB_CHART_CACHE: join(root, '.no-charts') } }));
  expect(findings.map((f) => `${f.check}: ${f.file}:${f.line} ${f.message}`)).toEqual([]);
});
