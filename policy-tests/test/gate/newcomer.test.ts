/**
 * A newcomer's first hour, on a copy of the real repository: a fork that
 * forgets one file fails where that file is, one mistake is answered with
 * its cause first and the rest folded under it, and the offline report is
 * short.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { parseKubernetesFlag } from '../../gate/cli.ts';
import { render } from '../../gate/report/formats/index.ts';
import { factsRepoURL } from '../../model/repository/cluster-facts.ts';
import { MANIFEST_ROOTS, REPO_ROOT } from '../../model/repository/repo.ts';
import { copyRepo } from '../support/helpers.ts';
import { forkCommand } from '../../../scripts/fork.ts';

const copy = copyRepo();
afterAll(() => copy.dispose());
const THIS = factsRepoURL(REPO_ROOT);
/** A repository other than this one, whatever this one is (a fork runs these tests too). */
const FORK = THIS === 'https://github.com/alice/lab.git' ? 'https://github.com/bob/lab.git' : 'https://github.com/alice/lab.git';

/** Renames the repository in every YAML file of the copy except those given, as a fork done by hand would. */
async function forkExcept(...kept: string[]): Promise<void> {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.yaml') ? [p] : [];
    });
  for (const top of MANIFEST_ROOTS)
    for (const abs of walk(join(copy.root, top))) {
      const file = relative(copy.root, abs);
      const text = copy.read(file);
      if (!kept.includes(file) && text.includes(THIS)) copy.write(file, text.replaceAll(THIS, FORK));
    }
}

const gate = () => runGate({ root: copy.root, cwd: copy.root });
const text = async () => render(await gate(), 'text', { summary: false, verbose: false }).split('\n');

