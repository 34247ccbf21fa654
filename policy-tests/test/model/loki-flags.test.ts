/**
 * Loki's command line as Loki 3.x reads it (model/loki/flags.ts), held to the repository's own reference of its flags:
 * the chart's arguments pass; a flag Loki does not register, a value its type refuses, a missing value, `-help`,
 * `-version`, `-health`, `-verify-config` and `-list-targets` stop it; a flag a prefix may make, one far from every
 * flag, and a typed value Kubernetes fills in are said not judged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { lokiFlagProblem, lokiFlags, readLokiFlags } from '../../model/loki/flags.ts';
import { LOKI_REFERENCE } from '../../model/loki/config.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';

const flags = lokiFlags(parse(readFileSync(join(REPO_ROOT, LOKI_REFERENCE), 'utf8')))!;
const CHART = ['-config.file=/etc/loki/config/config.yaml', '-config.expand-env=true', '-memberlist.advertise-addr=$(POD_IP)', '-target=all'];
const problem = (...extra: string[]) => lokiFlagProblem([...CHART, ...extra], flags);

describe("Loki's command line", () => {
  it('reads the flags the reference lists, with their types, and the wrapper flags beside them', () => {
    expect(flags.known.get('-config.expand-env')).toBe('boolean');
    expect(flags.known.get('-ingester.max-chunk-age')).toBe('duration');
    expect(flags.known.get('-ingester.client.grpc-max-recv-msg-size')).toBe('int');
    expect(flags.known.get('-verify-config')).toBe('boolean');
    expect(lokiFlags({ version: '3' })).toBeUndefined();
  });

  it("takes the chart's arguments, typed values it reads, and what follows the first word that is no flag", () => {
    expect(problem()).toBeUndefined();
    expect(problem('-log.level=debug', '-ingester.max-chunk-age', '2h', '-querier.max-concurrent=8', '--config.expand-env=false')).toBeUndefined();
    expect(problem('-ruler.storage.s3.insecure', '-limits.per-user-override-period=10s')).toBeUndefined();
    expect(problem('extra', '-no-such-flag')).toBeUndefined();
    expect(problem('--', '-no-such-flag')).toBeUndefined();
  });

  it('keeps the last value of each flag and the word that gave it, and what was set before a word that stops the parse', () => {
    const read = readLokiFlags([...CHART, '--config.file', '/etc/loki/other.yaml', '-config.expand-env=false'], flags);
    expect(read.problem).toBeUndefined();
    expect(read.values.get('-config.file')).toEqual({ value: '/etc/loki/other.yaml', index: 5 });
    expect(read.values.get('-config.expand-env')).toEqual({ value: 'false', index: 6 });
    const stopped = readLokiFlags([...CHART, '-log.level=debug', '-nope.flagg=1'], flags);
    expect(stopped.values.get('-log.level')).toEqual({ value: 'debug', index: 4 });
  });

  it('refuses a slip of a known flag with the nearest, bad syntax, a missing value and a value its type refuses', () => {
    expect(problem('-config.expand-envv=true')).toEqual({
      index: 4,
      message: 'flag provided but not defined: -config.expand-envv (did you mean "-config.expand-env"?)',
      exit: 2,
    });
    expect(problem('---x')).toMatchObject({ index: 4, message: 'bad flag syntax: ---x', exit: 2 });
    expect(problem('-ingester.max-chunk-age')).toMatchObject({ index: 4, message: 'flag needs an argument: -ingester.max-chunk-age' });
    expect(problem('-ingester.max-chunk-age', '2hours')).toMatchObject({
      index: 5,
      message: 'invalid value "2hours" for flag -ingester.max-chunk-age: parse error',
    });
    expect(problem('-config.expand-env=ture')).toMatchObject({ index: 4, message: 'invalid boolean value "ture" for -config.expand-env: parse error' });
    expect(problem('-distributor.ingestion-rate-limit-mb=four')).toMatchObject({ message: expect.stringMatching(/^invalid value "four" for flag/) });
  });

  it('stops at -help (exit 2), and at the words that make Loki exit before it serves', () => {
    expect(problem('-help')).toMatchObject({ index: 4, exit: 2, message: "-help prints Loki's usage" });
    expect(problem('-h')).toMatchObject({ exit: 2 });
    expect(problem('extra', '--version')).toMatchObject({ index: 5, exit: 0, message: expect.stringMatching(/print its version/) });
    expect(problem('-health')).toMatchObject({ index: 4, exit: 0, message: expect.stringMatching(/health check/) });
    expect(problem('-verify-config')).toMatchObject({ index: 4, exit: 0, message: expect.stringMatching(/check its configuration and exit 0/) });
    expect(problem('-list-targets=true', '-list-targets=false')).toBeUndefined();
  });

  it('says not judged a flag a prefix may make, one far from every flag, and a typed value from the environment', () => {
    expect(problem('-s3.buckets=logs')).toMatchObject({ index: 4, unjudged: expect.stringMatching(/ending s3\.buckets under prefixes/) });
    expect(problem('-zzzzzzzzzzzzzzzzzzzz=1')).toMatchObject({ index: 4, unjudged: expect.stringMatching(/nor near one/) });
    expect(problem('-ingester.max-chunk-age=$(AGE)')).toMatchObject({ index: 4, unjudged: expect.stringMatching(/Kubernetes fills in/) });
  });
});
