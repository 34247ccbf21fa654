import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registeredChecks } from '../gate/gate.ts';
import { REPO_ROOT } from '../model/repo.ts';
import { checkTable, withCheckTable } from '../gate/report/check-table.ts';

describe('README', () => {
  it('has the check table the registry generates (run npm run readme:checks when this fails)', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toBe(withCheckTable(readme, checkTable(await registeredChecks())));
  });

  it('opens with the quickstart commands', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const quickstart = readme.slice(0, readme.indexOf('\n## ', readme.indexOf('## Quickstart') + 1));
    for (const command of ['npm ci', 'npm test', 'npm run validate']) expect(quickstart).toContain(command);
  });

  it('names every invariant id a check claims in docs/invariants.md', async () => {
    const invariants = readFileSync(join(REPO_ROOT, 'docs', 'invariants.md'), 'utf8');
    for (const check of await registeredChecks()) {
      for (const id of check.invariants) expect(invariants, `${check.id} cites ${id}`).toMatch(new RegExp(`\\*\\*${id}\\*\\*|- ${id}:`));
    }
  });
});
