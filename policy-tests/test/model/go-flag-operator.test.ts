/**
 * Go's flag package on the Prometheus Operator's own flag set (v0.93.0, as the repository's facts list it): the values
 * its flag types' Set refuses (a float, a Kubernetes quantity, key=bool gates) stop it with exit 2; the log level and
 * format it compares case aside, and a feature gate it does not have, stop it with exit 1 as it starts; -version
 * prints the version and exits 0 before any of them.
 */
import { describe, expect, it } from 'vitest';
import { goFlagRefusal } from '../../model/command-lines/go-flag.ts';
import { isGoFlagOptions, type GoFlagOptions } from '../../model/command-lines/go-flag-facts.ts';
import { programOptions } from '../../../test-support/program-options.ts';

const facts = programOptions<GoFlagOptions>('monitoring/kube-prometheus-stack/facts/images.yaml', 'operator');
// The chart's own arguments (kube-prometheus-stack 88.5.3 with the repository's values).
const CHART = [
  '--kubelet-service=kube-system/kube-prometheus-stack-kubelet',
  '--kubelet-endpoints=true',
  '--localhost=127.0.0.1',
  '--config-reloader-cpu-request=0',
  '--secret-field-selector=type!=kubernetes.io/dockercfg,type!=kubernetes.io/service-account-token',
  '--web.enable-tls=true',
  '--web.listen-address=:10250',
  '--web.tls-min-version=VersionTLS13',
];
const refusal = (...extra: string[]) => goFlagRefusal([...CHART, ...extra], facts);

describe("Go's flag package, on the Prometheus Operator's flags", () => {
  it("takes the chart's arguments and values each type reads, the log settings in any case, and known gates", () => {
    expect(isGoFlagOptions(facts)).toBe(true);
    expect(refusal()).toBeUndefined();
    expect(
      refusal('--log-level=DEBUG', '--log-format=JSON', '--config-reloader-memory-limit=50Mi', '--config-reloader-cpu-limit=', '--auto-gomemlimit-ratio=0.9'),
    ).toBeUndefined();
    expect(refusal('--feature-gates=PrometheusAgentDaemonSet=true, StatusForConfigurationResources=1,', '--labels=cluster=home,env=lab')).toBeUndefined();
  });

  it("refuses what a flag type's Set refuses (exit 2), in the program's words where it has them", () => {
    expect(refusal('--auto-gomemlimit-ratio=0.x')).toEqual({ index: 8, message: 'invalid value "0.x" for flag -auto-gomemlimit-ratio: parse error', exit: 2 });
    expect(refusal('--config-reloader-cpu-request=100mm')).toMatchObject({ index: 8, exit: 2, message: expect.stringMatching(/quantity's suffix/) });
    expect(refusal('--feature-gates=PrometheusAgentDaemonSet')).toMatchObject({
      exit: 2,
      message: expect.stringMatching(/malformed pair, expect string=bool$/),
    });
    // A piece of spaces alone is not empty: component-base trims only the key and the value of a pair.
    expect(refusal('--feature-gates=PrometheusAgentDaemonSet=true, ')).toMatchObject({ exit: 2, message: expect.stringMatching(/malformed pair/) });
    expect(refusal('--feature-gates=PrometheusAgentDaemonSet=yes')).toMatchObject({
      exit: 2,
      message: expect.stringMatching(/invalid value of PrometheusAgentDaemonSet: yes/),
    });
    expect(refusal('--kubelet-node-address-priority=public')).toMatchObject({ exit: 2 });
  });

  it('refuses, as it starts (exit 1), a log level it does not know and a gate it does not have, over every time the flag is given', () => {
    expect(refusal('--log-level=verbose')).toEqual({
      index: 8,
      message: '"verbose" for -log-level, which takes one of all, debug, info, warn, error, none',
      exit: 1,
    });
    expect(refusal('--feature-gates=PrometheusAgentDaemonSet=true', '--feature-gates=PrometheusAgentDaemonset=false')).toEqual({
      index: 9,
      message: '"PrometheusAgentDaemonset" in -feature-gates is none the program knows (did you mean "PrometheusAgentDaemonSet"?)',
      exit: 1,
    });
  });

  it('stops at -version (exit 0) before it reads its log settings, and takes -version=false', () => {
    expect(refusal('--log-level=verbose', '-version')).toEqual({
      index: 9,
      message: '-version: the operator prints its version and exits 0 before it starts',
      exit: 0,
    });
    expect(refusal('-version=false')).toBeUndefined();
    expect(isGoFlagOptions({ ...facts, conflicts: [{ given: ['-version'], exit: 1, says: 'x' }] })).toBe(false);
    expect(isGoFlagOptions({ ...facts, values: { '-log-level': { caseless: true } } })).toBe(false);
    expect(isGoFlagOptions({ ...facts, values: { '-feature-gates': { boolMap: { keys: [] } } } })).toBe(false);
    expect(isGoFlagOptions({ ...facts, values: { '-auto-gomemlimit-ratio': { float: 'yes' } } })).toBe(false);
  });
});
