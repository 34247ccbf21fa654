/**
 * The scheduler's node matching (model/scheduling/node-affinity.ts): component-helpers' nodeaffinity and core/v1's
 * ToleratesTaint, with a label or a name the caller cannot know left unknown.
 */
import { describe, expect, it } from 'vitest';
import {
  nodeSelectorErrors,
  nodeSelectorTermsFit,
  requiredNodeAffinityFits,
  toleratesTaint,
  untoleratedTaint,
  type NodeView,
} from '../../model/scheduling/node-affinity.ts';

const node: NodeView = { labels: { 'kubernetes.io/os': 'linux', 'lab.example/gpus': '2' }, name: undefined, unknownLabel: (k) => k === 'kubernetes.io/arch' };
const term = (...matchExpressions: object[]) => ({ matchExpressions });
const fits = (spec: object) => requiredNodeAffinityFits(spec, node);
const affinity = (...terms: object[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });

describe("the scheduler's node affinity", () => {
  it('matches a nodeSelector and the required terms: terms ORed, requirements ANDed, an empty term matching nothing', () => {
    expect(fits({ nodeSelector: { 'kubernetes.io/os': 'linux' } })).toBe('yes');
    expect(fits({ nodeSelector: { 'kubernetes.io/os': 'windows' } })).toBe('no');
    expect(fits(affinity(term({ key: 'disk', operator: 'Exists' }), term({ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] })))).toBe('yes');
    expect(fits(affinity({}))).toBe('no');
    expect(fits({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } } })).toBe('no');
    expect(fits(affinity(term({ key: 'disk', operator: 'NotIn', values: ['ssd'] }), {}))).toBe('yes');
  });

  it('compares integers for Gt and Lt, and a label that is not one matches neither', () => {
    expect(fits(affinity(term({ key: 'lab.example/gpus', operator: 'Gt', values: ['1'] })))).toBe('yes');
    expect(fits(affinity(term({ key: 'lab.example/gpus', operator: 'Lt', values: ['2'] })))).toBe('no');
    expect(fits(affinity(term({ key: 'kubernetes.io/os', operator: 'Gt', values: ['1'] })))).toBe('no');
  });

  it('leaves unknown what turns on a label or a name it cannot know, and skips a term that does not parse', () => {
    const keys = new Set<string>();
    expect(requiredNodeAffinityFits(affinity(term({ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] })), node, keys)).toBe('unknown');
    expect(requiredNodeAffinityFits(affinity({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }), node, keys)).toBe('unknown');
    expect([...keys]).toEqual(['kubernetes.io/arch', 'metadata.name']);
    expect(fits(affinity(term({ key: 'kubernetes.io/os', operator: 'Exists', values: ['x'] }), term({ key: 'kubernetes.io/os', operator: 'Exists' })))).toBe(
      'yes',
    );
    expect(nodeSelectorTermsFit([term({ key: 'kubernetes.io/os', operator: 'Exists', values: ['x'] })], node)).toBe('no');
  });

  it("gives NewNodeSelector's errors at their places", () => {
    expect(
      nodeSelectorErrors({
        nodeSelectorTerms: [
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }] },
          term({ key: 'bad key', operator: 'In', values: ['v'] }),
          term({ key: 'k', operator: 'Gt', values: ['x'] }),
        ],
      }).map((e) => `${e.type} ${e.field}`),
    ).toEqual([
      'Invalid nodeSelectorTerms[0].matchFields[0].values',
      'Invalid nodeSelectorTerms[1].matchExpressions[0].key',
      'Invalid nodeSelectorTerms[2].matchExpressions[0].values[0]',
    ]);
  });
});

describe('tolerations', () => {
  const taint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
  it('tolerate a taint by effect, key and operator, as core/v1 does', () => {
    expect(toleratesTaint({ key: taint.key, operator: 'Exists' }, taint)).toBe(true);
    expect(toleratesTaint({ operator: 'Exists' }, taint)).toBe(true);
    expect(toleratesTaint({ key: taint.key, effect: 'NoExecute', operator: 'Exists' }, taint)).toBe(false);
    expect(toleratesTaint({ key: taint.key, value: 'x' }, taint)).toBe(false);
    expect(toleratesTaint({ key: taint.key, operator: 'Gt', value: '1' }, taint)).toBe(false);
    expect(untoleratedTaint([taint, { key: 'gpu', effect: 'NoExecute' }], [{ operator: 'Exists', effect: 'NoSchedule' }])).toEqual({
      key: 'gpu',
      effect: 'NoExecute',
    });
    expect(untoleratedTaint([{ key: 'gpu', effect: 'NoExecute' }], [], (t) => t.effect === 'NoSchedule')).toBeUndefined();
  });
});
