/**
 * A value of the wrong type written into a copy of the real repository (a number where a list is written, a list where
 * a map is, a null in a list), for the wrong-types tests: each case one a seeded fuzz of the repository's files found a
 * check throwing on (2026-12-02 and 2026-12-03), run through the whole gate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Document } from 'yaml';
import { allFindings, runGate } from '../../gate/gate.ts';
import { copyGateOptions, copyRepo, describeFindings } from './helpers.ts';

/** [file, document, path, value]: the value written in place of the node at path. */
export type WrongType = [string, number, (string | number)[], unknown];

const FAULT = /could not judge the repository/;

/** Each case on a copy of the file's own: the gate is red on it, and no check throws. */
export function describeWrongTypes(title: string, cases: WrongType[]): void {
  const copy = copyRepo();
  afterAll(() => copy.dispose());
  describe(title, () => {
    it.each(cases)('%s at %j: red, and no check throws', async (file, doc, path, value) => {
      copy.edit(file, doc, (d: Document) => d.setIn(path, d.createNode(value)));
      try {
        const result = await runGate(copyGateOptions(copy.root));
        const findings = allFindings(result);
        expect(
          findings.filter((f) => FAULT.test(f.message)),
          describeFindings(findings),
        ).toEqual([]);
        expect(findings.length + result.summary.invalid, describeFindings(findings)).toBeGreaterThan(0);
      } finally {
        copy.reset();
      }
    });
  });
}
