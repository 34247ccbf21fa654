/**
 * Renovate's own validator, run by the inspection beside its extraction: a config it refuses is reported alone, and
 * the runs started beside it are stopped. That the repository's own config passes it is renovate.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { useRenovateCopy } from './renovate-copy.ts';
import { inspectRenovate } from '../renovate/inspect.ts';

describe("Renovate's validator on a copy of the repository", () => {
  const { root, change, restore } = useRenovateCopy();

  it("a config with an unknown option fails Renovate's own validator (--strict), naming the option, and the runs started beside it are stopped", async () => {
    // That the repository's own config passes it is the whole inspection's first step (renovate.test.ts).
    await change('.github/renovate.json5', (t) => t.replace("automergeType: 'pr',", "automergeType: 'pr',\n      automergeSchedul: ['at any time'],"));
    try {
      // The inspection extracts and starts Renovate's functions while the validator runs: it answers with the
      // validator's problems alone, and only once the extraction and the functions it started have exited.
      expect(await inspectRenovate(root())).toEqual({
        problems: [expect.stringMatching(/^\.github\/renovate\.json5: .*Invalid configuration option: packageRules\[\d+\]\.automergeSchedul/)],
      });
    } finally {
      await restore();
    }
  });
});
