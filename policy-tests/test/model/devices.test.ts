/**
 * What the nodes offer of an extended resource and what the workloads ask of it: the devices the cluster facts name,
 * times the containers the plugin shares each one with (its own flag, read as Go's flag package reads it), against
 * each workload's pods at once (replicas, a rolling update's surge, a Job's parallelism) and its per-pod amount as the
 * scheduler counts it.
 */
import { describe, expect, it } from 'vitest';
import { deviceCapacity, deviceDemand } from '../../model/cluster/providers.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { podsAtOnce, unavailablePods } from '../../model/core/workloads.ts';
import { findFactsResource, readClusterFacts } from '../../model/repository/cluster-facts.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const factsResource = findFactsResource(repo.resources)!;
const GPU = 'gpu.intel.com/i915';

const resource = (kind: string, object: Record<string, unknown>): Resource =>
  ({
    ...repo.resources[0]!,
    apiVersion: 'apps/v1',
    kind,
    name: 'x',
    namespace: 'media',
    object: { apiVersion: 'apps/v1', kind, metadata: { name: 'x' }, ...object },
  }) as Resource;

const plugin = (args: string[] | undefined, flag: string | null = 'shared-dev-num') =>
  resource('DaemonSet', {
    metadata: {
      name: 'x',
      annotations: { 'gate.homelab-gitops/advertises-resources': GPU, ...(flag ? { 'gate.homelab-gitops/device-shares-flag': flag } : {}) },
    },
    spec: { template: { spec: { containers: [{ name: 'plugin', image: 'i', ...(args ? { args } : {}) }] } } },
  });

const unitsWith = (p: Resource) => deviceCapacity(repo, [p]).get(GPU)?.units;

describe('deviceCapacity', () => {
  it("multiplies the facts' devices by the plugin's shares, in each form Go's flag package takes, the last one winning", () => {
    expect(repo.facts?.devices.get(GPU)).toBe(1);
    expect(unitsWith(plugin(undefined))).toBe(1);
    expect(unitsWith(plugin(['-shared-dev-num=3']))).toBe(3);
    expect(unitsWith(plugin(['--shared-dev-num=4']))).toBe(4);
    expect(unitsWith(plugin(['-shared-dev-num', '5']))).toBe(5);
    expect(unitsWith(plugin(['-shared-dev-num=2', '-v=2', '--shared-dev-num', '6']))).toBe(6);
    // Without the annotation the gate knows no sharing flag: one container per device, as every plugin allocates by default.
    expect(unitsWith(plugin(['-shared-dev-num=3'], null))).toBe(1);
  });

  it('cannot read a value set from the environment, and says so rather than guess', () => {
    const capacity = deviceCapacity(repo, [plugin(['-shared-dev-num=$(SHARES)'])]).get(GPU)!;
    expect(capacity.units).toBeUndefined();
    expect(capacity.why).toContain('$(SHARES)');
  });

  it("the repository's plugin shares the one GPU between its two askers, Plex and the Tdarr node", () => {
    expect(deviceCapacity(repo, repo.resources).get(GPU)?.units).toBe(2);
    expect(
      deviceDemand(repo.resources)
        .filter((d) => d.name === GPU)
        .map((d) => [d.resource.name, d.perPod, d.pods]),
    ).toEqual([
      ['plex', 1, 1],
      ['tdarr-node', 1, 1],
    ]);
  });
});

describe('deviceDemand', () => {
  const gpu = (n: string, field: 'requests' | 'limits' = 'limits') => ({ resources: { [field]: { [GPU]: n } } });
  it('adds the containers that run together, takes a one-shot init container alone, and counts a request and its limit once', () => {
    const pod = resource('Pod', {
      spec: {
        initContainers: [
          { name: 'warm', ...gpu('3') },
          { name: 'side', restartPolicy: 'Always', ...gpu('1') },
        ],
        containers: [{ name: 'app', resources: { requests: { [GPU]: '1' }, limits: { [GPU]: '1' } } }],
      },
    });
    expect(deviceDemand([pod]).map((d) => [d.perPod, d.pods])).toEqual([[3, 1]]);
    const wide = resource('Pod', {
      spec: {
        initContainers: [{ name: 'warm', ...gpu('1') }],
        containers: [
          { name: 'a', ...gpu('2') },
          { name: 'b', ...gpu('1') },
        ],
      },
    });
    expect(deviceDemand([wide]).map((d) => d.perPod)).toEqual([3]);
  });
});

