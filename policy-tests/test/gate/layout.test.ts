/** The layout's promise: the gate's floors import only downward, and nothing imports itself in a circle. */
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import {
  FRONT_DOOR,
  FRONT_DOOR_LIMIT,
  floorOf,
  floorSources,
  frontDoorNames,
  frontDoorProblems,
  importProblems,
  MODEL_ROOM_LIMIT,
} from '../support/import-graph.ts';
import { readSources } from '../support/sources.ts';
import { unreasonedReads } from '../../model/checks/kit.ts';
import { registeredChecks } from '../../gate/gate.ts';

const sources = floorSources(REPO_ROOT);

describe('import direction', () => {
  it('the repository has no upward import and no circle', () => {
    expect(sources.size).toBeGreaterThan(50);
    expect(importProblems(sources)).toEqual([]);
  });

  it('fails on a model file that imports a check', () => {
    const broken = new Map(sources);
    broken.set('policy-tests/model/core/dig.ts', `import { policyChecks } from '../../checks/registry.ts';\n${sources.get('policy-tests/model/core/dig.ts')}`);
    // The upward import also closes circles (the checks import dig); both are reported.
    expect(importProblems(broken)).toContain(
      'policy-tests/model/core/dig.ts imports policy-tests/checks/registry.ts, a higher floor (policy-tests/checks over policy-tests/model)',
    );
  });

  it('fails on a check that imports the scripts', () => {
    const broken = new Map(sources);
    broken.set(
      'policy-tests/checks/argocd/argocd.ts',
      `import { run } from '../../../scripts/lib/exec.ts';\n${sources.get('policy-tests/checks/argocd/argocd.ts')}`,
    );
    expect(importProblems(broken)).toEqual([expect.stringMatching(/^policy-tests\/checks\/argocd\/argocd\.ts imports scripts\/lib\/exec\.ts, a higher floor/)]);
  });

  it('fails on a script that reaches past the front door', () => {
    const broken = new Map(sources);
    broken.set('scripts/falco-facts.ts', `import { dig } from '../policy-tests/model/core/dig.ts';\n${sources.get('scripts/falco-facts.ts')}`);
    expect(importProblems(broken)).toEqual([
      'scripts/falco-facts.ts imports policy-tests/model/core/dig.ts; scripts and benchmarks enter the gate through policy-tests/index.ts',
    ]);
  });

  it('fails on a benchmark that reaches past the front door', () => {
    const broken = new Map(sources);
    broken.set('bench/diff.bench.ts', `import { runGate } from '../policy-tests/gate/gate.ts';\n${sources.get('bench/diff.bench.ts')}`);
    expect(importProblems(broken)).toEqual([
      'bench/diff.bench.ts imports policy-tests/gate/gate.ts; scripts and benchmarks enter the gate through policy-tests/index.ts',
    ]);
  });

  it('fails on a check that imports a check module of another folder', () => {
    const broken = new Map(sources);
    broken.set('policy-tests/checks/watchdog.ts', `import { mediaChecks } from './media/media.ts';\n${sources.get('policy-tests/checks/watchdog.ts')}`);
    broken.set(
      'policy-tests/checks/media/pods.ts',
      `import { cniChecks } from '../network-policy/cni.ts';\n${sources.get('policy-tests/checks/media/pods.ts')}`,
    );
    expect(importProblems(broken).sort()).toEqual(
      [
        'policy-tests/checks/watchdog.ts imports policy-tests/checks/media/media.ts, another check module outside its folder; share through policy-tests/model',
        'policy-tests/checks/media/pods.ts imports policy-tests/checks/network-policy/cni.ts, another check module outside its folder; share through policy-tests/model',
      ].sort(),
    );
  });

  it('fails on a registry that reaches into a folder past its index.ts', () => {
    const broken = new Map(sources);
    broken.set('policy-tests/checks/registry.ts', `import { cniChecks } from './network-policy/cni.ts';\n${sources.get('policy-tests/checks/registry.ts')}`);
    expect(importProblems(broken)).toEqual([
      'policy-tests/checks/registry.ts imports policy-tests/checks/network-policy/cni.ts; the registry reaches policy-tests/checks/network-policy/ through its index.ts',
    ]);
  });

  it("fails on an import of the admission layer's rooms from outside admission/", () => {
    const broken = new Map(sources);
    broken.set(
      'policy-tests/checks/workload-hygiene/hygiene.ts',
      `import { CONTROLS } from '../../admission/pod-security/pod-security.ts';\n${sources.get('policy-tests/checks/workload-hygiene/hygiene.ts')}`,
    );
    broken.set('policy-tests/gate/gate.ts', `import { ruleCoverage } from '../admission/cel/crd-rules.ts';\n${sources.get('policy-tests/gate/gate.ts')}`);
    expect(importProblems(broken).sort()).toEqual(
      [
        'policy-tests/checks/workload-hygiene/hygiene.ts imports policy-tests/admission/pod-security/pod-security.ts; the admission layer is reached through policy-tests/admission/index.ts',
        'policy-tests/gate/gate.ts imports policy-tests/admission/cel/crd-rules.ts; the admission layer is reached through policy-tests/admission/index.ts',
      ].sort(),
    );
  });

  it("fails on a check that imports a worker's code instead of reading its data", () => {
    const broken = new Map(sources);
    broken.set(
      'policy-tests/checks/watchdog.ts',
      `import { HEARTBEAT_PATH } from '../../monitoring/watchdog/src/limits.ts';\n${sources.get('policy-tests/checks/watchdog.ts')}`,
    );
    expect(importProblems(broken)).toEqual([
      'policy-tests/checks/watchdog.ts imports monitoring/watchdog/src/limits.ts, code outside the gate; read it as data',
    ]);
  });

  it('fails on a model module outside a room, and on a room over the limit', () => {
    const broken = new Map(sources);
    broken.set('policy-tests/model/loose.ts', 'export const loose = 1;\n');
    for (let i = 0; i < MODEL_ROOM_LIMIT; i++) broken.set(`policy-tests/model/core/extra-${i}.ts`, 'export {};\n');
    const problems = importProblems(broken);
    expect(problems).toContain('policy-tests/model/loose.ts stands on the model floor outside a room; put it in the room that owns it');
    expect(problems.filter((p) => p.includes('over 15'))).toEqual([
      expect.stringMatching(/^policy-tests\/model\/core holds \d+ modules, over 15; split the room$/),
    ]);
  });

  it('fails on a circle within one floor', () => {
    const broken = new Map(sources);
    broken.set('policy-tests/model/core/dig.ts', `import { durationMs } from './time.ts';\n${sources.get('policy-tests/model/core/dig.ts')}`);
    broken.set('policy-tests/model/core/time.ts', `import { dig } from './dig.ts';\n${sources.get('policy-tests/model/core/time.ts')}`);
    expect(importProblems(broken)).toEqual([
      'circle of imports: policy-tests/model/core/dig.ts -> policy-tests/model/core/time.ts -> policy-tests/model/core/dig.ts',
    ]);
  });

  it('the front door exports only what scripts, benchmarks or the API use, and the gate types they take; each namespace name is used through it', () => {
    const door = readFileSync(join(REPO_ROOT, FRONT_DOOR), 'utf8');
    const { names, namespaces } = frontDoorNames(door);
    const users = [...floorSources(REPO_ROOT)].filter(([file]) => floorOf(file) > floorOf(FRONT_DOOR)).map(([, text]) => text);
    for (const dir of ['portfolio-api', 'test-support'])
      for (const [, text] of readSources(REPO_ROOT, [dir], /\.m?ts$/, new Set(['node_modules']))) users.push(text);
    const used = (name: string) => users.some((text) => new RegExp(`\\b${name}\\b`).test(text));
    expect(names.filter((name) => !['GateOptions', 'GateResult'].includes(name) && !used(name))).toEqual([]);
    // A namespace's names: each used as namespace.name by a script, a benchmark or the tests' support.
    const unusedInside = [...namespaces].flatMap(([ns, module]) =>
      frontDoorNames(readFileSync(join(REPO_ROOT, module), 'utf8'))
        .names.filter((name) => !users.some((text) => text.includes(`${ns}.${name}`)))
        .map((name) => `${ns}.${name}`),
    );
    expect(unusedInside).toEqual([]);
  });

  it(`the front door holds at most ${FRONT_DOOR_LIMIT} names, and fails past them`, () => {
    const door = readFileSync(join(REPO_ROOT, FRONT_DOOR), 'utf8');
    expect(frontDoorProblems(door)).toEqual([]);
    const crowded = `${door}\n${Array.from({ length: 10 }, (_, i) => `export { extra${i} } from './gate/gate.ts';`).join('\n')}\n`;
    expect(frontDoorProblems(crowded)).toEqual([expect.stringMatching(/^policy-tests\/index\.ts exports \d+ names, over 25; group them in a namespace$/)]);
  });
});

