import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { upstreamFacts } from '../../../scripts/falco-facts.ts';

describe('upstream Falco facts', () => {
  it('the shipped facts name 25 rules, 87 macros and 49 lists of falco-rules 5.1.0', () => {
    const facts = JSON.parse(readFileSync(join(REPO_ROOT, 'security/falco/facts/falco-rules-5.1.0-names.json'), 'utf8'));
    expect([facts.version, facts.rules.length, facts.macros.length, facts.lists.length]).toEqual(['5.1.0', 25, 87, 49]);
  });

  it('are regenerated from a rules file by name only, in order, each once', () => {
    const rulesFile = [
      '- required_engine_version: 0.57.0',
      '- list: example_binaries',
      '  items: [a, b]',
      '- macro: example_macro',
      '  condition: proc.name in (example_binaries)',
      '- rule: Example rule',
      '  desc: d',
      '  condition: example_macro',
      '  output: o',
      '  priority: NOTICE',
      '- macro: example_macro',
      '  condition: never_true',
    ].join('\n');
    expect(upstreamFacts(rulesFile, '9.9.9')).toEqual({
      ruleset: 'falco-rules',
      version: '9.9.9',
      required_engine_version: '0.57.0',
      rules: ['Example rule'],
      macros: ['example_macro'],
      lists: ['example_binaries'],
    });
    expect(() => upstreamFacts('rule: not a list', '1.0.0')).toThrow(/expected a YAML list/);
  });
});
