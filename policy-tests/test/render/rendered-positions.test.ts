/**
 * Where a finding on a rendered value is said (render/output.ts renderedPositions): at the values key that set it,
 * else at the one key whose text it is, else, for a command-line flag the chart built from one value
 * (`--leader-election-retry-period={{ .retryPeriod }}`), at that value; else at the chart source.
 */
import { describe, expect, it } from 'vitest';
import { renderedPositions } from '../../render/output.ts';
import { valuesDataFile } from '../../model/repository/data-file.ts';

const SOURCE = { line: 24, col: 14 };
const values = valuesDataFile(
  'apps/platform/cert-manager/values.yaml',
  ['global:', '  leaderElection:', '    retryPeriod: 0s', '    renewDeadline: 40s', 'webhook:', '  securePort: 10250', 'timeout: 40s', ''].join('\n'),
);
const args = (...words: string[]) => ({ spec: { containers: [{ args: words }] } });
const at = (object: Record<string, unknown>, index: number) =>
  renderedPositions(object, [values], () => SOURCE).at(['spec', 'containers', 0, 'args', index], 'value');

describe('renderedPositions of a flag the chart built', () => {
  it("says it at the value under a key that ends the flag's name", () => {
    expect(at(args('--v=2', '--leader-election-retry-period=0s'), 1)).toMatchObject({ file: 'apps/platform/cert-manager/values.yaml', line: 3 });
    expect(at(args('--secure-port=10250'), 0)).toMatchObject({ line: 6 });
  });

  it('says it at the chart source where no key, or more than one, may have written it', () => {
    // Two keys hold 40s, and only renewDeadline ends the flag's name: that one.
    expect(at(args('--leader-election-renew-deadline=40s'), 0)).toMatchObject({ line: 4 });
    // No key ends --wait's name; a value no key holds; a word that is no flag.
    expect(at(args('--wait=40s'), 0)).toEqual(SOURCE);
    expect(at(args('--leader-election-retry-period=15s'), 0)).toEqual(SOURCE);
    expect(at(args('check', 'api'), 1)).toEqual(SOURCE);
  });
});