describe('podsAtOnce', () => {
  it("counts replicas, a rolling update's surge rounded up, and none with Recreate", () => {
    expect(podsAtOnce(resource('Deployment', { spec: {} }))).toBe(2);
    expect(podsAtOnce(resource('Deployment', { spec: { replicas: 4 } }))).toBe(5);
    expect(podsAtOnce(resource('Deployment', { spec: { replicas: 5, strategy: { rollingUpdate: { maxSurge: '50%' } } } }))).toBe(8);
    expect(podsAtOnce(resource('Deployment', { spec: { replicas: 3, strategy: { rollingUpdate: { maxSurge: 0 } } } }))).toBe(3);
    expect(podsAtOnce(resource('Deployment', { spec: { replicas: 2, strategy: { type: 'Recreate' } } }))).toBe(2);
  });

  it("counts a StatefulSet's replicas, a Job's and a CronJob's parallelism, a Pod as one, and not a DaemonSet", () => {
    expect(podsAtOnce(resource('StatefulSet', { spec: { replicas: 3 } }))).toBe(3);
    expect(podsAtOnce(resource('Job', { spec: { parallelism: 2 } }))).toBe(2);
    expect(podsAtOnce(resource('CronJob', { spec: { jobTemplate: { spec: {} } } }))).toBe(1);
    expect(podsAtOnce(resource('Pod', { spec: {} }))).toBe(1);
    expect(podsAtOnce(resource('DaemonSet', { spec: {} }))).toBeUndefined();
    expect(podsAtOnce(resource('Deployment', { spec: { replicas: '{{ .Values.replicas }}' } }))).toBeUndefined();
  });
});

describe('unavailablePods', () => {
  it('counts what a rolling update may take away first: 25 % by default and a percentage rounded down, as the controller does', () => {
    const deployment = (rollingUpdate?: object) => ({ object: { spec: rollingUpdate ? { strategy: { rollingUpdate } } : {} } });
    expect(unavailablePods(deployment(), 3)).toBe(0);
    expect(unavailablePods(deployment(), 4)).toBe(1);
    expect(unavailablePods(deployment({ maxUnavailable: '50%' }), 3)).toBe(1);
    expect(unavailablePods(deployment({ maxUnavailable: 2 }), 3)).toBe(2);
    expect(unavailablePods(deployment({ maxUnavailable: 'one' }), 3)).toBeUndefined();
  });
});

describe('the devices fact', () => {
  const withDevices = (text: string) =>
    readClusterFacts({ ...factsResource, object: { ...factsResource.object, data: { ...(factsResource.object.data as object), devices: text } } } as Resource);
  it('refuses an entry without a positive count or a reason, and a resource named twice, in one line each', () => {
    const { problems } = withDevices(
      `- {resource: ${GPU}, count: 0, reason: r}\n- {resource: ${GPU}, count: 1}\n- {resource: a/b, count: 1, reason: r}\n- {resource: a/b, count: 2, reason: r}\n`,
    );
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^devices entry 1: must be a YAML list of \{resource, count, reason\}/),
      expect.stringMatching(/^devices entry 2: /),
      'devices entry 4 names a/b again: give each resource once, with its total',
    ]);
  });
  it('holds no device when the fact is absent', () => {
    const { facts, problems } = readClusterFacts({
      ...factsResource,
      object: { ...factsResource.object, data: { ...(factsResource.object.data as object), devices: undefined } },
    } as Resource);
    expect(problems).toEqual([]);
    expect(facts.devices.size).toBe(0);
  });
});
