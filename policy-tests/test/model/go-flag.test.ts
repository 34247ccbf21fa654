/** Go's flag package as model/command-lines/go-flag.ts reads a command line, on the Intel GPU plugin's flags (v0.32.0, with klog's). */
import { describe, expect, it } from 'vitest';
import { goFlagRefusal } from '../../model/command-lines/go-flag.ts';
import { isGoFlagOptions, type GoFlagOptions } from '../../model/command-lines/go-flag-facts.ts';
import { programOptions } from '../../../test-support/program-options.ts';

// The facts as the repository writes them: their patterns are what is under test.
const facts = programOptions<GoFlagOptions>('apps/platform/facts/images.yaml', 'intel_gpu_device_plugin');
const refusal = (...words: string[]) => goFlagRefusal(words, facts);

describe("Go's flag package, as a Go program reads its command line", () => {
  it('takes one dash or two, a value after = or in the next word whatever it is, and stops at the first word no flag', () => {
    for (const words of [
      ['-shared-dev-num=2'],
      ['--shared-dev-num', '2', '-v=4', '-vmodule=gpu*=5,', '--allocation-policy', 'balanced'],
      ['-prefix', '-v'],
      ['-wsl=false', '-resource-manager=0'],
      ['-shared-dev-num=0x_2', '-temp-limit=017', '-log_file_max_size', '1_800'],
      ['-shared-dev-num=2', 'leftover', '-bogus'],
      ['--', '-bogus'],
      [],
    ])
      expect(refusal(...words), words.join(' ')).toBeUndefined();
  });

  it('refuses a flag it does not define, with the one meant, a missing value and bad syntax (exit 2)', () => {
    expect(refusal('-shared-dev-nmu=2')).toEqual({
      index: 0,
      message: 'flag provided but not defined: -shared-dev-nmu (did you mean "-shared-dev-num"?)',
      exit: 2,
    });
    expect(refusal('-shared-dev-num')).toEqual({ index: 0, message: 'flag needs an argument: -shared-dev-num', exit: 2 });
    expect(refusal('---wsl')).toEqual({ index: 0, message: 'bad flag syntax: ---wsl', exit: 2 });
    expect(refusal('-=2')).toEqual({ index: 0, message: 'bad flag syntax: -=2', exit: 2 });
  });

  it("refuses a value its type cannot read: a number's syntax or range, a boolean, klog's settings", () => {
    expect(refusal('-shared-dev-num', 'two')).toEqual({ index: 1, message: 'invalid value "two" for flag -shared-dev-num: parse error', exit: 2 });
    expect(refusal('-shared-dev-num=08')).toMatchObject({ index: 0, exit: 2 });
    expect(refusal('-temp-limit=9223372036854775808')).toEqual({
      index: 0,
      message: 'invalid value "9223372036854775808" for flag -temp-limit: value out of range',
      exit: 2,
    });
    expect(refusal('-v=2147483648')).toMatchObject({ exit: 2 });
    expect(refusal('-log_file_max_size=-1')).toMatchObject({ exit: 2 });
    expect(refusal('-wsl=yes')).toEqual({ index: 0, message: 'invalid boolean value "yes" for -wsl: parse error', exit: 2 });
    expect(refusal('-stderrthreshold=warn')).toMatchObject({ exit: 2 });
    expect(refusal('-stderrthreshold=Warning')).toBeUndefined();
    expect(refusal('-vmodule=gpu*')).toMatchObject({ exit: 2 });
    expect(refusal('-log_backtrace_at=gpu.go:0')).toMatchObject({ exit: 2 });
  });

  it("refuses what the program's own checks refuse once the flags are read (exit 1), the last value of each", () => {
    expect(refusal('-shared-dev-num=0')).toEqual({ index: 0, message: '0 for -shared-dev-num, which must be 1 or more', exit: 1 });
    expect(refusal('-shared-dev-num=0', '-shared-dev-num=2')).toBeUndefined();
    expect(refusal('-allocation-policy=balance')).toMatchObject({ index: 0, message: expect.stringMatching(/one of balanced, packed, none/), exit: 1 });
    expect(refusal('-resource-manager')).toMatchObject({
      index: 0,
      message: expect.stringMatching(/^-resource-manager with -shared-dev-num 1 \(its default\)/),
      exit: 1,
    });
    expect(refusal('-resource-manager', '-shared-dev-num=2')).toBeUndefined();
    expect(refusal('-wsl', '-enable-monitoring')).toMatchObject({ index: 1, exit: 1 });
    expect(refusal('-wsl', '-enable-monitoring=false')).toBeUndefined();
  });

  it('reads a value no integer syntax takes (0b12, 0o9) as text, and never throws on it', () => {
    expect(refusal('-allocation-policy=0b12')).toMatchObject({ exit: 1, message: expect.stringMatching(/one of balanced, packed, none/) });
    expect(refusal('-shared-dev-num=0o9')).toMatchObject({ exit: 2, message: expect.stringMatching(/parse error/) });
  });

  it('prints its usage and exits 0 at -h or -help, where the program defines neither', () => {
    expect(refusal('-h')).toEqual({ index: 0, message: '-h prints its usage and exits 0', exit: 0 });
    expect(refusal('--help')).toEqual({ index: 0, message: '-help prints its usage and exits 0', exit: 0 });
  });

  it('refuses facts whose values or conflicts name a flag of none of its lists', () => {
    expect(isGoFlagOptions(facts)).toBe(true);
    expect(isGoFlagOptions({ ...facts, values: { '-wls': { pattern: '^x$' } } })).toBe(false);
    // A flag that takes no value may name only the text its own Set reads.
    expect(isGoFlagOptions({ ...facts, values: { '-wsl': { pattern: '^x$' } } })).toBe(true);
    expect(isGoFlagOptions({ ...facts, values: { '-wsl': { choices: ['x'] } } })).toBe(false);
    expect(isGoFlagOptions({ ...facts, values: { '-v': { pattern: '(' } } })).toBe(false);
    expect(isGoFlagOptions({ ...facts, conflicts: [{ given: ['-wls'], says: 'x' }] })).toBe(false);
    expect(isGoFlagOptions({ ...facts, flags: ['wsl'] })).toBe(false);
  });
});
