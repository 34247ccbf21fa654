import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registeredChecks } from '../../gate/gate.ts';
import { INVARIANTS_FILE, invariantsDoc } from '../../gate/report/invariants-doc.ts';
import { AREAS, INVARIANTS, invariantsStatedTwice } from '../../checks/registry.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { applications } from '../../model/argocd/argocd.ts';
import { serviceAddresses } from '../../model/cluster/service-addresses.ts';
import { checkTable, withBlock, withCheckTable } from '../../gate/report/check-table.ts';
import { WAVES_END, WAVES_START, wavesTable } from '../../gate/report/waves-table.ts';
import { STORE_ITEMS_END, STORE_ITEMS_FILE, STORE_ITEMS_START, storeItemsTable } from '../../gate/report/store-items.ts';

const AREA_READMES = ['policy-tests', 'apps/media', 'monitoring', 'security', 'scripts/backup', 'portfolio-api'].map((area) => `${area}/README.md`);
/** The READMEs of the rooms inside an area, and the other areas: linked from their area, held to the same link check and length. */
const ROOM_READMES = [
  'policy-tests/render',
  'policy-tests/admission',
  'policy-tests/checks',
  'policy-tests/test',
  'bench',
  'scripts/diff',
  'scripts/renovate',
  'apps/platform',
  'test-support',
].map((room) => `${room}/README.md`);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchorsOf = (markdown: string) =>
  new Set(
    [...markdown.matchAll(/^#+ (.+)$/gm)].map((m) =>
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );

describe('READMEs', () => {
  it('stays short: at most 200 lines, with one link to each area README', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    for (const area of AREA_READMES) expect(readme, area).toContain(`](${area}`);
  });

  it('every area and room README stays under 250 lines', () => {
    for (const file of [...AREA_READMES, ...ROOM_READMES]) expect(readFileSync(join(REPO_ROOT, file), 'utf8').split('\n').length, file).toBeLessThan(250);
  });

  it('every relative link in the READMEs and docs resolves, anchors included', () => {
    for (const file of ['README.md', 'CONTRIBUTING.md', 'docs/invariants.md', 'docs/design.md', ...AREA_READMES, ...ROOM_READMES]) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!)) continue;
        const [path, anchor] = target!.split('#');
        const resolved = path ? join(REPO_ROOT, dirname(file), path) : join(REPO_ROOT, file);
        expect(existsSync(resolved), `${file} links to ${target}`).toBe(true);
        if (anchor) expect(anchorsOf(readFileSync(resolved, 'utf8')).has(anchor), `${file} links to ${target}`).toBe(true);
      }
    }
  });

  it('has the check table the registry generates (run npm run readme:checks when this fails)', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'policy-tests/checks/README.md'), 'utf8');
    expect(readme).toBe(withCheckTable(readme, checkTable(await registeredChecks())));
  });

  it('has the sync-wave table the repository generates (run npm run readme:checks when this fails)', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'apps/platform/README.md'), 'utf8');
    expect(readme).toBe(withBlock(readme, WAVES_START, WAVES_END, wavesTable(await loadRepo(REPO_ROOT))));
  });

  it('has the secret store items the ExternalSecrets read in the bootstrap doc (run npm run readme:checks when this fails)', async () => {
    const doc = readFileSync(join(REPO_ROOT, STORE_ITEMS_FILE), 'utf8');
    const repo = await loadRepo(REPO_ROOT);
    expect(doc).toBe(withBlock(doc, STORE_ITEMS_START, STORE_ITEMS_END, storeItemsTable(repo)));
    // Every item an ExternalSecret names is a row: the bootstrap doc once listed six of nineteen.
    const table = storeItemsTable(repo);
    for (const es of repo.resources.filter((r) => r.kind === 'ExternalSecret'))
      for (const key of JSON.stringify(es.object).matchAll(/"(?:remoteRef|extract)":\{[^}]*"key":"([^"]+)"/g))
        // A data[] key is a secret reference, item/[section/]field: its item is the row.
        expect(table, es.name).toContain(`| \`${key[1]!.replace(/^\//, '').split('/')[0]}\` |`);
    // An extracted item under a template needs the fields the template reads, named: "the whole item" told a fork nothing.
    expect(table).toContain('| `backup-restic` | `accessKey`, `manifestKey`, `password`, `repository`, `secretKey` |');
    expect(table).not.toContain('the whole item');
  });

  it('opens with the quickstart commands', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const quickstart = readme.slice(0, readme.indexOf('\n## ', readme.indexOf('## Quickstart') + 1));
    for (const command of ['npm ci', 'npm test', 'npm run validate']) expect(quickstart).toContain(command);
  });

  it('has the docs/invariants.md the registry generates (run npm run readme:checks when this fails)', async () => {
    expect(readFileSync(join(REPO_ROOT, INVARIANTS_FILE), 'utf8')).toBe(invariantsDoc(await registeredChecks()));
  });

  it('names every invariant id a check claims in docs/invariants.md', async () => {
    const invariants = readFileSync(join(REPO_ROOT, 'docs', 'invariants.md'), 'utf8');
    for (const check of await registeredChecks()) {
      for (const id of check.invariants) expect(invariants, `${check.id} cites ${id}`).toMatch(new RegExp(`\\*\\*${id}\\*\\*|- ${id}:`));
    }
  });

  it('states every invariant a check cites once, in words, and nothing no check cites', async () => {
    const cited = new Set((await registeredChecks()).flatMap((c) => c.invariants));
    expect([...cited].filter((id) => !INVARIANTS[id]).sort()).toEqual([]);
    expect(Object.keys(INVARIANTS).filter((id) => !cited.has(id))).toEqual([]);
  });

  it('has each invariant stated by one area only, and fails on an id two areas state', () => {
    expect(invariantsStatedTwice()).toEqual([]);
    const restating = { name: 'extra', checks: () => [], invariants: { P1: 'stated again' } };
    expect(invariantsStatedTwice([...AREAS, restating])).toEqual(['P1 (repository, extra)']);
  });
});

