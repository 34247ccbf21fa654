/** pflag under cobra as model/command-lines/pflag.ts reads a command line, on Alloy's run command (v1.18.1) as its facts list it. */
import { describe, expect, it } from 'vitest';
import { isPflagOptions } from '../../model/command-lines/pflag-facts.ts';
import { pflagRefusal, type PflagOptions } from '../../model/command-lines/pflag.ts';
import { programOptions } from '../../../test-support/program-options.ts';

const facts = programOptions<PflagOptions>('monitoring/alloy/facts/images.yaml', 'alloy');
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
    expect(isPflagOptions({ ...facts, positional: 'legacy' })).toBe(true);
    expect(isPflagOptions({ ...facts, positional: 'legacyArgs' })).toBe(false);
    expect(isPflagOptions({ ...facts, needs: [{ given: '--cluster.name', flag: '--stability.level', is: ['experimental'], default: 'x' }] })).toBe(false);
  });
});

const ksm = programOptions<PflagOptions>('monitoring/kube-prometheus-stack/facts/images.yaml', 'kube-state-metrics');
// The image's ENTRYPOINT's words, then the chart's args (kube-state-metrics chart 7.x: --port and --resources).
const ksmChart = ['--port=8080', '--telemetry-port=8081', '--port=8080', '--resources=configmaps,pods,nodes'];
const ksmRefusal = (...extra: string[]) => pflagRefusal([...ksmChart, ...extra], ksm);

