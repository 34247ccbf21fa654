/**
 * Kubernetes' own LimitRanger cases, ported by hand: TestPodLimitFunc of
 * plugin/pkg/admission/limitranger/admission_test.go (Apache-2.0, The Kubernetes Authors; the table as it stands with
 * corev1 LimitRanges, ephemeral storage and restartable init containers, read 2026-11-30), every success and error
 * case, with its own helpers' names. Upstream calls PodMutateLimitFunc then PodValidateLimitFunc on objects no API
 * defaulting touched and on LimitRanges with no stored defaults; the gate's refusals are measured the same way
 * (`defaults` false). Each case must agree: admitted where upstream admits it, refused where upstream refuses it.
 */
import { describe, expect, it } from 'vitest';
import { podLimitRefusals } from '../../admission/allocation/limit-range.ts';

type List = Record<string, string>;
type Requirements = { requests: List; limits: List };
type Pod = { name: string; containers: object[]; initContainers: object[] };

const getComputeResourceList = (cpu: string, memory: string): List => ({ ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) });
const getLocalStorageResourceList = (storage: string): List => (storage ? { 'ephemeral-storage': storage } : {});
const none: List = {};
const getResourceRequirements = (requests: List, limits: List): Requirements => ({ requests, limits });
const validPod = (name: string, n: number, resources: Requirements): Pod => ({
  name,
  containers: Array.from({ length: n }, (_, i) => ({ name: `foo-${i}`, resources })),
  initContainers: [],
});
const validPodInit = (pod: Pod, ...resources: Requirements[]): Pod => ({
  ...pod,
  initContainers: [...pod.initContainers, ...resources.map((r, i) => ({ name: `foo-${i}`, resources: r }))],
});
const withRestartableInitContainer = (requests: List, limits: List, pod: Pod): Pod => ({
  ...pod,
  initContainers: [...pod.initContainers, { name: `foo-${pod.initContainers.length}`, restartPolicy: 'Always', resources: { requests, limits } }],
});
// Upstream's six positional arguments, kept as its table writes them (one rest parameter: the lint's limit is four).
const createLimitRange = (...[type, min, max, defaultLimit, defaultRequest, maxLimitRequestRatio]: ['Container' | 'Pod', List, List, List, List, List]) => ({
  spec: { limits: [{ type, min, max, default: defaultLimit, defaultRequest, maxLimitRequestRatio }] },
});
const [C, P] = ['Container', 'Pod'] as const;
const cpu = (v: string) => getComputeResourceList(v, '');
const mem = (v: string) => getComputeResourceList('', v);
const es = getLocalStorageResourceList;
const rr = getResourceRequirements;

