/**
 * LimitRanger and ResourceQuota admission (Kubernetes v1.36, plugin/pkg/admission/limitranger and resourcequota):
 * the defaults, bounds and messages, each as the plugins word them.
 */
import { describe, expect, it } from 'vitest';
import { nodeKinds } from '../../model/scheduling/nodes.ts';
import {
  admittedRequirements,
  claimLimitRefusals,
  limitRangeProblems,
  podLimitRefusals,
  podTotals,
  storedItem,
} from '../../admission/allocation/limit-range.ts';
import { amountText, computeNames, daemonSetPods, requiredCompute, resourceQuotaProblems, unscoped } from '../../admission/allocation/resource-quota.ts';

const range = (...limits: object[]) => ({ spec: { limits } });
const pod = (containers: object[], initContainers: object[] = []) => ({ spec: { containers, initContainers }, at: ['spec'] as (string | number)[] });
const c = (name: string, requests?: object, limits?: object, extra: object = {}) => ({
  name,
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
  ...extra,
});

describe('LimitRanger', () => {
  it('defaults a Container item as the API server stores it: the default limit from max, the default request from the default, then min', () => {
    expect(storedItem({ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } })).toEqual({
      type: 'Container',
      max: { cpu: '2' },
      min: { memory: '64Mi' },
      default: { cpu: '2' },
      defaultRequest: { memory: '64Mi', cpu: '2' },
    });
  });

  it("fills what a container leaves out: requests from its own limits first, then the LimitRange's defaults", () => {
    const ranges = [range({ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } })];
    expect(admittedRequirements(c('app', undefined, { memory: '1Gi' }), ranges)).toEqual({
      requests: { memory: '1Gi', cpu: '100m' },
      limits: { memory: '1Gi', cpu: '500m' },
    });
  });

  it("refuses a container past min, max or the ratio, in the plugin's words", () => {
    const bounds = range({ type: 'Container', min: { cpu: '100m' }, max: { memory: '128Mi' }, maxLimitRequestRatio: { memory: '2' } });
    const p = pod([c('app', { cpu: '50m', memory: '32Mi' }, { memory: '96Mi' }), c('side', { cpu: '200m', memory: '64Mi' })]);
    expect(podLimitRefusals(p, [bounds], bounds).map((r) => [r.path.join('.'), r.message])).toEqual([
      ['spec.containers.0.resources', 'minimum cpu usage per Container is 100m, but request is 50m'],
      ['spec.containers.0.resources', 'memory max limit to request ratio per Container is 2, but provided ratio is 3.000000'],
      // The stored item's default limit is its max: a container with none gets 128Mi, within it.
    ]);
    const noDefault = { spec: { limits: [{ type: 'Container', max: { memory: '128Mi' } }] } };
    expect(podLimitRefusals(pod([c('app', undefined, { memory: '256Mi' })]), [noDefault], noDefault).map((r) => r.message)).toEqual([
      'maximum memory usage per Container is 128Mi, but limit is 256Mi',
    ]);
  });

  it('counts a pod as the scheduler does: containers and sidecars together, or a one-shot init container with the sidecars before it', () => {
    const p = pod(
      [c('app', { cpu: '200m' }), c('metrics', { cpu: '50m' })],
      [c('sidecar', { cpu: '100m' }, undefined, { restartPolicy: 'Always' }), c('migrate', { cpu: '1' })],
    );
    expect(podTotals(p, [], 'requests')).toEqual({ cpu: 1.1 });
    const podItem = range({ type: 'Pod', max: { cpu: '1' } });
    expect(podLimitRefusals(p, [podItem], podItem).map((r) => r.message)).toEqual(['maximum cpu usage per Pod is 1.  No limit is specified']);
  });

  it("bounds a claim's storage request, never its limits", () => {
    const bounds = range({ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } });
    expect(claimLimitRefusals({ resources: { requests: { storage: '20Gi' } } }, bounds)).toEqual([
      'maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi',
    ]);
    expect(claimLimitRefusals({ resources: { requests: { storage: '512Mi' } } }, bounds)).toEqual([
      'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 512Mi',
    ]);
    expect(claimLimitRefusals({ resources: { requests: { storage: '5Gi' } } }, bounds)).toEqual([]);
  });
});

describe('ValidateLimitRange', () => {
  it("validates the item as stored, its defaults filled in first, in the API server's words", () => {
    expect(
      limitRangeProblems(
        range(
          { type: 'Container', max: { cpu: '1' }, defaultRequest: { cpu: '2' } },
          { type: 'Container', min: { memory: '1Gi' }, max: { memory: '512Mi' } },
          { type: 'Pod', default: { cpu: '1' }, max: { cpu: '4' }, min: { cpu: '1' }, maxLimitRequestRatio: { cpu: '8' } },
          { type: 'PersistentVolumeClaim', max: { cpu: '1' } },
        ),
      ).map((p) => p.message),
    ).toEqual([
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default request value 2 is greater than max value 1',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default request value 2 is greater than default limit value 1',
      'spec.limits[1].type: Duplicate value: "Container"',
      'spec.limits[1].min[memory]: Invalid value: "1Gi": min value 1Gi is greater than max value 512Mi',
      // The default limit is the max, and the default request that default (before min): both under min.
      'spec.limits[1].defaultRequest[memory]: Invalid value: "512Mi": min value 1Gi is greater than default request value 512Mi',
      'spec.limits[1].default[memory]: Invalid value: "1Gi": min value 1Gi is greater than default value 512Mi',
      "spec.limits[2].default: Forbidden: may not be specified when `type` is 'Pod'",
      'spec.limits[2].maxLimitRequestRatio[cpu]: Invalid value: "8": ratio 8 is greater than max/min = 4.000000',
      'spec.limits[3].limits: Required value: either minimum or maximum storage value is required, but neither was provided',
    ]);
    expect(limitRangeProblems(range({ type: 'Container', default: { cpu: '500m' }, max: { cpu: '1' }, min: { cpu: '100m' } }))).toEqual([]);
  });
});

