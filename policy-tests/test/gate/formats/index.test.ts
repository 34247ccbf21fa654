/** Every output format is one module behind the one interface, with its own test in this folder. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTPUT_FORMATS, render } from '../../../gate/report/formats/index.ts';
import { REPO_ROOT } from '../../../model/repository/repo.ts';
import { gateResult } from './result-fixture.ts';

describe('output formats', () => {
  it('has a module and a test for each format the CLI offers', () => {
    const missing = OUTPUT_FORMATS.flatMap((f) => [
      ...(existsSync(join(REPO_ROOT, 'policy-tests/gate/report/formats', `${f}.ts`)) ? [] : [`${f}.ts`]),
      ...(existsSync(join(REPO_ROOT, 'policy-tests/test/gate/formats', `${f}.test.ts`)) ? [] : [`${f}.test.ts`]),
    ]);
    expect(OUTPUT_FORMATS).toEqual(['text', 'json', 'junit', 'tap', 'github', 'sarif']);
    expect(missing).toEqual([]);
  });

  it('renders through the format named, and each says the same counts', () => {
    const options = { summary: true, verbose: false };
    expect(render(gateResult(), 'text', options).split('\n').at(-1)).toMatch(/^Summary: 3 resources found - Valid: 1, Invalid: 1/);
    expect(render(gateResult(), 'tap', options).split('\n')[1]).toBe('1..6');
    expect(JSON.parse(render(gateResult(), 'json', options)).summary.invalid).toBe(1);
  });
});