type Case = [Pod, ReturnType<typeof createLimitRange>];
const successCases: Case[] = [
  [validPod('ctr-min-cpu-request', 1, rr(cpu('100m'), none)), createLimitRange(C, cpu('50m'), none, none, none, none)],
  [validPod('ctr-min-cpu-request-limit', 1, rr(cpu('100m'), cpu('200m'))), createLimitRange(C, cpu('50m'), none, none, none, none)],
  [validPod('ctr-min-memory-request', 1, rr(mem('60Mi'), none)), createLimitRange(C, mem('50Mi'), none, none, none, none)],
  [validPod('ctr-min-memory-request-limit', 1, rr(mem('60Mi'), mem('100Mi'))), createLimitRange(C, mem('50Mi'), none, none, none, none)],
  [validPod('ctr-max-cpu-request-limit', 1, rr(cpu('500m'), cpu('1'))), createLimitRange(C, none, cpu('2'), none, none, none)],
  [validPod('ctr-max-cpu-limit', 1, rr(none, cpu('1'))), createLimitRange(C, none, cpu('2'), none, none, none)],
  [validPod('ctr-max-mem-request-limit', 1, rr(mem('250Mi'), mem('500Mi'))), createLimitRange(C, none, mem('1Gi'), none, none, none)],
  [validPod('ctr-max-cpu-ratio', 1, rr(cpu('500m'), cpu('750m'))), createLimitRange(C, none, none, none, none, cpu('1.5'))],
  [validPod('ctr-max-mem-limit', 1, rr(none, mem('500Mi'))), createLimitRange(C, none, mem('1Gi'), none, none, none)],
  [validPod('pod-min-cpu-request', 2, rr(cpu('75m'), none)), createLimitRange(P, cpu('100m'), none, none, none, none)],
  [validPod('pod-min-cpu-request-limit', 2, rr(cpu('75m'), cpu('200m'))), createLimitRange(P, cpu('100m'), none, none, none, none)],
  [validPod('pod-min-memory-request', 2, rr(mem('60Mi'), none)), createLimitRange(P, mem('100Mi'), none, none, none, none)],
  [validPod('pod-min-memory-request-limit', 2, rr(mem('60Mi'), mem('100Mi'))), createLimitRange(P, mem('100Mi'), none, none, none, none)],
  [
    validPodInit(validPod('pod-init-min-memory-request', 2, rr(mem('60Mi'), none)), rr(mem('100Mi'), none)),
    createLimitRange(P, mem('100Mi'), none, none, none, none),
  ],
  [
    validPodInit(validPod('pod-init-min-memory-request-limit', 2, rr(mem('60Mi'), mem('100Mi'))), rr(mem('80Mi'), mem('100Mi'))),
    createLimitRange(P, mem('100Mi'), none, none, none, none),
  ],
  [validPod('pod-max-cpu-request-limit', 2, rr(cpu('500m'), cpu('1'))), createLimitRange(P, none, cpu('2'), none, none, none)],
  [validPod('pod-max-cpu-limit', 2, rr(none, cpu('1'))), createLimitRange(P, none, cpu('2'), none, none, none)],
  [
    validPodInit(validPod('pod-init-max-cpu-request-limit', 2, rr(cpu('500m'), cpu('1'))), rr(cpu('1'), cpu('2')), rr(cpu('1'), cpu('1'))),
    createLimitRange(P, none, cpu('2'), none, none, none),
  ],
  [
    validPodInit(validPod('pod-init-max-cpu-limit', 2, rr(none, cpu('1'))), rr(none, cpu('2')), rr(none, cpu('2'))),
    createLimitRange(P, none, cpu('2'), none, none, none),
  ],
  [validPod('pod-max-mem-request-limit', 2, rr(mem('250Mi'), mem('500Mi'))), createLimitRange(P, none, mem('1Gi'), none, none, none)],
  [validPod('pod-max-mem-limit', 2, rr(none, mem('500Mi'))), createLimitRange(P, none, mem('1Gi'), none, none, none)],
  [validPod('pod-max-mem-ratio', 3, rr(mem('300Mi'), mem('450Mi'))), createLimitRange(P, none, mem('2Gi'), none, none, mem('1.5'))],
  [validPod('ctr-1-min-local-ephemeral-storage-request', 1, rr(es('60Mi'), es(''))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-1-min-local-ephemeral-storage-request-limit', 1, rr(es('60Mi'), es('100Mi'))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-1-max-local-ephemeral-storage-request-limit', 1, rr(es('250Mi'), es('500Mi'))), createLimitRange(C, none, es('1Gi'), none, none, none)],
  [validPod('ctr-1-max-local-ephemeral-storage-limit', 1, rr(es(''), es('500Mi'))), createLimitRange(C, none, es('1Gi'), none, none, none)],
  [validPod('ctr-2-min-local-ephemeral-storage-request', 2, rr(es('60Mi'), es(''))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-2-min-local-ephemeral-storage-request-limit', 2, rr(es('60Mi'), es('100Mi'))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-2-max-local-ephemeral-storage-request-limit', 2, rr(es('250Mi'), es('500Mi'))), createLimitRange(C, none, es('600Mi'), none, none, none)],
  [validPod('ctr-2-max-local-ephemeral-storage-limit', 2, rr(es(''), es('500Mi'))), createLimitRange(C, none, es('600Mi'), none, none, none)],
  [validPod('pod-min-local-ephemeral-storage-request', 2, rr(es('60Mi'), es(''))), createLimitRange(P, es('100Mi'), none, none, none, none)],
  [validPod('pod-min-local-ephemeral-storage-request-limit', 2, rr(es('60Mi'), es('100Mi'))), createLimitRange(P, es('100Mi'), none, none, none, none)],
  [
    validPodInit(validPod('pod-init-min-local-ephemeral-storage-request', 2, rr(es('60Mi'), es(''))), rr(es('100Mi'), es(''))),
    createLimitRange(P, es('100Mi'), none, none, none, none),
  ],
  [
    validPodInit(validPod('pod-init-min-local-ephemeral-storage-request-limit', 2, rr(es('60Mi'), es('100Mi'))), rr(es('80Mi'), es('100Mi'))),
    createLimitRange(P, es('100Mi'), none, none, none, none),
  ],
  [validPod('pod-max-local-ephemeral-storage-request-limit', 2, rr(es('250Mi'), es('500Mi'))), createLimitRange(P, none, es('1Gi'), none, none, none)],
  [validPod('pod-max-local-ephemeral-storage-limit', 2, rr(es(''), es('500Mi'))), createLimitRange(P, none, es('1Gi'), none, none, none)],
  [validPod('pod-max-local-ephemeral-storage-ratio', 3, rr(es('300Mi'), es('450Mi'))), createLimitRange(P, none, es('2Gi'), none, none, es('1.5'))],
];