describe('the deployable API', () => {
  /** Relative imports of files under `dir` that resolve outside it: the image holds the API alone. */
  const leaving = (files: ReadonlyMap<string, string>, dir: string) =>
    [...files].flatMap(([file, text]) =>
      [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)]
        .map((m) => normalize(join(dirname(file), m[1]!)))
        .filter((target) => !target.startsWith(`${dir}/`))
        .map((target) => `${file} imports ${target}, outside ${dir}/`),
    );
  // Its tests run in the repository and may use its test support; its code and its tools do not.
  const api = readSources(REPO_ROOT, ['portfolio-api'], /\.m?ts$/, new Set(['node_modules', 'dist', 'test']));

  it('imports nothing of the repository outside portfolio-api/ (its scripts included), tests aside', () => {
    expect(api.size).toBeGreaterThan(20);
    expect(leaving(api, 'portfolio-api')).toEqual([]);
  });

  it("fails on an import of the repository's scripts", () => {
    const broken = new Map(api);
    broken.set(
      'portfolio-api/src/openapi/write-docs.ts',
      `import { commandArgs } from '../../../scripts/lib/command.ts';\n${api.get('portfolio-api/src/openapi/write-docs.ts')}`,
    );
    expect(leaving(broken, 'portfolio-api')).toEqual(['portfolio-api/src/openapi/write-docs.ts imports scripts/lib/command.ts, outside portfolio-api/']);
  });
});