describe('the first hour, on a copy of the real repository', () => {
  it('a fork that forgot projects.yaml fails at each project of projects.yaml, and only there', async () => {
    copy.reset();
    await forkExcept('clusters/home/projects.yaml');
    const findings = allFindings(await gate());
    expect(new Set(findings.map((f) => `${f.file} ${f.check}`))).toEqual(new Set(['clusters/home/projects.yaml argocd-project-sources']));
    expect(findings).toHaveLength((copy.read('clusters/home/projects.yaml').match(/^kind: AppProject$/gm) ?? []).length);
  });

  it('a fork done whole passes', async () => {
    copy.reset();
    await forkExcept();
    expect(allFindings(await gate())).toEqual([]);
  });

  it('a fork that forgot root.yaml gives the cause first, at root.yaml, and folds the 81 apps it cannot discover under it', async () => {
    copy.reset();
    await forkExcept('clusters/home/root.yaml');
    const lines = (await text()).filter((l) => l.startsWith('FAIL'));
    expect(lines[0]).toMatch(/^FAIL - clusters\/home\/root\.yaml:12:14 - .*; and \d+ more findings caused by this, --verbose lists them$/);
    expect(Number(/and (\d+) more/.exec(lines[0]!)![1])).toBeGreaterThan(50);
    expect(lines.every((l) => l.includes('clusters/home/root.yaml'))).toBe(true);
  });

  it('a typo in the facts repoURL is one line, at the facts, with everything else under it', async () => {
    copy.reset();
    copy.write('clusters/home/cluster-facts.yaml', copy.read('clusters/home/cluster-facts.yaml').replace(THIS, THIS.replace(/\.git$/, 'x.git')));
    const result = await gate();
    const lines = render(result, 'text', { summary: false, verbose: false })
      .split('\n')
      .filter((l) => l.startsWith('FAIL'));
    expect(lines).toEqual([expect.stringMatching(/^FAIL - clusters\/home\/cluster-facts\.yaml:\d+:\d+ - .*no Application reads the cluster facts' repoURL/)]);
    // Nothing is lost: every finding is still there, each naming its cause, and the gate still fails.
    expect(allFindings(result).filter((f) => f.causedBy).length).toBeGreaterThan(100);
  });

  it('npm run fork rewrites every place that names the repository, lists what is yours to decide, and the gate passes', async () => {
    copy.reset();
    const out: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(`ERR ${t}`) };
    expect(await forkCommand(['--repo', FORK, '--root', copy.root, '--dry-run'], io)).toBe(0);
    expect(factsRepoURL(copy.root)).toBe(THIS); // a dry run writes nothing
    out.length = 0;
    expect(await forkCommand(['--repo', FORK, '--root', copy.root], io)).toBe(0);
    const text = out.join('');
    expect(factsRepoURL(copy.root)).toBe(FORK);
    expect(text).toMatch(/^rewrote clusters\/home\/projects\.yaml \(\d+ places\)$/m);
    expect(text).toMatch(/^DECIDE portfolio-api\/deploy\/deployment\.yaml:\d+: image ghcr\.io\/[\w.-]+\/portfolio-api:\d/m);
    expect(text).toMatch(/^DECIDE apps\/platform\/metallb\/addresses\.yaml:\d+: LAN address 192\.168\.1\.240-192\.168\.1\.249/m);
    expect(text).toMatch(/^Summary: \d+ resources found - Valid: \d+, Invalid: 0/m);
    expect(await forkCommand(['--repo', 'alice/lab'], io)).toBe(2);
  });

  it('npm run fork refuses a committed symlink among the files it would rewrite, names it, and writes nothing', async () => {
    copy.reset();
    // An earlier test may have forked this copy already: the link carries whatever URL it names now.
    const named = factsRepoURL(copy.root);
    const other = 'https://github.com/carol/lab.git';
    const victim = join(mkdtempSync(join(tmpdir(), 'fork-victim-')), 'outside.md');
    writeFileSync(victim, `the repository is ${named}\n`);
    symlinkSync(victim, join(copy.root, 'apps/planted-link.md'));
    try {
      const out: string[] = [];
      const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(`ERR ${t}`) };
      expect(await forkCommand(['--repo', other, '--root', copy.root], io)).toBe(1);
      expect(out.join('')).toMatch(/^ERR .*refusing to fork: apps\/planted-link\.md is a symlink \(to .*outside\.md\)/m);
      expect(readFileSync(victim, 'utf8')).toBe(`the repository is ${named}\n`);
      expect(factsRepoURL(copy.root)).toBe(named);
    } finally {
      rmSync(join(copy.root, 'apps/planted-link.md'));
      rmSync(dirname(victim), { recursive: true, force: true });
    }
  });

  it('a misspelt namespace gets "did you mean"', async () => {
    copy.reset();
    copy.write('portfolio-api/deploy/extra.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: portfolo\ndata: {a: "1"}\n');
    const findings = allFindings(await gate()).filter((f) => f.check === 'closure-namespace');
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/uses Namespace portfolo, which nothing in the repository provides.*\(did you mean "portfolio"\?\)$/),
    ]);
  });

  it('--kubernetes-version reaches Pod Security: a user-namespace pod passes restricted at 1.36 and fails it at 1.34', async () => {
    copy.reset();
    const api = 'portfolio-api/deploy/deployment.yaml';
    copy.edit(api, 0, (d) => {
      d.setIn(['spec', 'template', 'spec', 'hostUsers'], false);
      d.setIn(['spec', 'template', 'spec', 'containers', 0, 'securityContext', 'runAsUser'], 0);
      d.setIn(['spec', 'template', 'spec', 'containers', 0, 'securityContext', 'runAsNonRoot'], false);
    });
    const podSecurity = async (version?: string) =>
      allFindings(await runGate({ root: copy.root, cwd: copy.root, ...(version ? { kubernetesVersion: parseKubernetesFlag(version) } : {}) }))
        .filter((f) => f.check === 'pod-security')
        .map((f) => /\[(\w+)\]$/.exec(f.message)?.[1]);
    expect(await podSecurity()).toEqual([]);
    expect((await podSecurity('1.34.0')).sort((a, b) => String(a).localeCompare(String(b)))).toEqual(['runAsNonRoot', 'runAsUser']);
  });

  it('offline, the unrendered sources are one line', async () => {
    copy.reset();
    expect((await text()).filter((l) => l.startsWith('NOT RENDERED'))).toHaveLength(1);
  });
});
