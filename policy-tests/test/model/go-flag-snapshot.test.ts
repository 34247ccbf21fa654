/**
 * Go's flag package on the CSI snapshot controller's flags (external-snapshotter v8.6.0, as the repository's facts
 * list them): a value its types' Set refuses stops it with exit 2; logsapi.ValidateAndApply's checks (a log format,
 * a flush frequency, the settings behind LoggingAlphaOptions, -vmodule with a JSON log) with exit 1; a feature gate
 * it has not, or one locked to its default set otherwise, with klog.Fatal's 255; -version prints and exits 0 only
 * once those pass.
 */
import { describe, expect, it } from 'vitest';
import { goFlagRefusal } from '../../model/command-lines/go-flag.ts';
import { isGoFlagOptions, type GoFlagOptions } from '../../model/command-lines/go-flag-facts.ts';
import { programOptions } from '../../../test-support/program-options.ts';

const facts = programOptions<GoFlagOptions>('apps/platform/facts/images.yaml', 'snapshot-controller');
// What snapshot-controller 5.2.0 renders from its controller.args (kebab-case keys, sorted).
const CHART = ['--feature-gates=CSIVolumeGroupSnapshot=true', '--http-endpoint=:8080', '--leader-election=true', '--leader-election-namespace=$(NAMESPACE)'];
const refusal = (...extra: string[]) => goFlagRefusal([...CHART, ...extra], facts);

