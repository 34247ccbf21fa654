/** cxxopts v3.0.0 as model/command-lines/cxxopts.ts reads a command line, on Falco 0.44.1's options as its facts list them; each answer is Falco's own (built with g++). */
import { describe, expect, it } from 'vitest';
import { cxxoptsReadsInt32, cxxoptsRefusal, isCxxoptsOptions, itemsOf, type CxxoptsOptions } from '../../model/command-lines/cxxopts.ts';
import { programOptions } from '../../../test-support/program-options.ts';

const facts = programOptions<CxxoptsOptions>('security/falco/facts/images.yaml', 'falco');
const falco = (...words: string[]) => cxxoptsRefusal(words, facts);

describe('cxxopts v3.0.0, as Falco 0.44.1 reads its command line', () => {
  it("takes the chart's args, a bool alone or after =, a value after = or in the next word, letters bundled, and any other word", () => {
    for (const words of [
      ['--disable-source', 'syscall'],
      ['-U', '-v', '-pk'],
      ['-Uv', '-M', '10'],
      ['--unbuffered=true', '-o', 'engine.kind=modern_ebpf', '--option=a=b,c=d,'],
      ['--dry-run=false', '-h', '--help=F', 'x'],
      ['/usr/bin/falco', 'x', '--', '--nope'],
      ['-M', '10000000000'],
      ['--format=JSON'],
    ])
      expect(falco(...words), words.join(' ')).toBeUndefined();
  });

  it('refuses an option it does not have, one missing its value, a value its type refuses, and a word of the wrong form (exit 1)', () => {
    expect(falco('-u')).toEqual({ index: 0, message: 'Option \'u\' does not exist (did you mean "-U"?)', exit: 1 });
    expect(falco('--userspace')).toMatchObject({ index: 0, message: "Option 'userspace' does not exist", exit: 1 });
    expect(falco('--dry_run')).toMatchObject({ message: 'Option \'dry_run\' does not exist (did you mean "--dry-run"?)' });
    expect(falco('-r')).toEqual({ index: 0, message: "Option 'r' is missing an argument", exit: 1 });
    expect(falco('--dry-run=yes')).toEqual({ index: 0, message: "Argument 'yes' failed to parse", exit: 1 });
    expect(falco('-M', '+5')).toEqual({ index: 1, message: "Argument '+5' failed to parse", exit: 1 });
    expect(falco('-oa=b')).toMatchObject({ index: 0, message: "Argument '-oa=b' starts with a - but has incorrect syntax" });
    expect(falco('--c')).toMatchObject({ message: expect.stringMatching(/incorrect syntax/) });
  });

  it('refuses what it checks, in the order of its actions, and ends at an option that prints or runs something else (exit 0)', () => {
    expect(falco('--markdown=false', '--format', 'text')).toMatchObject({ index: 2, exit: 1, started: true });
    expect(falco('--format', 'xml')).toMatchObject({ index: 1, message: expect.stringMatching(/text, markdown, json/), started: true });
    expect(falco('-o', 'engine.kind')).toMatchObject({ index: 1, message: "--option 'engine.kind' is not of the form it reads", started: true });
    expect(falco('-o', '')).toMatchObject({ index: 1, exit: 1 });
    expect(falco('--enable-source=', '--disable-source', 'syscall')).toMatchObject({ index: 2, exit: 1, started: true });
    expect(falco('--dry-run')).toEqual({ index: 0, message: '--dry-run does something else and exits', exit: 0 });
    expect(falco('-V', '')).toMatchObject({ exit: 0 });
    expect(falco('-l', '')).toBeUndefined();
    expect(falco('--list', 'syscall')).toMatchObject({ index: 0, exit: 0 });
    // --help comes before the configuration's load, --version after it.
    expect(falco('-o', 'x', '-h')).toMatchObject({ index: 2, exit: 0 });
    expect(falco('-o', 'x', '--version')).toMatchObject({ index: 1, exit: 1 });
  });

  it("reads a whole number as cxxopts' integer_parser does, its own overflow check and all", () => {
    for (const text of ['0', '0x', '0x0', '-0x10', '2147483647', '-2147483648', '10000000000', '0xFF'])
      expect(cxxoptsReadsInt32(text), text).toBe(text !== '0x');
    for (const text of ['2147483648', '-2147483649', '4294967296', '0X10', '1_0', '+1', '', ' 1', '1e3']) expect(cxxoptsReadsInt32(text), text).toBe(false);
  });

  it("splits a list's value as cxxopts does, and refuses facts that name what the program has not", () => {
    expect([itemsOf(''), itemsOf(','), itemsOf('a,'), itemsOf('a,,'), itemsOf('a,b')]).toEqual([[''], [''], ['a'], ['a', ''], ['a', 'b']]);
    expect(isCxxoptsOptions(facts)).toBe(true);
    expect(isCxxoptsOptions({ ...facts, short: { '-x': '--nope' } })).toBe(false);
    expect(isCxxoptsOptions({ ...facts, lists: ['--dry-run'] })).toBe(false);
    expect(isCxxoptsOptions({ ...facts, values: { '--format': { after: '--nope', choices: ['a'] } } })).toBe(false);
    expect(isCxxoptsOptions({ ...facts, conflicts: [{ given: ['--markdown', '--nope'], says: 'x' }] })).toBe(false);
  });
});