describe('pflag under cobra, as kube-state-metrics v2.20.0 reads its command line', () => {
  it("takes the chart's args, klog's flags (-v its shorthand, bundled after -h=false), and a map of lists", () => {
    for (const extra of [
      [],
      ['-v', '2'],
      ['-v=2'],
      ['-v2'],
      ['--v=2', '--logtostderr=false', '--stderrthreshold=WARNING'],
      ['--metric-labels-allowlist=pods=[app,team],nodes=[*]'],
      ['--metric-labels-allowlist', '*=[app.kubernetes.io/*]'],
      ['--metric-allowlist=kube_pod_info', '--metric-denylist=,'],
      ['--auto-gomemlimit-ratio=0x1p-1', '--server-read-timeout=1m'],
      ['--resources=', '--resources=secrets , leases'],
      ['--pod=$(POD_NAME)'],
    ])
      expect(ksmRefusal(...extra), extra.join(' ')).toBeUndefined();
  });

  it('refuses a shorthand it has not, one missing its value, and a value the type refuses, at the letter', () => {
    expect(ksmRefusal('-x')).toEqual({ index: 4, message: "unknown shorthand flag: 'x' in -x", exit: 1 });
    expect(ksmRefusal('-hx')).toEqual({ index: 4, message: "unknown shorthand flag: 'x' in -x", exit: 1 });
    expect(ksmRefusal('-v')).toEqual({ index: 4, message: "flag needs an argument: 'v' in -v", exit: 1 });
    expect(ksmRefusal('-v', 'two')).toMatchObject({ index: 5, exit: 1, message: expect.stringMatching(/parse error/) });
    expect(ksmRefusal('--shard=2147483648')).toMatchObject({ index: 4, message: expect.stringMatching(/out of range/) });
    expect(ksmRefusal('--auto-gomemlimit-ratio=1e400')).toMatchObject({ message: expect.stringMatching(/ParseFloat/) });
    expect(ksmRefusal('--metric-labels-allowlist=pods=app')).toMatchObject({ index: 4, exit: 1, message: expect.stringMatching(/invalid format, metric=/) });
    expect(ksmRefusal('--metric-labels-allowlist=pods=[a**]')).toMatchObject({ index: 4, message: expect.stringMatching(/only one wildcard per label/) });
    // Past a character of two bytes the Go loop reads a rune past the end: a panic, exit 2.
    expect(ksmRefusal('--metric-labels-allowlist=é,a')).toMatchObject({
      index: 4,
      exit: 2,
      message: expect.stringMatching(/^panic: runtime error: index out of range/),
    });
  });

  it("refuses any argument (cobra.NoArgs), and a root's flag to another command; that command alone is not judged", () => {
    expect(ksmRefusal('pods')).toEqual({ index: 4, message: 'unknown command "pods" for "kube-state-metrics"', exit: 1 });
    expect(ksmRefusal('--', '--port=1')).toMatchObject({ index: 5, message: expect.stringMatching(/unknown command/) });
    // The command reads the whole line with its own flags, --help alone: the ENTRYPOINT's --port stops it.
    // Said as another command's line (`another`): an entry of that command's own would say it instead.
    expect(ksmRefusal('version')).toEqual({ index: 0, message: 'unknown flag: --port (its version command has only --help)', exit: 1, another: true });
    expect(pflagRefusal(['version', '-h'], ksm)).toMatchObject({ index: 0, unjudged: expect.stringMatching(/version command/) });
    expect(pflagRefusal(['c', 'bash'], ksm)).toMatchObject({ index: 0, unjudged: expect.stringMatching(/c command/) });
    expect(ksmRefusal('__complete', 'x')).toMatchObject({ index: 4, unjudged: expect.stringMatching(/__complete command/) });
    // cobra finds the command past a flag's value, but never takes the last word for one. kube-state-metrics gives
    // its own -h (a Bool), so Find, which runs before cobra would give one, knows it takes no value.
    expect(pflagRefusal(['-h', 'help'], ksm)).toMatchObject({ index: 1, unjudged: expect.stringMatching(/help command/) });
    expect(pflagRefusal(['help', '-h'], ksm)).toMatchObject({ index: 0, unjudged: expect.stringMatching(/help command/) });
    // A root without its own: cobra's -h is given after Find, which reads it as taking the next word ("help").
    const own = { ...ksm, flags: ksm.flags.filter((f) => f !== '--help'), shorthands: { '-v': '--v' } };
    expect(pflagRefusal(['-h', 'help'], own)).toMatchObject({ index: 0, message: '--help prints its usage and exits 0', exit: 0 });
    expect(pflagRefusal(['--host', '::', 'help'], ksm)).toMatchObject({ index: 0, message: expect.stringMatching(/unknown flag: --host/) });
    expect(pflagRefusal(['--host', 'version'], ksm)).toBeUndefined();
    expect(ksmRefusal('-h')).toEqual({ index: 4, message: '--help prints its usage and exits 0', exit: 0 });
  });

  it('refuses what it checks as it starts: a resource it has not, a map of one, lists refused together', () => {
    expect(ksmRefusal('--resources=pods,podz')).toEqual({
      index: 4,
      message: '"podz" in --resources is none the program knows (did you mean "pods"?)',
      exit: 1,
      started: true,
    });
    expect(ksmRefusal('--resources=podz', '--custom-resource-state-only')).toBeUndefined();
    expect(ksmRefusal('--metric-labels-allowlist=pod=[app]')).toMatchObject({
      index: 4,
      started: true,
      message: expect.stringMatching(/"pod" in --metric-labels-allowlist/),
    });
    // Each value replaces the last: only the last map is read.
    expect(ksmRefusal('--metric-labels-allowlist=pod=[app]', '--metric-labels-allowlist=pods=[app]')).toBeUndefined();
    expect(ksmRefusal('--metric-allowlist=a', '--metric-denylist=b')).toMatchObject({ index: 5, started: true, message: expect.stringMatching(/both given/) });
    expect(ksmRefusal('--metric-allowlist=a', '--metric-denylist=b', '--config=/etc/ksm.yaml')).toMatchObject({
      index: 5,
      unjudged: expect.stringMatching(/--config names may override it/),
    });
  });

  it('refuses facts whose shorthands, checks or commands name what it has not', () => {
    expect(isPflagOptions(ksm)).toBe(true);
    expect(isPflagOptions({ ...ksm, shorthands: { '-v': '--verbose' } })).toBe(false);
    expect(isPflagOptions({ ...ksm, shorthands: { '-vv': '--v' } })).toBe(false);
    expect(isPflagOptions({ ...ksm, exclusive: [{ flags: ['--metric-allowlist', '--nope'], says: 'x' }] })).toBe(false);
    expect(isPflagOptions({ ...ksm, overriddenBy: ['--auto-gomemlimit'] })).toBe(false);
    expect(isPflagOptions({ ...ksm, subcommand: 'run' })).toBe(false);
    expect(isPflagOptions({ ...ksm, values: { '--resources': { each: ['pods'], skippedBy: '--shard' } } })).toBe(false);
    expect(isPflagOptions({ ...ksm, values: { '--auto-gomemlimit-ratio': { float: 'yes' } } })).toBe(false);
  });
});