describe('what a check reads', () => {
  it('every check that reads every kind says why', async () => {
    const checks = await registeredChecks();
    expect(checks.filter((c) => c.reads.kinds?.includes('*')).length).toBeGreaterThan(10);
    expect(unreasonedReads(checks)).toEqual([]);
  });

  it("fails on kinds: ['*'] without a reason", async () => {
    const checks = await registeredChecks();
    const broken = checks.map((c) => (c.id === 'sync-order' ? { ...c, reads: { ...c.reads, everyKind: undefined } } : c));
    expect(unreasonedReads(broken)).toEqual(['sync-order reads every kind and does not say why (reads.everyKind)']);
  });
});

describe('the areas', () => {
  /** Check ids written in the checks floor (`id: 'x'`) that no area reaches: a check written and never registered. */
  const unreached = (sources: ReadonlyMap<string, string>, registered: ReadonlySet<string>) =>
    [...sources].flatMap(([file, text]) =>
      [...text.matchAll(/\bid: '([a-z0-9-]+)'/g)]
        .filter((m) => !registered.has(m[1]!))
        .map((m) => `${m[1]} is declared in ${file} and reached from no area (checks/registry.ts AREAS)`),
    );
  const checkSources = () => readSources(REPO_ROOT, ['policy-tests/checks'], /\.ts$/, new Set(['test']));

  it('every check written is reached from an area declaration', async () => {
    const registered = new Set((await registeredChecks()).map((c) => c.id));
    expect(registered.size).toBeGreaterThan(90);
    expect(unreached(checkSources(), registered)).toEqual([]);
  });

  it('fails on a check no area reaches', async () => {
    const registered = new Set((await registeredChecks()).map((c) => c.id));
    const broken = new Map(checkSources());
    broken.set('policy-tests/checks/orphan.ts', "export const orphan = { id: 'orphan-check', run() {} };\n");
    expect(unreached(broken, registered)).toEqual([
      'orphan-check is declared in policy-tests/checks/orphan.ts and reached from no area (checks/registry.ts AREAS)',
    ]);
  });
});
