/**
 * closure-node's reading of the scheduler's NodeAffinity and TaintToleration filters (v1.36: component-helpers'
 * nodeaffinity, v1 Toleration.ToleratesTaint) over the nodes Talos makes: the control-plane nodes and the workers.
 */
import { describe, expect, it } from 'vitest';
import { nodeKinds, placement } from '../../checks/closure/scheduling.ts';

const facts = (allowSchedulingOnControlPlanes = false, nodeCount = 6, nodeLabels: Record<string, string> = {}) => ({
  nodeCount,
  controlPlaneCount: 3,
  machineConfig: { allowedUnsafeSysctls: [], allowSchedulingOnControlPlanes, nodeLabels },
});
const nodes = nodeKinds(facts());
const CP = 'node-role.kubernetes.io/control-plane';
const TAINTED = 'the control-plane nodes carry the taint node-role.kubernetes.io/control-plane:NoSchedule, which it does not tolerate';
const NO_MATCH = 'the workers do not match its node selection (their labels: kubernetes.io/os=linux)';

describe('where the scheduler places a pod on the nodes Talos makes', () => {
  it('places a pod that selects nothing on the workers, and one pinned to the control plane only where it tolerates the taint', () => {
    expect(placement({}, nodes).fit).toBe('yes');
    expect(placement({ nodeSelector: { [CP]: '' } }, nodes)).toEqual({ fit: 'no', why: [TAINTED, NO_MATCH], unknownKeys: [] });
    for (const toleration of [
      { key: CP, operator: 'Exists', effect: 'NoSchedule' },
      { key: CP, operator: 'Exists' },
      { operator: 'Exists' },
      { key: CP, value: '', effect: 'NoSchedule' },
    ])
      expect(placement({ nodeSelector: { [CP]: '' }, tolerations: [toleration] }, nodes).fit, JSON.stringify(toleration)).toBe('yes');
    for (const toleration of [
      { key: CP, operator: 'Exists', effect: 'NoExecute' },
      { key: CP, value: 'true' },
      { key: 'node-role.kubernetes.io/master', operator: 'Exists' },
    ])
      expect(placement({ nodeSelector: { [CP]: '' }, tolerations: [toleration] }, nodes).fit, JSON.stringify(toleration)).toBe('no');
    // A machine config that lets the control plane run workloads leaves it untainted.
    expect(placement({ nodeSelector: { [CP]: '' } }, nodeKinds(facts(true))).fit).toBe('yes');
  });

  it('reads required node affinity as the scheduler does: terms ORed, requirements ANDed, an empty term matching nothing', () => {
    const affinity = (...nodeSelectorTerms: object[]) => ({
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } },
    });
    const os = (operator: string, values?: string[]) => ({ matchExpressions: [{ key: 'kubernetes.io/os', operator, ...(values ? { values } : {}) }] });
    expect(placement(affinity(os('In', ['linux'])), nodes).fit).toBe('yes');
    expect(placement(affinity(os('In', ['windows'])), nodes)).toEqual({
      fit: 'no',
      why: [expect.stringContaining('control-plane nodes do not match'), NO_MATCH],
      unknownKeys: [],
    });
    expect(placement(affinity(os('In', ['windows']), os('Exists')), nodes).fit).toBe('yes');
    expect(placement(affinity(os('NotIn', ['linux'])), nodes).fit).toBe('no');
    expect(placement(affinity({}), nodes).fit).toBe('no');
    expect(placement(affinity({ matchExpressions: [{ key: CP, operator: 'DoesNotExist' }] }), nodes).fit).toBe('yes');
    expect(placement(affinity({ matchExpressions: [{ key: CP, operator: 'Gt', values: ['1'] }] }), nodes).fit).toBe('no');
  });

  it("gives the nodes Talos' labels and the machine config's nodeLabels, and no other: a program here labels no node", () => {
    expect(placement({ nodeSelector: { gpu: 'intel' } }, nodes)).toEqual({
      fit: 'no',
      why: [expect.stringContaining('control-plane nodes do not match'), NO_MATCH],
      unknownKeys: [],
    });
    expect(placement({ nodeSelector: { gpu: 'intel' } }, nodeKinds(facts(false, 6, { gpu: 'intel' }))).fit).toBe('yes');
    // The exclusions charts write for nodes this cluster has none of (a serverless node, a virtual kubelet) hold.
    const exclude = {
      matchExpressions: [
        { key: 'eks.amazonaws.com/compute-type', operator: 'NotIn', values: ['fargate'] },
        { key: 'cilium.io/no-schedule', operator: 'DoesNotExist' },
      ],
    };
    expect(placement({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [exclude] } } } }, nodes).fit).toBe(
      'yes',
    );
  });

  it('says not known where the pod selects by a label the facts do not give the nodes, unless no node could take it anyway', () => {
    expect(placement({ nodeSelector: { 'kubernetes.io/arch': 'amd64' } }, nodes)).toEqual({
      fit: 'unknown',
      why: [TAINTED],
      unknownKeys: ['kubernetes.io/arch'],
    });
    const byName = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
        },
      },
    };
    expect(placement(byName, nodes)).toMatchObject({ fit: 'unknown', unknownKeys: ['metadata.name'] });
    expect(placement({ nodeSelector: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'windows' } }, nodes).fit).toBe('no');
  });

  it('has as many kinds of node as the facts: none of workers when every node is a control-plane node', () => {
    expect(nodeKinds(facts()).map((n) => n.name)).toEqual(['control-plane nodes', 'workers']);
    expect(nodeKinds(facts(false, 3)).map((n) => [n.name, n.count, n.tainted])).toEqual([['control-plane nodes', 3, true]]);
  });
});
