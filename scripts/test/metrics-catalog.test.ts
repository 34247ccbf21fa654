/**
 * npm run metrics:catalog: the offline status of the real repository, a
 * refresh from a local clone of an exporter at a new tag (the entry is
 * rewritten for the version and the old one removed), and the refusals: an
 * entry kept by hand, an unknown exporter, options without --refresh.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { main } from '../monitoring/metrics-catalog.ts';
import { capture } from '../../test-support/capture-io.ts';
import { taggedClone, type TaggedClone } from '../../test-support/tagged-clone.ts';

const ENTRY = `# Kept in sync by --refresh.
exporter: exportarr
version: v2.2.0
pin: { image: ghcr.io/onedr0p/exportarr }
source:
  repository: https://github.com/onedr0p/exportarr
  ref: v2.2.0
  files: [internal/arr/collector/status.go]
  extract: go-newdesc
scrape:
  - { monitor: ServiceMonitor/media/exportarr-sonarr, params: { app: sonarr } }
metrics:
  "{app}_system_status": [url]
`;

describe('metrics:catalog', () => {
  let clone: TaggedClone;
  let upstream: string;
  let root: string;
  beforeAll(async () => {
    clone = await taggedClone('exportarr', 'v2.3.0', {
      files: {
        'internal/arr/collector/status.go':
          'a: prometheus.NewDesc(\n fmt.Sprintf("%s_system_status", c.App),\n "System Status",\n nil,\n prometheus.Labels{"url": c.URL},\n)\nb: prometheus.NewDesc(\n fmt.Sprintf("%s_system_version", c.App),\n "Version",\n []string{"version"},\n prometheus.Labels{"url": c.URL},\n)\n',
      },
      rootDirs: ['monitoring/metrics-catalog'],
    });
    ({ upstream, root } = clone);
    await writeFile(join(root, 'monitoring/metrics-catalog/exportarr-v2.2.0.yaml'), ENTRY);
    await writeFile(
      join(root, 'monitoring/metrics-catalog/blackbox-exporter-v0.28.0.yaml'),
      ENTRY.replace('exporter: exportarr', 'exporter: blackbox-exporter').replace('extract: go-newdesc', 'extract: manual'),
    );
  });
  afterAll(() => clone.dispose());

  it('--refresh reads the source at the new tag and rewrites the entry for that version', async () => {
    const { out, io } = capture();
    expect(await main(['--refresh', 'exportarr', '--version', 'v2.3.0', '--from', upstream, '--root', root], io)).toBe(0);
    expect(out.stdout).toContain('wrote monitoring/metrics-catalog/exportarr-v2.3.0.yaml');
    const files = await readdir(join(root, 'monitoring/metrics-catalog'));
    expect(files.sort()).toEqual(['blackbox-exporter-v0.28.0.yaml', 'exportarr-v2.3.0.yaml']);
    const text = await readFile(join(root, 'monitoring/metrics-catalog/exportarr-v2.3.0.yaml'), 'utf8');
    expect(text.startsWith('# Kept in sync by --refresh.')).toBe(true);
    expect(parse(text)).toMatchObject({
      version: 'v2.3.0',
      source: { ref: 'v2.3.0' },
      metrics: { '{app}_system_status': ['url'], '{app}_system_version': ['url', 'version'] },
    });
  });

  it('a tag the clone lacks is one line and exit 1, and nothing is rewritten', async () => {
    const { out, io } = capture();
    expect(await main(['--refresh', 'exportarr', '--version', 'v9.0.0', '--from', upstream, '--root', root], io)).toBe(1);
    expect(out.stderr).toMatch(/^metrics:catalog: cannot read internal\/arr\/collector\/status.go at v9.0.0 from .+\n$/);
    expect(await readdir(join(root, 'monitoring/metrics-catalog'))).toContain('exportarr-v2.3.0.yaml');
  });

  it('refuses an entry kept by hand, saying what to read', async () => {
    const { out, io } = capture();
    expect(await main(['--refresh', 'blackbox-exporter', '--root', root], io)).toBe(1);
    expect(out.stderr).toMatch(/kept by hand \(source.extract: manual\): read internal\/arr\/collector\/status.go at the new tag/);
  });

  it.each([
    [['--refresh', 'nope', '--root', '/nonexistent-root'], 1],
    [['--version', 'v1'], 2],
    [['--bogus'], 2],
    [['--help'], 0],
  ])('%j exits %i with one line', async (argv, status) => {
    const { out, io } = capture();
    expect(await main(argv as string[], io)).toBe(status);
    const text = status === 0 ? out.stdout : out.stderr;
    if (status !== 0) expect(text.trim().split('\n')).toHaveLength(1);
  });

  it('offline, on the real repository: every entry matches its pin and every monitor has one', async () => {
    const { out, io } = capture();
    expect(await main(['--root', REPO_ROOT], io)).toBe(0);
    expect(out.stdout).toContain('every entry matches its pin');
  });
});