describe("Go's flag package, on the snapshot controller's flags", () => {
  it("takes the chart's arguments, and what each type and check takes", () => {
    expect(isGoFlagOptions(facts)).toBe(true);
    expect(refusal()).toBeUndefined();
    expect(
      refusal('--retry-interval-max=10m', '--kube-api-qps=20.5', '--worker-threads=0x10', '--logging-format=json', '--log-flush-frequency=1ns'),
    ).toBeUndefined();
    // A quantity of zero needs no gate; -automaxprocs' own Set takes an empty value; -vmodule with no item is none.
    expect(
      refusal('--log-text-info-buffer-size=0Ki', '--log-json-info-buffer-size=-0.0', '--automaxprocs=', '--vmodule=,', '--logging-format=json'),
    ).toBeUndefined();
    expect(refusal('--feature-gates=ReleaseLeaderElectionOnExit=true, RetryGenerateName=true', '--feature-gates=SeparateCacheWatchRPC=false')).toBeUndefined();
  });

  it('refuses what a type refuses with exit 2', () => {
    expect(refusal('--retry-interval-max=10')).toEqual({
      index: 4,
      message: 'invalid value "10" for flag -retry-interval-max: time: missing unit in duration "10"',
      exit: 2,
    });
    expect(refusal('--automaxprocs=yes')).toEqual({ index: 4, message: 'invalid boolean value "yes" for -automaxprocs: parse error', exit: 2 });
    expect(refusal('--v=2147483648')).toMatchObject({ index: 4, exit: 2 });
    expect(refusal('--log-text-info-buffer-size=')).toMatchObject({ index: 4, exit: 2 });
    expect(refusal('--leader-electon=true')).toMatchObject({
      exit: 2,
      message: expect.stringMatching(/not defined: -leader-electon \(did you mean "-leader-election"\?\)/),
    });
  });

  it('refuses what logsapi.ValidateAndApply refuses with exit 1', () => {
    expect(refusal('--log-flush-frequency=0s')).toEqual({ index: 4, message: '0s for -log-flush-frequency, which must be 1ns or more', exit: 1 });
    expect(refusal('--logging-format=JSON')).toMatchObject({ index: 4, exit: 1, message: '"JSON" for -logging-format, which takes one of text, json' });
    expect(refusal('--log-json-info-buffer-size=1')).toEqual({
      index: 4,
      message: '"1" for -log-json-info-buffer-size: Feature LoggingAlphaOptions is disabled',
      exit: 1,
    });
    expect(refusal('--log-text-split-stream')).toMatchObject({ index: 4, exit: 1 });
    expect(refusal('--log-text-split-stream=false')).toBeUndefined();
    // -vmodule gathers its items over every time it is given; the conflict is said at the later of the two words.
    expect(refusal('--vmodule=a=1', '--vmodule=', '--logging-format=json')).toEqual({
      index: 6,
      message: '-vmodule="a=1" with -logging-format="json": Only supported for text log format',
      exit: 1,
    });
  });

  it('refuses a gate it has not, or a locked one set otherwise, with klog.Fatal (255), after the logging checks', () => {
    expect(refusal('--feature-gates=CSIVolumeGroupSnapshots=true')).toEqual({
      index: 4,
      message: '"CSIVolumeGroupSnapshots" in -feature-gates is none the program knows (did you mean "CSIVolumeGroupSnapshot"?)',
      exit: 255,
    });
    expect(refusal('--feature-gates=RetryGenerateName=false')).toMatchObject({ index: 4, exit: 255, message: expect.stringMatching(/holds at true/) });
    // The last setting of a gate counts.
    expect(refusal('--feature-gates=RetryGenerateName=false', '--feature-gates=RetryGenerateName=true')).toBeUndefined();
    expect(refusal('--feature-gates=Nope=true', '--logging-format=xml')).toMatchObject({ index: 5, exit: 1 });
  });

  it('prints its version and exits 0 only once its checks pass', () => {
    expect(refusal('--version')).toEqual({ index: 4, message: '-version: prints its version', exit: 0 });
    expect(refusal('--version', '--log-flush-frequency=-1s')).toMatchObject({ index: 5, exit: 1 });
    expect(refusal('--version', '--feature-gates=Nope=true')).toMatchObject({ index: 5, exit: 255 });
  });

  it('refuses, once it runs, a burst under 1 at a rate above 0 (exit 1) and leader election timings client-go refuses (a panic, exit 2)', () => {
    expect(refusal('--kube-api-burst=0')).toEqual({
      index: 4,
      message:
        '-kube-api-qps 5 (its default) with -kube-api-burst 0: burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0',
      exit: 1,
      started: true,
    });
    // A rate float32 holds as 0, or one below, takes any burst.
    expect(refusal('--kube-api-burst=0', '--kube-api-qps=1e-50')).toBeUndefined();
    expect(refusal('--kube-api-burst=-1', '--kube-api-qps=-1')).toBeUndefined();
    expect(refusal('--leader-election-renew-deadline=15s')).toEqual({
      index: 4,
      message:
        '-leader-election with -leader-election-lease-duration 15s (its default) with -leader-election-renew-deadline="15s": leaseDuration must be greater than renewDeadline',
      exit: 2,
      started: true,
    });
    // 1.2 times the retry period, truncated to whole nanoseconds as Go converts the float64.
    expect(refusal('--leader-election-retry-period=8333333334ns')).toMatchObject({
      index: 4,
      exit: 2,
      message: expect.stringMatching(/retryPeriod\*JitterFactor$/),
    });
    expect(refusal('--leader-election-retry-period=8333333333ns')).toBeUndefined();
    expect(refusal('--leader-election-retry-period=0s')).toMatchObject({ exit: 2, message: expect.stringMatching(/retryPeriod must be greater than zero$/) });
    // Without leader election none of its timings is read; the version flag stops it before any of this.
    expect(refusal('--leader-election=false', '--leader-election-renew-deadline=1h')).toBeUndefined();
    expect(refusal('--kube-api-burst=0', '--version')).toMatchObject({ exit: 0 });
  });

  it('refuses facts whose new fields do not hold together', () => {
    const values = facts.values!;
    const gates = values['-feature-gates']!;
    const broken = (more: Partial<GoFlagOptions>) => isGoFlagOptions({ ...facts, ...more });
    expect(broken({ values: { ...values, '-automaxprocs': { choices: ['x'] } } })).toBe(false);
    expect(broken({ values: { ...values, '-v': { shape: { pattern: '(', says: 'x' } } } })).toBe(false);
    expect(broken({ values: { ...values, '-v': { shape: { pattern: 'x', says: '' } } } })).toBe(false);
    expect(broken({ values: { ...values, '-feature-gates': { boolMap: { ...gates.boolMap!, locked: { Nope: true } } } } })).toBe(false);
    expect(broken({ values: { ...values, '-feature-gates': { boolMap: { ...gates.boolMap!, fatal: false as never } } } })).toBe(false);
    expect(broken({ conflicts: [{ given: ['-version'], says: 'x', late: true }] })).toBe(false);
    expect(broken({ conflicts: [{ given: [], says: 'x' }] })).toBe(false);
    expect(broken({ conflicts: [{ given: [], valued: [{ flag: '-version', pattern: 'x' }], says: 'x' }] })).toBe(false);
    expect(broken({ conflicts: [{ given: [], valued: [{ flag: '-vmodule', pattern: '[' }], says: 'x' }] })).toBe(false);
    const lease = { flag: '-leader-election-lease-duration', default: '15s', than: { default: '0s' } };
    expect(broken({ conflicts: [{ given: [], notAbove: lease, says: 'x', running: true, exit: 2 }] })).toBe(true);
    expect(broken({ conflicts: [{ given: [], notAbove: lease, says: 'x', exit: 2 }] })).toBe(false);
    expect(broken({ conflicts: [{ given: [], notAbove: { ...lease, default: '15' }, says: 'x' }] })).toBe(false);
    expect(broken({ conflicts: [{ given: [], notAbove: { ...lease, than: { flag: '-leader-election', default: '0s' } }, says: 'x' }] })).toBe(false);
    expect(broken({ conflicts: [{ given: [], above: { flag: '-kube-api-qps', than: 0, default: 'five' }, says: 'x' }] })).toBe(false);
    expect(broken({ conflicts: [{ given: ['-version'], says: 'x', running: true, exit: 0 }] })).toBe(false);
  });
});
