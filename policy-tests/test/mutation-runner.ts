/** Runs a list of repository mutations, each of which must make exactly its check id fail at the named line. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkIds, copyRepo, describeFindings, lineOf, type RepoCopy } from './helpers.ts';

/** Check id, what breaks, the mutation, and the line the finding must name (a needle on it, or a function). */
export type Mutation = [string, string, (c: RepoCopy) => void, string | ((c: RepoCopy) => number)];

export function describeMutations(title: string, mutations: readonly Mutation[]): void {
  describe(title, () => {
    // One copy per list, reset after each mutation: copying the tree is the slow part.
    let copy: RepoCopy;
    beforeAll(() => {
      copy = copyRepo();
    });
    afterEach(() => copy?.reset());
    afterAll(() => copy?.remove());

    it.each(mutations)('%s: %s', async (check, _why, mutate, needle) => {
      mutate(copy);
      const findings = await copy.gate();
      expect(checkIds(findings), describeFindings(findings)).toEqual([check]);
      const file = findings[0]!.file;
      const line = typeof needle === 'string' ? lineOf(copy, file, needle) : needle(copy);
      expect(findings.map((f) => `${f.file}:${f.line}`), describeFindings(findings)).toContain(`${file}:${line}`);
    });
  });
}
