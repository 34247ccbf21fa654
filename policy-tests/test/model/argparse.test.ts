/** Python's argparse as model/command-lines/argparse.ts reads a command line, on Tautulli.py's options (v2.16.0). */
import { describe, expect, it } from 'vitest';
import { argparseRefusal, type ArgparseOptions as ProgramOptions } from '../../model/command-lines/argparse.ts';

const tautulli: ProgramOptions = {
  program: 'Tautulli.py',
  parser: 'argparse',
  flags: ['-h', '--help', '-v', '--verbose', '-q', '--quiet', '-d', '--daemon', '--dev', '--nolaunch', '--nofork'],
  withValue: ['-p', '--port', '--datadir', '--config', '--pidfile'],
};
const refusal = (...words: string[]) => argparseRefusal(words, tautulli);

describe('argparse, as Python reads a command line', () => {
  it('takes its options whole, by a prefix only one has, with = or the next word, and short ones bundled or attached', () => {
    for (const words of [
      ['--datadir', '/config'],
      ['--datadir=/config', '--nolaunch'],
      ['--data', '/config'],
      ['-vq', '-p8181'],
      ['-p', '-5', '--port=-1'],
      [],
    ])
      expect(refusal(...words), words.join(' ')).toBeUndefined();
  });
  it('refuses an option it does not have, with the one meant, a word no option takes, an ambiguous prefix and a missing value', () => {
    expect(refusal('--datadri', '/config')).toEqual({ index: 0, message: 'unrecognized arguments: --datadri (did you mean "--datadir"?)' });
    expect(refusal('--datadir', '/config', 'extra')).toEqual({ index: 2, message: 'unrecognized arguments: extra' });
    expect(refusal('--no')).toEqual({ index: 0, message: 'ambiguous option: --no could match --nolaunch, --nofork' });
    expect(refusal('--nolaunch', '--config')).toEqual({ index: 1, message: 'argument --config: expected one argument' });
    expect(refusal('--dev=1')).toEqual({ index: 0, message: "argument --dev: ignored explicit argument '1'" });
    expect(refusal('-vx')).toEqual({ index: 0, message: "argument -v: ignored explicit argument 'x'" });
    expect(refusal('-xv')).toEqual({ index: 0, message: 'unrecognized arguments: -xv' });
    expect(refusal('--', 'x')).toEqual({ index: 0, message: 'unrecognized arguments: --' });
    // A word that looks like an option is no value, as argparse classes it: `--config --datadri` misses the config.
    expect(refusal('--config', '--datadri')).toEqual({ index: 0, message: 'argument --config: expected one argument' });
    expect(refusal('--pidfile', '-h2')).toEqual({ index: 0, message: 'argument --pidfile: expected one argument' });
  });

  it('ends at the help option with exit 0, after a word it does not know but not after one that stops it at once', () => {
    const help = { index: 1, message: 'the help option prints its usage and exits 0', exit: 0 };
    expect(refusal('--datadri', '-h')).toEqual(help);
    expect(refusal('--nolaunch', '--he')).toEqual(help);
    expect(refusal('-q', '-vh')).toEqual(help);
    expect(refusal('-h', '--no')).toEqual({ index: 1, message: 'ambiguous option: --no could match --nolaunch, --nofork' });
    expect(refusal('-hx')).toEqual({ index: 0, message: "argument -h: ignored explicit argument 'x'" });
    expect(refusal('--', '-h')).toEqual({ index: 0, message: 'unrecognized arguments: --' });
  });
});
