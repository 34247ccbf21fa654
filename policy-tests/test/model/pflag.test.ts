/** pflag under cobra as model/command-lines/pflag.ts reads a command line, on Alloy's run command (v1.18.1) as its facts list it. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isPflagOptions, pflagRefusal, type PflagOptions } from '../../model/command-lines/pflag.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';

const facts = (parse(readFileSync(`${REPO_ROOT}/monitoring/alloy/facts/images.yaml`, 'utf8')) as { images: { options?: PflagOptions[] }[] }).images
  .flatMap((i) => i.options ?? [])
  .find((o) => o.parser === 'pflag')!;
const chart = [
  'run',
  '/etc/alloy/config.alloy',
  '--storage.path=/tmp/alloy',
  '--server.http.listen-addr=0.0.0.0:12345',
  '--stability.level=generally-available',
];
const refusal = (...extra: string[]) => pflagRefusal([...chart, ...extra], facts);

describe('pflag under cobra, as Alloy run reads its command line', () => {
  it("takes the chart's args, a value after = or in the next word whatever it is, flags among the path, and -- ", () => {
    for (const extra of [
      [],
      ['--cluster.enabled'],
      ['--cluster.rejoin-interval', '-1s'],
      ['--config.format', '--x'],
      ['--cluster.max-join-peers=0x_10'],
      ['--cluster.enabled=false'],
      ['-h=false'],
    ])
      expect(refusal(...extra), extra.join(' ')).toBeUndefined();
    expect(pflagRefusal(['run', '--cluster.enabled', '/etc/alloy/config.alloy'], facts)).toBeUndefined();
    expect(pflagRefusal(['run', '--', '/etc/alloy/config.alloy'], facts)).toBeUndefined();
  });

  it('refuses an unknown flag with the one meant, a missing value, a value its type refuses, and bad syntax (exit 1)', () => {
    expect(refusal('--cluster.enabld')).toEqual({ index: 5, message: 'unknown flag: --cluster.enabld (did you mean "--cluster.enabled"?)', exit: 1 });
    expect(refusal('--cluster.name')).toEqual({ index: 5, message: 'flag needs an argument: --cluster.name', exit: 1 });
    expect(refusal('--cluster.rejoin-interval=5')).toMatchObject({ index: 5, message: expect.stringMatching(/missing unit in duration/) });
    expect(refusal('--stability.level', 'beta')).toMatchObject({
      index: 6,
      message: expect.stringMatching(/takes one of experimental, public-preview, generally-available/),
    });
    expect(refusal('--disable-reporting=no')).toMatchObject({ index: 5, message: expect.stringMatching(/strconv\.ParseBool/) });
    expect(refusal('--help=no')).toMatchObject({ index: 5, exit: 1 });
    expect(refusal('-x')).toEqual({ index: 5, message: "unknown shorthand flag: 'x' in -x", exit: 1 });
    expect(refusal('---x')).toEqual({ index: 5, message: 'bad flag syntax: ---x', exit: 1 });
  });

  it('reads a value no integer syntax takes as text, and never throws on it', () => {
    expect(refusal('--stability.level=0b12')).toMatchObject({ exit: 1, message: expect.stringMatching(/takes one of/) });
    expect(refusal('--cluster.max-join-peers=0o9')).toMatchObject({ exit: 1, message: expect.stringMatching(/parse error/) });
  });

  it('refuses a count of paths run does not take (cobra.ExactArgs(1)), at the first one too many', () => {
    expect(refusal('/etc/alloy/other.alloy')).toEqual({ index: 5, message: 'accepts 1 arg(s), received 2', exit: 1 });
    expect(pflagRefusal(['run', '--cluster.enabled'], facts)).toMatchObject({ message: 'accepts 1 arg(s), received 0' });
  });

  it('ends at the help flag with exit 0 where its last value is true, before the paths are counted', () => {
    expect(refusal('--help')).toEqual({ index: 5, message: '--help prints its usage and exits 0', exit: 0 });
    expect(pflagRefusal(['run', '-h'], facts)).toMatchObject({ exit: 0 });
    expect(refusal('-h', '-h=false')).toBeUndefined();
  });

  it('refuses an experimental flag below the experimental stability level, as run checks as it starts', () => {
    expect(refusal('--server.http.enable-graphql')).toMatchObject({
      index: 5,
      message: expect.stringMatching(/^'--server\.http\.enable-graphql' can only be used with --stability\.level=experimental \(it is generally-available\)/),
      exit: 1,
      started: true,
    });
    expect(refusal('--server.http.enable-graphql', '--stability.level=experimental')).toBeUndefined();
    expect(refusal('--server.http.enable-graphql=false')).toBeUndefined();
    expect(pflagRefusal(['run', '/c', '--feature.prometheus.direct-fanout.enabled'], facts)).toMatchObject({
      message: expect.stringMatching(/generally-available, its default/),
    });
  });

  it('says another command not judged, and refuses facts whose values name a flag it has not', () => {
    expect(pflagRefusal(['fmt', '/x'], facts)).toMatchObject({ index: 0, unjudged: expect.stringMatching(/another command than run/) });
    expect(isPflagOptions(facts)).toBe(true);
    expect(isPflagOptions({ ...facts, values: { '--cluster.enabled': { duration: true } } })).toBe(false);
    expect(isPflagOptions({ ...facts, values: { '--cluster.name': {} } })).toBe(false);
    expect(isPflagOptions({ ...facts, positional: -1 })).toBe(false);
    expect(isPflagOptions({ ...facts, needs: [{ given: '--cluster.name', flag: '--stability.level', is: ['experimental'], default: 'x' }] })).toBe(false);
  });
});