const errorCases: Case[] = [
  [validPod('ctr-min-cpu-request', 1, rr(cpu('40m'), none)), createLimitRange(C, cpu('50m'), none, none, none, none)],
  [validPod('ctr-min-cpu-request-limit', 1, rr(cpu('40m'), cpu('200m'))), createLimitRange(C, cpu('50m'), none, none, none, none)],
  [validPod('ctr-min-cpu-no-request-limit', 1, rr(none, none)), createLimitRange(C, cpu('50m'), none, none, none, none)],
  [validPod('ctr-min-memory-request', 1, rr(mem('40Mi'), none)), createLimitRange(C, mem('50Mi'), none, none, none, none)],
  [validPod('ctr-min-memory-request-limit', 1, rr(mem('40Mi'), mem('100Mi'))), createLimitRange(C, mem('50Mi'), none, none, none, none)],
  [validPod('ctr-min-memory-no-request-limit', 1, rr(none, none)), createLimitRange(C, mem('50Mi'), none, none, none, none)],
  [validPod('ctr-max-cpu-request-limit', 1, rr(cpu('500m'), cpu('2500m'))), createLimitRange(C, none, cpu('2'), none, none, none)],
  [validPod('ctr-max-cpu-limit', 1, rr(none, cpu('2500m'))), createLimitRange(C, none, cpu('2'), none, none, none)],
  [validPod('ctr-max-cpu-no-request-limit', 1, rr(none, none)), createLimitRange(C, none, cpu('2'), none, none, none)],
  [validPod('ctr-max-cpu-ratio', 1, rr(cpu('1250m'), cpu('2500m'))), createLimitRange(C, none, none, none, none, cpu('1'))],
  [validPod('ctr-max-mem-request-limit', 1, rr(mem('250Mi'), mem('2Gi'))), createLimitRange(C, none, mem('1Gi'), none, none, none)],
  [validPod('ctr-max-mem-limit', 1, rr(none, mem('2Gi'))), createLimitRange(C, none, mem('1Gi'), none, none, none)],
  [validPod('ctr-max-mem-no-request-limit', 1, rr(none, none)), createLimitRange(C, none, mem('1Gi'), none, none, none)],
  [validPod('pod-min-cpu-request', 1, rr(cpu('75m'), none)), createLimitRange(P, cpu('100m'), none, none, none, none)],
  [validPod('pod-min-cpu-request-limit', 1, rr(cpu('75m'), cpu('200m'))), createLimitRange(P, cpu('100m'), none, none, none, none)],
  [validPod('pod-min-memory-request', 1, rr(mem('60Mi'), none)), createLimitRange(P, mem('100Mi'), none, none, none, none)],
  [validPod('pod-min-memory-request-limit', 1, rr(mem('60Mi'), mem('100Mi'))), createLimitRange(P, mem('100Mi'), none, none, none, none)],
  [validPod('pod-max-cpu-request-limit', 3, rr(cpu('500m'), cpu('1'))), createLimitRange(P, none, cpu('2'), none, none, none)],
  [validPod('pod-max-cpu-limit', 3, rr(none, cpu('1'))), createLimitRange(P, none, cpu('2'), none, none, none)],
  [validPod('pod-max-mem-request-limit', 3, rr(mem('250Mi'), mem('500Mi'))), createLimitRange(P, none, mem('1Gi'), none, none, none)],
  [validPod('pod-max-mem-limit', 3, rr(none, mem('500Mi'))), createLimitRange(P, none, mem('1Gi'), none, none, none)],
  [
    validPodInit(validPod('pod-init-max-mem-limit', 1, rr(none, mem('500Mi'))), rr(none, mem('1.5Gi'))),
    createLimitRange(P, none, mem('1Gi'), none, none, none),
  ],
  [validPod('pod-max-mem-ratio', 3, rr(mem('250Mi'), mem('500Mi'))), createLimitRange(P, none, mem('2Gi'), none, none, mem('1.5'))],
  [validPod('ctr-1-min-local-ephemeral-storage-request', 1, rr(es('40Mi'), es(''))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-1-min-local-ephemeral-storage-request-limit', 1, rr(es('40Mi'), es('100Mi'))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-1-min-local-ephemeral-storage-no-request-limit', 1, rr(es(''), es(''))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-1-max-local-ephemeral-storage-request-limit', 1, rr(es('250Mi'), es('2Gi'))), createLimitRange(C, none, es('1Gi'), none, none, none)],
  [validPod('ctr-1-max-local-ephemeral-storage-limit', 1, rr(es(''), es('2Gi'))), createLimitRange(C, none, es('1Gi'), none, none, none)],
  [validPod('ctr-1-max-local-ephemeral-storage-no-request-limit', 1, rr(es(''), es(''))), createLimitRange(C, none, es('1Gi'), none, none, none)],
  [validPod('ctr-2-min-local-ephemeral-storage-request', 2, rr(es('40Mi'), es(''))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-2-min-local-ephemeral-storage-request-limit', 2, rr(es('40Mi'), es('100Mi'))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-2-min-local-ephemeral-storage-no-request-limit', 2, rr(es(''), es(''))), createLimitRange(C, es('50Mi'), none, none, none, none)],
  [validPod('ctr-2-max-local-ephemeral-storage-request-limit', 2, rr(es('250Mi'), es('2Gi'))), createLimitRange(C, none, es('1Gi'), none, none, none)],
  [validPod('ctr-2-max-local-ephemeral-storage-limit', 2, rr(es(''), es('2Gi'))), createLimitRange(C, none, es('1Gi'), none, none, none)],
  [validPod('ctr-2-max-local-ephemeral-storage-no-request-limit', 2, rr(es(''), es(''))), createLimitRange(C, none, es('1Gi'), none, none, none)],
  [validPod('pod-min-local-ephemeral-storage-request', 1, rr(es('60Mi'), es(''))), createLimitRange(P, es('100Mi'), none, none, none, none)],
  [validPod('pod-min-local-ephemeral-storage-request-limit', 1, rr(es('60Mi'), es('100Mi'))), createLimitRange(P, es('100Mi'), none, none, none, none)],
  [validPod('pod-max-local-ephemeral-storage-request-limit', 3, rr(es('250Mi'), es('500Mi'))), createLimitRange(P, none, es('1Gi'), none, none, none)],
  [validPod('pod-max-local-ephemeral-storage-limit', 3, rr(es(''), es('500Mi'))), createLimitRange(P, none, es('1Gi'), none, none, none)],
  [
    validPodInit(validPod('pod-init-max-local-ephemeral-storage-limit', 1, rr(es(''), es('500Mi'))), rr(es(''), es('1.5Gi'))),
    createLimitRange(P, none, es('1Gi'), none, none, none),
  ],
  [validPod('pod-max-local-ephemeral-storage-ratio', 3, rr(es('250Mi'), es('500Mi'))), createLimitRange(P, none, es('2Gi'), none, none, es('1.5'))],
  [
    withRestartableInitContainer(cpu('1500m'), none, validPod('ctr-max-cpu-limit-restartable-init-container', 1, rr(cpu('1000m'), cpu('1500m')))),
    createLimitRange(P, none, cpu('2'), none, none, none),
  ],
];

/** The gate's refusals of a case's pod, as the upstream test calls PodValidateLimitFunc. */
const refusals = ([pod, range]: Case) =>
  podLimitRefusals({ spec: { containers: pod.containers, initContainers: pod.initContainers }, at: ['spec'] }, [range], range, false);

describe("Kubernetes' TestPodLimitFunc, every case (LimitRanger)", () => {
  it(`admits all ${successCases.length} success cases`, () => {
    const refused = successCases.flatMap((c) =>
      refusals(c)
        .slice(0, 1)
        .map((r) => `${c[0].name}: ${r.message}`),
    );
    expect(refused).toEqual([]);
  });

  it(`refuses all ${errorCases.length} error cases`, () => {
    expect(errorCases.filter((c) => refusals(c).length === 0).map(([pod]) => pod.name)).toEqual([]);
  });
});
