/**
 * The one mutation runner: each mutation breaks a copy of the real repository
 * in one place, and exactly its check id must fail, at the line it names.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GateOptions } from '../../gate/gate.ts';
import { checkIds, copyRepo, describeFindings, lineOf, type RepoCopy } from './helpers.ts';

/** What a list needs beyond the copy (a chart cache for the render tier), made once and undone after. */
export interface MutationSetup {
  before(copy: RepoCopy): Promise<GateOptions>;
  after(): void;
}

/** Where the finding must point. */
export type Where =
  /** A needle on the line, in the file of the first finding. */
  | string
  /** A line in the file of the first finding. */
  | ((c: RepoCopy) => number)
  /** An exact file and line; `within` allows that many lines either side. */
  | ((c: RepoCopy) => { file: string; line: number; within?: number });

export interface Mutation {
  check: string;
  why: string;
  mutate: (c: RepoCopy) => void;
  /** Omitted only where the finding is about something absent, with no line to name. */
  at?: Where;
  /** Where the check fails for several causes: the mend every finding names, that cause's and not the list of all. */
  fix?: string;
}

/** A copy of the real repository with `setup` made for it, before the suite's tests and undone after: the copy, and the gate's options. */
export function useSetupCopy(setup: MutationSetup): () => { copy: RepoCopy; options: GateOptions } {
  let copy: RepoCopy | undefined;
  let options: GateOptions = {};
  beforeAll(async () => {
    copy = copyRepo();
    options = await setup.before(copy);
  });
  afterAll(() => {
    copy?.dispose();
    setup.after();
  });
  return () => ({ copy: copy!, options });
}

function expectAt(copy: RepoCopy, findings: readonly { file: string; line: number }[], at: Where): void {
  const first = findings[0]!.file;
  const target = typeof at === 'string' ? { file: first, line: lineOf(copy, first, at) } : at(copy);
  const { file, line, within = 0 } = typeof target === 'number' ? { file: first, line: target } : target;
  const hit = findings.some((f) => f.file === file && Math.abs(f.line - line) <= within);
  expect(hit, `${describeFindings(findings as never)}\nexpected ${file}:${line}${within ? ` (within ${within} lines)` : ''}`).toBe(true);
}

export function describeMutations(title: string, mutations: readonly Mutation[], setup?: MutationSetup): void {
  describe(title, () => {
    // One copy per list, reset after each mutation: copying the tree is the slow part.
    let copy: RepoCopy;
    let options: GateOptions = {};
    beforeAll(async () => {
      copy = copyRepo();
      if (setup) options = await setup.before(copy);
    });
    afterEach(() => copy?.reset());
    afterAll(() => {
      copy?.dispose();
      setup?.after();
    });

    it.each(mutations.map((m) => [m.check, m.why, m] as const))('%s: %s', async (check, _why, mutation) => {
      mutation.mutate(copy);
      const findings = await copy.gate(options);
      expect(checkIds(findings), describeFindings(findings)).toEqual([check]);
      if (mutation.at) expectAt(copy, findings, mutation.at);
      if (mutation.fix) expect(new Set(findings.map((f) => f.fix)), describeFindings(findings)).toEqual(new Set([mutation.fix]));
    });
  });
}
