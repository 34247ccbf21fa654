/**
 * pflag under a cobra root with TraverseChildren, as model/command-lines/pflag.ts reads a command line, on falcoctl
 * 0.13.0's artifact install and follow as their facts list them. The answers are falcoctl's own, built with cobra
 * v1.10.2 and pflag v1.0.10 (docs/admission.md gives the measure).
 */
import { describe, expect, it } from 'vitest';
import { isPflagOptions } from '../../model/command-lines/pflag-facts.ts';
import { pflagRefusal, type PflagOptions } from '../../model/command-lines/pflag.ts';
import { programOptions } from '../../../test-support/program-options.ts';

const FACTS = 'security/falco/facts/images.yaml';
const install = programOptions<PflagOptions>(FACTS, 'falcoctl', 'artifact install');
const follow = programOptions<PflagOptions>(FACTS, 'falcoctl', 'artifact follow');
const installing = (...extra: string[]) => pflagRefusal(['artifact', 'install', '--log-format=json', ...extra], install);
const following = (...extra: string[]) => pflagRefusal(['artifact', 'follow', '--log-format=json', ...extra], follow);

describe('cobra traversing its children, as falcoctl reads its command line', () => {
  it("takes the chart's args, refs, the root's persistent flags on the way, and each command's own after it", () => {
    for (const extra of [[], ['falco-rules:5'], ['-v'], ['--allowed-types', 'rulesfile,plugin'], ['--platform=linux/arm64'], ['--platform='], ['-h=false']])
      expect(installing(...extra), extra.join(' ')).toBeUndefined();
    expect(pflagRefusal(['--verbose', 'artifact', 'install'], install)).toBeUndefined();
    expect(pflagRefusal(['--log-format', 'json', 'artifact', '-v', 'install'], install)).toBeUndefined();
    expect(following('-e', '1h', '--startup-behavior=')).toBeUndefined();
    // cobra's group counts a flag given at all: an empty --cron beside --every stops it too.
    expect(following('-e', '1h', '--cron=')).toMatchObject({ index: 5, started: true });
    expect(following('--every=1h', '--timeout=2s', '--startup-behavior=skip')).toBeUndefined();
  });

  it('refuses an unknown flag, a value its type refuses, and a parent word no parent flag reads (exit 1)', () => {
    expect(installing('--bogus')).toMatchObject({ index: 3, message: 'unknown flag: --bogus', exit: 1 });
    expect(installing('--log-format=xml')).toMatchObject({ index: 3, exit: 1, message: expect.stringMatching(/takes one of color, text, json/) });
    expect(installing('--allowed-types=plugin,')).toMatchObject({ index: 3, exit: 1 });
    expect(installing('--every=1h')).toMatchObject({ index: 3, message: expect.stringMatching(/^unknown flag: --every/) });
    expect(following('--timeout=x')).toMatchObject({ index: 3, exit: 1, message: expect.stringMatching(/invalid duration/) });
    // Before its command, a word is the parent's: the command's own flags are unknown there.
    expect(pflagRefusal(['--no-verify', 'artifact', 'install'], install)).toMatchObject({ index: 0, message: 'unknown flag: --no-verify' });
    // No help flag yet on a parent: pflag answers "help requested", and cobra stops with it.
    expect(pflagRefusal(['--help=false', 'artifact', 'install'], install)).toEqual({ index: 0, message: 'pflag: help requested', exit: 1 });
  });

  it('refuses what the commands check as they start: the platform, the startup behaviour, and --cron with --every', () => {
    expect(installing('--platform=linux')).toMatchObject({ index: 3, started: true, exit: 1, message: expect.stringMatching(/OS\/Arch/) });
    expect(installing('--platform=a/b/c', '--platform=linux/amd64')).toBeUndefined();
    expect(following('--startup-behavior=now')).toMatchObject({ index: 3, started: true, message: expect.stringMatching(/--startup-behavior "now"/) });
    expect(following('--cron=@daily', '-e', '1h')).toMatchObject({ index: 5, started: true, message: expect.stringMatching(/--cron and --every both given/) });
    // Without --every on the line, the configuration's every (the chart's 168h) decides: not judged.
    expect(following('--cron=@daily')).toMatchObject({ index: 3, unjudged: expect.stringMatching(/configuration file may set/) });
  });

  it('ends with its usage (exit 0) where a word names no command, and where the help flag is set', () => {
    expect(pflagRefusal(['artifact', 'bogus'], install)).toMatchObject({
      index: 1,
      exit: 0,
      fix: expect.stringMatching(/name falcoctl artifact install first/),
    });
    // --config takes the next word, so "artifact" is its value and "install" names no command of the root.
    expect(pflagRefusal(['--config', 'artifact', 'install'], install)).toMatchObject({
      index: 2,
      exit: 0,
      message: expect.stringMatching(/^falcoctl has no "install"/),
    });
    expect(pflagRefusal(['-h', 'artifact', 'install'], install)).toMatchObject({ index: 2, exit: 0 });
    expect(pflagRefusal(['--', 'artifact', 'install'], install)).toMatchObject({ index: 2, exit: 0 });
    expect(installing('-h')).toEqual({ index: 3, message: '--help prints its usage and exits 0', exit: 0 });
  });

  it("says another command not judged, marked as another's, and refuses facts whose traversal names what it has not", () => {
    expect(pflagRefusal(['artifact', 'follow'], install)).toMatchObject({ index: 1, another: true });
    expect(pflagRefusal(['version'], follow)).toMatchObject({ index: 0, another: true });
    expect(pflagRefusal(['__complete', 'x'], follow)).toMatchObject({ index: 0, another: true });
    expect(isPflagOptions(install) && isPflagOptions(follow)).toBe(true);
    expect(isPflagOptions({ ...install, traverse: { ...install.traverse, inherited: ['--nope'] } })).toBe(false);
    expect(isPflagOptions({ ...install, traverse: { ...install.traverse, others: [[]] } })).toBe(false);
    expect(isPflagOptions({ ...install, subcommand: undefined })).toBe(false);
    expect(isPflagOptions({ ...install, values: { '--platform': { shape: { pattern: '(', says: 'x' } } } })).toBe(false);
    expect(isPflagOptions({ ...follow, exclusive: [{ flags: ['--cron', '--every'], says: 'x', configured: ['--every'] }] })).toBe(false);
  });
});
