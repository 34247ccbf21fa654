/**
 * A copy of the real repository for the kept verdict's tests (gate/verdict.ts), made before the tests of the enclosing
 * describe and deleted after them: runs that say whether their stages judged or a kept verdict answered, and writes
 * that remember when the copy last changed, since a verdict is kept only for files settled longer than SETTLED_MS.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { runGate, type GateOptions, type GateResult } from '../../gate/gate.ts';
import { SETTLED_MS } from '../../gate/verdict.ts';
import { copyGateOptions, copyRepo, type RepoCopy } from './helpers.ts';

export interface KeptVerdictCopy {
  copy: () => RepoCopy;
  /** Until every file the copy holds changed longer ago than a verdict is kept for. */
  settled: () => Promise<void>;
  /** Writes a file of the copy, remembered as the copy's last change. */
  write: (file: string, text: string) => void;
  /** The copy has changed just now (an edit, a reset). */
  touched: () => void;
  /** A run, and whether its stages judged (true) or a kept verdict answered (false). */
  judge: (options?: GateOptions) => Promise<{ result: GateResult; judged: boolean }>;
}

export function useKeptVerdictCopy(): KeptVerdictCopy {
  let copy: RepoCopy | undefined;
  let lastWrite = 0;
  beforeAll(() => {
    copy = copyRepo();
    lastWrite = Date.now();
  });
  afterAll(() => copy?.dispose());
  const made = (): RepoCopy => {
    if (!copy) throw new Error('the copy is made before the tests');
    return copy;
  };
  return {
    copy: made,
    settled: async () => {
      await expect.poll(() => Date.now() - lastWrite > SETTLED_MS + 100).toBe(true);
    },
    write: (file, text) => {
      made().write(file, text);
      lastWrite = Date.now();
    },
    touched: () => {
      lastWrite = Date.now();
    },
    judge: async (options = {}) => {
      // The admission and policy stages report their start only when they run.
      let judged = false;
      const result = await runGate({
        ...copyGateOptions(made().root),
        ...options,
        onProgress: (phase, done, total) => {
          if (phase === 'policy' && done === 0 && total > 0) judged = true;
        },
      });
      return { result, judged };
    },
  };
}