describe("the media README's app table", () => {
  it('names every media app folder, and only folders that exist', async () => {
    const { readdirSync } = await import('node:fs');
    const readme = readFileSync(join(REPO_ROOT, 'apps/media/README.md'), 'utf8');
    const table = readme.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Role') && !l.startsWith('|---'));
    const named = new Set(table.flatMap((row) => [...(row.split('|')[2] ?? '').matchAll(/`([a-z0-9-]+)\/`/g)].map((m) => m[1]!)));
    const apps = readdirSync(join(REPO_ROOT, 'apps/media'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(REPO_ROOT, 'apps/media', d.name, 'application.yaml')))
      .map((d) => d.name);
    expect([...named].sort()).toEqual(apps.sort());
  });
});

/** The backtick-quoted repository paths of one doc that name nothing in `root`. */
function stalePaths(root: string, doc: string, text: string, tops: ReadonlySet<string>): string[] {
  const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
  const dir = dirname(doc) === '.' ? '' : dirname(doc);
  const stale: string[] = [];
  for (const m of text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\s]+)`/g)) {
    const quoted = m[1]!;
    // A path of this repository: relative, no glob, placeholder or URL syntax.
    if (!quoted.includes('/') || quoted.startsWith('/') || /[*{}<>()=:@,;|$#?]/.test(quoted)) continue;
    const path = quoted.replace(/\/$/, '');
    const first = path.split('/')[0]!;
    // From the repository's root, or from the doc's own folder (or its area's) when it starts with one of their folders.
    const bases = tops.has(first) ? [''] : dir && isDir(join(root, dir, first)) ? [dir, dir.split('/')[0]!, ''] : [];
    if (bases.length && !bases.some((b) => existsSync(join(root, b, path)))) stale.push(`${doc}: ${quoted}`);
  }
  return stale;
}

describe('paths the docs quote', () => {
  it('every backtick-quoted repository path names something that exists', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const tracked = (await promisify(execFile)('git', ['ls-files'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout.split('\n').filter(Boolean);
    const tops = new Set(tracked.map((p) => p.split('/')[0]!));
    const docs = tracked.filter((p) => p.endsWith('.md') && !p.includes('/fixtures/'));
    expect(docs.flatMap((doc) => stalePaths(REPO_ROOT, doc, readFileSync(join(REPO_ROOT, doc), 'utf8'), tops))).toEqual([]);
    // A planted path that does not exist is caught, from the root and from the doc's folder; prose and URLs are not paths.
    const planted = 'See `policy-tests/checks/closure.ts`, `test/layout.test.ts` and `model/repository/repo.ts`; `a/b` and `https://x/y` are not ours.';
    expect(stalePaths(REPO_ROOT, 'policy-tests/README.md', planted, tops)).toEqual([
      'policy-tests/README.md: policy-tests/checks/closure.ts',
      'policy-tests/README.md: test/layout.test.ts',
    ]);
  });
});

describe('in-cluster addresses the docs give', () => {
  it('every <service>.<namespace>.svc a doc tells a reader to use is a Service of the repository, with the port it gives', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const tracked = (await promisify(execFile)('git', ['ls-files'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout.split('\n').filter(Boolean);
    const repo = await loadRepo(REPO_ROOT);
    const namespaces = new Set(repo.resources.flatMap((r) => (r.kind === 'Namespace' ? [r.name] : r.namespace ? [r.namespace] : [])));
    // A namespace a chart renders into holds Services only the render tier sees: not judged here (the gate judges them rendered).
    const charted = new Set(
      applications(repo).flatMap((app) => (app.sources.some((s) => s.chart) && app.destinationNamespace ? [app.destinationNamespace] : [])),
    );
    const services = new Map(repo.resources.filter((r) => r.kind === 'Service').map((s) => [`${s.namespace}/${s.name}`, s]));
    const unresolved = (doc: string, text: string) =>
      serviceAddresses(text, namespaces).flatMap((a) => {
        if (charted.has(a.namespace) || (a.namespace === 'default' && a.service === 'kubernetes')) return [];
        const svc = services.get(`${a.namespace}/${a.service}`);
        const ports = ((svc?.object as { spec?: { ports?: { port?: number }[] } } | undefined)?.spec?.ports ?? []).map((p) => p.port);
        return !svc ? [`${doc}: ${a.text}: no Service`] : a.port !== undefined && !ports.includes(a.port) ? [`${doc}: ${a.text}: no port ${a.port}`] : [];
      });
    const docs = tracked.filter((p) => p.endsWith('.md') && !p.includes('/fixtures/'));
    expect(docs.flatMap((doc) => unresolved(doc, readFileSync(join(REPO_ROOT, doc), 'utf8')))).toEqual([]);
    // The address apps/media/README.md gave before 2026-11-29 (qBittorrent is in media-vpn), and a port the Service lacks.
    expect(unresolved('x.md', '`http://qbittorrent.media.svc:8080` and `http://qbittorrent.media-vpn.svc:9090`')).toEqual([
      'x.md: http://qbittorrent.media.svc:8080: no Service',
      'x.md: http://qbittorrent.media-vpn.svc:9090: no port 9090',
    ]);
  });
});
