/** A container's resources and what a pod reads of itself, as pkg/apis/core/validation judges them. */
import { describe, expect, it } from 'vitest';
import { containerResourceNameProblems, containerResourceProblems } from '../../admission/validation/resource-requirements.ts';
import { validatePodSpec } from '../../admission/validation/pod.ts';
import { featuresAt } from '../../admission/validation/feature-gates.ts';
import { downwardApiItemProblems, ENV_FIELD_PATHS, fieldSelectorProblems, resourceFieldSelectorProblems } from '../../admission/validation/downward-api.ts';

const messages = (list: { message: string }[]) => list.map((i) => i.message.replace(/^c: /, ''));
const resources = (r: unknown) => messages(containerResourceProblems(r, ['resources'], 'c'));

describe('validateResourceRequirements', () => {
  it('names: standard, a container’s, native or extended', () => {
    expect(containerResourceNameProblems('cpu')).toEqual([]);
    expect(containerResourceNameProblems('hugepages-2Mi')).toEqual([]);
    expect(containerResourceNameProblems('gpu.intel.com/i915')).toEqual([]);
    expect(containerResourceNameProblems('cpus')).toEqual([
      'must be a standard resource type or fully qualified',
      'must be a standard resource for containers',
    ]);
    // A standard resource a quota counts, which no container asks for.
    expect(containerResourceNameProblems('pods')).toEqual(['must be a standard resource for containers']);
    expect(containerResourceNameProblems('example.com/a_b')).toEqual([]);
    expect(containerResourceNameProblems('requests.example.com/x')).toEqual(["doesn't follow extended resource name standard"]);
    expect(containerResourceNameProblems('Bad Name')).toHaveLength(1);
  });

  it('what cannot be overcommitted: a request equal to its limit, and a limit set; an extended resource whole', () => {
    expect(resources({ requests: { 'gpu.intel.com/i915': '1' }, limits: { 'gpu.intel.com/i915': '1' } })).toEqual([]);
    expect(resources({ requests: { 'gpu.intel.com/i915': '1' }, limits: { 'gpu.intel.com/i915': '2' } })).toEqual([
      'requests.gpu.intel.com/i915 1 must be equal to gpu.intel.com/i915 limit of 2',
    ]);
    expect(resources({ requests: { 'gpu.intel.com/i915': '1' } })).toEqual(['limits.gpu.intel.com/i915: Limit must be set for non overcommitable resources']);
    expect(resources({ limits: { 'gpu.intel.com/i915': '500m' } })).toEqual(['limits.gpu.intel.com/i915 500m must be an integer']);
    // cpu and memory may be overcommitted: a request below its limit is fine, above it is not (compared exactly).
    expect(resources({ requests: { cpu: '500m' }, limits: { cpu: '1' } })).toEqual([]);
    expect(resources({ requests: { cpu: '1001m' }, limits: { cpu: '1' } })).toEqual(['requests.cpu 1001m must be less than or equal to cpu limit of 1']);
  });

  it('huge pages: a whole number of pages, beside cpu or memory', () => {
    expect(resources({ limits: { 'hugepages-2Mi': '4Mi', memory: '1Gi' }, requests: { 'hugepages-2Mi': '4Mi' } })).toEqual([]);
    expect(resources({ limits: { 'hugepages-2Mi': '3Mi', memory: '1Gi' }, requests: { 'hugepages-2Mi': '3Mi' } })).toEqual([
      'limits.hugepages-2Mi 3Mi is not positive integer multiple of hugepages-2Mi',
      'requests.hugepages-2Mi 3Mi is not positive integer multiple of hugepages-2Mi',
    ]);
    expect(resources({ limits: { 'hugepages-2Mi': '4Mi' }, requests: { 'hugepages-2Mi': '4Mi' } })).toEqual(['HugePages require cpu or memory']);
  });

  it('a quantity the decoder refuses, or a negative one', () => {
    expect(resources({ limits: { memory: '1Y' } })).toEqual([expect.stringMatching(/^limits\.memory "1Y" is not a quantity \(quantities must match/)]);
    expect(resources({ limits: { memory: '-1Gi' } })).toEqual(['limits.memory -1Gi must be greater than or equal to 0']);
  });
});

describe('what a pod reads of itself (the downward API)', () => {
  const field = (fieldPath: string, expressions = ENV_FIELD_PATHS) => messages(fieldSelectorProblems({ fieldPath }, ['fieldRef'], 'c', expressions));

  it('an env var: one of the fields the kubelet fills in, a label or annotation by a qualified key', () => {
    expect(field('metadata.name')).toEqual([]);
    expect(field('spec.host')).toEqual([]);
    expect(field("metadata.labels['app.kubernetes.io/name']")).toEqual([]);
    expect(field("metadata.annotations['Example.COM/Key']")).toEqual([]);
    expect(field('metadata.nam')).toEqual(['fieldRef.fieldPath "metadata.nam": error converting fieldPath: field label not supported: metadata.nam']);
    expect(field("spec.nodeName['x']")).toEqual([
      `fieldRef.fieldPath "spec.nodeName['x']": error converting fieldPath: field label does not support subscript: spec.nodeName['x']`,
    ]);
    expect(field('spec.restartPolicy')).toEqual([
      expect.stringMatching(/^fieldRef\.fieldPath: Unsupported value: "spec\.restartPolicy": supported values: "metadata\.name", /),
    ]);
    expect(messages(fieldSelectorProblems({ fieldPath: 'metadata.name', apiVersion: 'v2' }, ['fieldRef'], 'c', ENV_FIELD_PATHS))).toEqual([
      'fieldRef.fieldPath "metadata.name": error converting fieldPath: unsupported pod version: v2',
    ]);
  });

  it("a resource field: a container's cpu, memory or storage, by a divisor that resource takes", () => {
    const ref = (fs: Record<string, unknown>, volume = false) => messages(resourceFieldSelectorProblems(fs, ['resourceFieldRef'], 'c', volume));
    expect(ref({ resource: 'limits.memory', divisor: '1Mi' })).toEqual([]);
    expect(ref({ resource: 'limits.memory', divisor: '1024Ki' })).toEqual([]);
    expect(ref({ resource: 'requests.cpu', divisor: '0.001' })).toEqual([]);
    expect(ref({ resource: 'requests.cpu', divisor: '1e-3' })).toEqual([
      "resourceFieldRef requests.cpu: only divisor's values 1m and 1 are supported with the cpu resource",
    ]);
    expect(ref({ resource: 'limits.memory', divisor: '1024' })).toEqual([
      expect.stringMatching(/^resourceFieldRef limits\.memory: only divisor's values 1, 1k/),
    ]);
    expect(ref({ resource: 'limits.gpu' })).toEqual([expect.stringMatching(/^resourceFieldRef\.resource: Unsupported value: "limits\.gpu"/)]);
    expect(ref({ resource: 'limits.memory' }, true)).toEqual(['resourceFieldRef.containerName: Required value']);
  });

  it("a downward API volume's files: five fields, one source each", () => {
    const items = (list: unknown[]) => messages(downwardApiItemProblems(list, ['items'], 'c'));
    expect(items([{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }])).toEqual([]);
    expect(items([{ path: 'node', fieldRef: { fieldPath: 'spec.nodeName' } }])).toEqual([expect.stringMatching(/Unsupported value: "spec\.nodeName"/)]);
    expect(items([{ path: 'x' }])).toEqual(['items[0]: one of fieldRef and resourceFieldRef is required']);
    expect(items([{ path: '../x', fieldRef: { fieldPath: 'metadata.name' } }])).toEqual([`items[0].path "../x" must be relative, without '..'`]);
  });
});

describe('a container’s mounts and its lifecycle sleep', () => {
  const pod = (container: Record<string, unknown>, spec: Record<string, unknown> = {}, minor = Number.NaN) =>
    messages(
      validatePodSpec({ volumes: [{ name: 'data', emptyDir: {} }], containers: [{ name: 'c', image: 'nginx:1.27.3', ...container }], ...spec }, ['spec'], {
        features: featuresAt(minor),
      }),
    ).map((m) => m.replace(/^container c:? /, ''));

  it('Bidirectional propagation only in a privileged container; a recursive read-only mount read-only, without propagation', () => {
    expect(pod({ volumeMounts: [{ name: 'data', mountPath: '/d', mountPropagation: 'Bidirectional' }] })).toEqual([
      'mountPropagation: Bidirectional mount propagation is available only to privileged containers',
    ]);
    expect(pod({ volumeMounts: [{ name: 'data', mountPath: '/d', mountPropagation: 'Bidirectional' }], securityContext: { privileged: true } })).toEqual([]);
    expect(pod({ volumeMounts: [{ name: 'data', mountPath: '/d', recursiveReadOnly: 'Enabled' }] })).toEqual([
      'recursiveReadOnly may only be specified when readOnly is true',
    ]);
    expect(
      pod({ volumeMounts: [{ name: 'data', mountPath: '/d', readOnly: true, recursiveReadOnly: 'IfPossible', mountPropagation: 'HostToContainer' }] }),
    ).toEqual(['recursiveReadOnly may only be specified when mountPropagation is None or not specified']);
  });

  it("a preStop sleep within the pod's grace period, defaulted to 30 s; zero only where the cluster's minor allows it", () => {
    const sleep = (seconds: number) => ({ lifecycle: { preStop: { sleep: { seconds } } } });
    expect(pod(sleep(20))).toEqual([]);
    expect(pod(sleep(60))).toEqual(['lifecycle.preStop: sleep 60: must be non-negative and less than terminationGracePeriodSeconds (30)']);
    expect(pod(sleep(60), { terminationGracePeriodSeconds: 90 })).toEqual([]);
    expect(pod(sleep(0))).toEqual([]);
    expect(pod(sleep(0), {}, 32)).toEqual([
      'lifecycle.preStop: sleep 0: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.',
    ]);
    // Before 1.30 the API server drops the sleep action: nothing to judge.
    expect(pod(sleep(60), {}, 29)).toEqual([]);
  });
});
