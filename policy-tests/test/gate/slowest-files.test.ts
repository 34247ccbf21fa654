/** npm test ends with the five slowest test files (test-support/slowest-files.ts). */
import { describe, expect, it } from 'vitest';
import { slowestLines } from '../../../test-support/slowest-files.ts';

describe('the slowest files, at the end of a run', () => {
  it('lists the five that held a worker longest, longest first, relative to the root', () => {
    const modules = [3, 41.25, 7, 0.4, 12, 9.96, 2].map((s, i) => ({ path: `/repo/t/${i}.test.ts`, ms: s * 1000 }));
    expect(slowestLines(modules, '/repo')).toEqual([
      '  41.3 s  t/1.test.ts',
      '  12.0 s  t/4.test.ts',
      '  10.0 s  t/5.test.ts',
      '   7.0 s  t/2.test.ts',
      '   3.0 s  t/0.test.ts',
    ]);
    expect(slowestLines(modules.slice(0, 2), '/elsewhere')).toEqual(['  41.3 s  /repo/t/1.test.ts', '   3.0 s  /repo/t/0.test.ts']);
  });
});
