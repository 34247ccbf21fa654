/** Regenerates the check table in policy-tests/checks/README.md, the wave table in apps/platform/README.md and the secret store's items in docs/bare-metal-to-running.md: npm run readme:checks */
import { readFileSync } from 'node:fs';
import { writeInCheckout } from './lib/checkout-write.ts';
import { join } from 'node:path';
import { frontDoor } from './lib/front-door.ts';
import { runCommand } from './lib/command.ts';

process.exitCode = await runCommand(
  {
    name: 'readme:checks',
    usage: 'readme:checks',
    help: 'Regenerates the check table in policy-tests/checks/README.md and docs/invariants.md from the registry, the sync-wave table in apps/platform/README.md and the secret store items in docs/bare-metal-to-running.md from the repository.',
    options: {},
    positionals: { min: 0, max: 0 },
    async run() {
      const { registeredChecks, REPO_ROOT, loadRepo, docs } = await frontDoor();
      const path = join(REPO_ROOT, 'policy-tests/checks/README.md');
      const before = readFileSync(path, 'utf8');
      const after = docs.withCheckTable(before, docs.checkTable(await registeredChecks()));
      writeInCheckout(REPO_ROOT, path, after);
      process.stdout.write(
        before === after ? 'policy-tests/checks/README.md check table is up to date\n' : 'policy-tests/checks/README.md check table regenerated\n',
      );
      const platform = join(REPO_ROOT, 'apps/platform/README.md');
      const wavesBefore = readFileSync(platform, 'utf8');
      const wavesAfter = docs.withBlock(wavesBefore, docs.WAVES_START, docs.WAVES_END, docs.wavesTable(await loadRepo(REPO_ROOT)));
      writeInCheckout(REPO_ROOT, platform, wavesAfter);
      process.stdout.write(
        wavesBefore === wavesAfter ? 'apps/platform/README.md wave table is up to date\n' : 'apps/platform/README.md wave table regenerated\n',
      );
      const bootstrap = join(REPO_ROOT, docs.STORE_ITEMS_FILE);
      const itemsBefore = readFileSync(bootstrap, 'utf8');
      const itemsAfter = docs.withBlock(itemsBefore, docs.STORE_ITEMS_START, docs.STORE_ITEMS_END, docs.storeItemsTable(await loadRepo(REPO_ROOT)));
      writeInCheckout(REPO_ROOT, bootstrap, itemsAfter);
      process.stdout.write(
        itemsBefore === itemsAfter ? `${docs.STORE_ITEMS_FILE} store items are up to date\n` : `${docs.STORE_ITEMS_FILE} store items regenerated\n`,
      );
      const invariants = join(REPO_ROOT, docs.INVARIANTS_FILE);
      const invariantsBefore = readFileSync(invariants, 'utf8');
      const invariantsAfter = docs.invariantsDoc(await registeredChecks());
      writeInCheckout(REPO_ROOT, invariants, invariantsAfter);
      process.stdout.write(invariantsBefore === invariantsAfter ? `${docs.INVARIANTS_FILE} is up to date\n` : `${docs.INVARIANTS_FILE} regenerated\n`);
      return 0;
    },
  },
  process.argv.slice(2),
);
