import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registeredChecks } from '../../gate/gate.ts';
import { INVARIANTS_FILE, invariantsDoc } from '../../gate/report/invariants-doc.ts';
import { loadRepo, REPO_ROOT } from '../../model/repo.ts';
import { checkTable, withBlock, withCheckTable } from '../../gate/report/check-table.ts';
import { WAVES_END, WAVES_START, wavesTable } from '../../gate/report/waves-table.ts';

const AREA_READMES = ['policy-tests', 'apps/media', 'monitoring', 'security', 'scripts/backup', 'portfolio-api'].map((area) => `${area}/README.md`);
/** The READMEs of the rooms inside an area, and the other areas: linked from their area, held to the same link check and length. */
const ROOM_READMES = [
  'policy-tests/render',
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
