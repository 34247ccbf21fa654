/** kingpin v2.4.0 as model/command-lines/kingpin.ts reads a command line, on snmp_exporter v0.30.1's flags. */
import { describe, expect, it } from 'vitest';
import { isKingpinOptions, kingpinRefusal, type KingpinOptions } from '../../model/command-lines/kingpin.ts';
import { goParsesFloat } from '../../model/go/strconv.ts';

const snmp: KingpinOptions = {
  program: 'snmp_exporter',
  parser: 'kingpin',
  flags: ['--dry-run', '--snmp.debug-packets', '--config.expand-environment-variables', '--web.systemd-socket', '--version'],
  withValue: ['--config.file', '--snmp.module-concurrency', '--web.telemetry-path', '--web.listen-address', '--web.config.file', '--log.level', '--log.format'],
  repeatable: ['--config.file', '--web.listen-address'],
  values: {
    '--snmp.module-concurrency': { number: true },
    '--log.level': { choices: ['debug', 'info', 'warn', 'error'], anyCase: true },
    '--log.format': { choices: ['logfmt', 'json'] },
  },
  short: { '-h': '--help' },
  exits: ['--dry-run'],
};
const refusal = (...words: string[]) => kingpinRefusal(words, snmp);

describe('kingpin, as a Prometheus program reads its command line', () => {
  it('takes its flags with = or the next word, --no- for false, a list flag given twice, and `-` as a value', () => {
    for (const words of [
      ['--config.file=/config/snmp.yaml', '--config.file=/etc/snmp_exporter/snmp.yml', '--config.expand-environment-variables'],
      ['--config.file', '-', '--no-snmp.debug-packets', '--web.listen-address=:9116', '--web.listen-address', '[::1]:9116'],
      ['--log.level=DEBUG', '--log.format', 'json', '--snmp.module-concurrency=1_0', '--web.telemetry-path=/m'],
      ['--no-dry-run', '--'],
      [],
    ])
      expect(refusal(...words), words.join(' ')).toBeUndefined();
  });

  it('refuses a flag it does not have, with the one meant, a value for a flag that takes none, and a word no flag takes', () => {
    expect(refusal('--config.file=/a', '--config.expand-environment-varibales')).toEqual({
      index: 1,
      message: `unknown long flag '--config.expand-environment-varibales' (did you mean "--config.expand-environment-variables"?)`,
      exit: 1,
    });
    expect(refusal('--config.expand-environment-variables=true')).toMatchObject({ index: 0, message: expect.stringMatching(/^unexpected true /), exit: 1 });
    expect(refusal('--no-config.file')).toMatchObject({ index: 0, message: expect.stringMatching(/^unknown long flag '--no-config.file'/) });
    expect(refusal('--config.file=/a', 'snmp.yml')).toEqual({ index: 1, message: 'unexpected snmp.yml', exit: 1 });
    expect(refusal('--', '--dry-run')).toEqual({ index: 1, message: 'unexpected --dry-run', exit: 1 });
    expect(refusal('-x')).toEqual({ index: 0, message: "unknown short flag '-x'", exit: 1 });
    expect(refusal('-hx')).toEqual({ index: 0, message: "unknown short flag '-x'", exit: 1 });
  });

  it('refuses a missing value: none left, or a flag where it should be (a negative number is one)', () => {
    expect(refusal('--config.file')).toEqual({ index: 0, message: "expected argument for flag '--config.file'", exit: 1 });
    expect(refusal('--log.level', '--dry-run')).toEqual({ index: 0, message: "expected argument for flag '--log.level'", exit: 1 });
    expect(refusal('--snmp.module-concurrency', '-1')).toEqual({ index: 0, message: "expected argument for flag '--snmp.module-concurrency'", exit: 1 });
    expect(refusal('--snmp.module-concurrency=-1')).toBeUndefined();
  });

  it('refuses a flag that is not a list given twice, and a value its type cannot read', () => {
    expect(refusal('--log.level=info', '--log.level=debug')).toEqual({ index: 1, message: "flag 'log.level' cannot be repeated", exit: 1 });
    expect(refusal('--dry-run', '--no-dry-run')).toEqual({ index: 1, message: "flag 'dry-run' cannot be repeated", exit: 1 });
    expect(refusal('--log.level=verbose')).toMatchObject({ index: 0, message: '"verbose" for --log.level, which takes one of debug, info, warn, error' });
    expect(refusal('--log.format=JSON')).toMatchObject({ index: 0, exit: 1 });
    expect(refusal('--snmp.module-concurrency', 'four')).toMatchObject({ index: 1, message: expect.stringMatching(/^strconv\.ParseFloat: parsing "four"/) });
  });

  it('says which flags print and exit 0, before a parse error where kingpin runs them first', () => {
    expect(refusal('--version')).toEqual({ index: 0, message: '--version prints and exits 0', exit: 0 });
    expect(refusal('--no-version')).toEqual({ index: 0, message: '--version prints and exits 0', exit: 0 });
    expect(refusal('--help-man', '--bogus')).toEqual({ index: 0, message: '--help-man prints and exits 0', exit: 0 });
    expect(refusal('--bogus', '--version')).toMatchObject({ index: 0, exit: 1 });
    expect(refusal('-h')).toEqual({ index: 0, message: '--help prints its usage and exits 0', exit: 0 });
    expect(refusal('--dry-run')).toEqual({ index: 0, message: '--dry-run makes it exit once its settings are read', exit: 0 });
    // setValues stops at its first refusal: a --completion-bash after it is never set.
    expect(refusal('--log.level=x', '--completion-bash')).toMatchObject({ index: 0, exit: 1 });
    expect(refusal('--completion-bash', '--log.level=x')).toMatchObject({ index: 0, exit: 0 });
  });

  it('says a file of arguments not judged: only the running container holds it', () => {
    expect(refusal('@/etc/args')).toEqual({ index: 0, unjudged: expect.stringMatching(/file of arguments/) });
    expect(refusal('--config.file', '@/etc/args')).toEqual({ index: 1, unjudged: expect.stringMatching(/file of arguments/) });
    expect(refusal('--config.file=@/etc/args')).toBeUndefined();
  });

  it("reads a number as Go's strconv.ParseFloat does", () => {
    for (const text of ['1', '-1', '1.5', '.5', '5.', '1e5', '1_000', '1e1_0', 'Inf', '-infinity', 'NaN', '0x1p3', '0x.8p1', '0x_1p0', '1e-400'])
      expect(goParsesFloat(text), text).toBe(true);
    for (const text of ['', 'abc', '1__0', '_1', '1_', '1._5', '0x1', '0xp1', '1e400', '0x1p2000', '1e']) expect(goParsesFloat(text), text).toBe(false);
  });

  it("reads a Duration flag's value as time.ParseDuration reads it", () => {
    const timed: KingpinOptions = { ...snmp, withValue: [...snmp.withValue, '--scrape.timeout'], values: { '--scrape.timeout': { duration: true } } };
    expect(isKingpinOptions(timed)).toBe(true);
    expect(kingpinRefusal(['--scrape.timeout=1m30s'], timed)).toBeUndefined();
    expect(kingpinRefusal(['--scrape.timeout', '90'], timed)).toMatchObject({ index: 1, message: expect.stringMatching(/missing unit in duration/), exit: 1 });
  });

  it('refuses facts that name a flag of their own lists the program does not have', () => {
    expect(isKingpinOptions(snmp)).toBe(true);
    expect(isKingpinOptions({ ...snmp, exits: ['--dry-runn'] })).toBe(false);
    expect(isKingpinOptions({ ...snmp, values: { '--dry-run': { number: true } } })).toBe(false);
    expect(isKingpinOptions({ ...snmp, short: { '-v': '--verbose' } })).toBe(false);
    expect(isKingpinOptions({ ...snmp, flags: ['config.file'] })).toBe(false);
  });
});