describe('ResourceQuota', () => {
  it('names the compute resources a quota makes every container state, and what a container states', () => {
    expect(requiredCompute({ spec: { hard: { pods: '10', 'limits.cpu': '4', memory: '8Gi' } } })).toEqual(['limits.cpu', 'memory']);
    expect([...computeNames({ cpu: '1', memory: '1Gi' }, { memory: '1Gi' })].sort()).toEqual([
      'cpu',
      'limits.memory',
      'memory',
      'requests.cpu',
      'requests.memory',
    ]);
    expect([unscoped({ spec: { hard: {} } }), unscoped({ spec: { scopes: ['BestEffort'] } }), unscoped({ spec: { scopeSelector: {} } })]).toEqual([
      true,
      false,
      false,
    ]);
    expect([amountText('requests.cpu', 1.25), amountText('pods', 3), amountText('requests.memory', 2 ** 30)]).toEqual(['1250m', '3', '1Gi']);
  });
});

describe('ValidateResourceQuota', () => {
  it('refuses what the API server refuses of a quota, in its words', () => {
    const quota = (spec: object) => resourceQuotaProblems({ spec }).map((p) => p.message);
    expect(quota({ hard: { pods: '10', 'requests.cpu': '2', 'count/deployments.apps': '3', 'requests.nvidia.com/gpu': '1', 'hugepages-2Mi': '1Gi' } })).toEqual(
      [],
    );
    expect(quota({ hard: { pods: '-1', services: '1.5', gpus: '1', 'count/jobs.batch': '500m' } })).toEqual([
      'spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.hard[services]: Invalid value: "1.5": must be an integer',
      'spec.hard[gpus]: Invalid value: "gpus": must be a standard resource for quota',
      'spec.hard[count/jobs.batch]: Invalid value: "500m": must be an integer',
    ]);
    expect(quota({ scopes: ['BestEffort', 'NotBestEffort'], hard: { pods: '1' } })).toEqual([
      'spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes',
    ]);
    expect(quota({ scopes: ['BestEffort'], hard: { 'requests.cpu': '1' } })).toEqual([
      'spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource',
    ]);
    expect(quota({ scopes: ['Everything'], hard: { pods: '1' } })).toEqual(['spec.scopes: Invalid value: ["Everything"]: unsupported scope']);
  });
});

describe('daemonSetPods', () => {
  const kinds = (machine: { allowSchedulingOnControlPlanes?: boolean; nodeLabels?: Record<string, string> } = {}) =>
    nodeKinds({
      nodeCount: 6,
      controlPlaneCount: 3,
      machineConfig: {
        allowedUnsafeSysctls: [],
        allowSchedulingOnControlPlanes: machine.allowSchedulingOnControlPlanes ?? false,
        nodeLabels: machine.nodeLabels ?? {},
        kubePrism: { enabled: true, port: 7445 },
        proxyDisabled: false,
        cni: 'none',
        bindAddress: { controllerManager: '0.0.0.0', scheduler: '0.0.0.0' },
      },
    });
  const nodes = kinds();
  const ds = (spec: object, strategy?: object) => ({ spec: { template: { spec }, ...(strategy ? { updateStrategy: strategy } : {}) } });
  it('counts a pod on every node it may land on, with its surge, and leaves a selection on a label the facts cannot know uncounted', () => {
    expect(daemonSetPods(ds({}), nodes)).toBe(3);
    expect(daemonSetPods(ds({ tolerations: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }), nodes)).toBe(6);
    expect(daemonSetPods(ds({ tolerations: [{ operator: 'Exists' }] }, { rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } }), nodes)).toBe(9);
    expect(daemonSetPods(ds({}, { type: 'OnDelete' }), nodes)).toBe(3);
    // The labels every Talos node bears: Linux, and the control-plane role (its taint still to tolerate).
    expect(daemonSetPods(ds({ nodeSelector: { 'kubernetes.io/os': 'linux' } }), nodes)).toBe(3);
    expect(daemonSetPods(ds({ nodeSelector: { 'kubernetes.io/os': 'windows' } }), nodes)).toBe(0);
    const controlPlane = { nodeSelector: { 'node-role.kubernetes.io/control-plane': '' } };
    expect(daemonSetPods(ds(controlPlane), nodes)).toBe(0);
    expect(daemonSetPods(ds({ ...controlPlane, tolerations: [{ operator: 'Exists' }] }), nodes)).toBe(3);
    expect(daemonSetPods(ds({ nodeSelector: { 'kubernetes.io/arch': 'amd64' } }), nodes)).toBeUndefined();
  });

  it("reads its nodes as closure-node does: the machine config's labels, untainted control planes, a required affinity", () => {
    // A label no node carries: no node runs it (closure-node says so); a label the machine config gives: every node.
    expect(daemonSetPods(ds({ nodeSelector: { gpu: 'true' } }), nodes)).toBe(0);
    expect(daemonSetPods(ds({ nodeSelector: { gpu: 'true' } }), kinds({ nodeLabels: { gpu: 'true' } }))).toBe(3);
    expect(daemonSetPods(ds({}), kinds({ allowSchedulingOnControlPlanes: true }))).toBe(6);
    const required = (terms: object[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
    expect(daemonSetPods(ds(required([{ matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'DoesNotExist' }] }])), nodes)).toBe(3);
    expect(daemonSetPods(ds(required([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }])), nodes)).toBeUndefined();
  });
});
