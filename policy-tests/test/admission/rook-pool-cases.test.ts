/**
 * The reader of Rook's pool validation tests (upstream/rook-pool-cases.ts), on a file written in their form; the
 * gate's port of what Rook refuses of a CephBlockPool (model/rook/pools.ts) where those tests say nothing; and what it
 * refuses of a CephCluster before it starts (model/rook/cluster.ts).
 */
import { describe, expect, it } from 'vitest';
import { rookPoolAgreement, rookPoolCases } from '../../admission/upstream/rook-pool-cases.ts';
import { poolVerdict } from '../../model/rook/pools.ts';
import { clusterRefusal } from '../../model/rook/cluster.ts';

const TEST = `
func TestValidatePool(t *testing.T) {
	context := &clusterd.Context{Executor: &exectest.MockExecutor{}}

	t.Run("succeed with replication settings", func(t *testing.T) {
		p := cephv1.CephBlockPool{ObjectMeta: metav1.ObjectMeta{Name: "mypool", Namespace: clusterInfo.Namespace}}
		p.Spec.Replicated.Size = 1
		p.Spec.Replicated.RequireSafeReplicaSize = false
		err := validatePool(context, clusterInfo, clusterSpec, &p)
		assert.NoError(t, err)
	})

	t.Run("fail Parameters['compression_mode'] is unknown", func(t *testing.T) {
		p := cephv1.CephBlockPool{ObjectMeta: metav1.ObjectMeta{Name: "mypool", Namespace: clusterInfo.Namespace}}
		p.Spec.Replicated.Size = 1
		p.Spec.Parameters = map[string]string{"compression_mode": "foo"}
		err := validatePool(context, clusterInfo, clusterSpec, &p)
		assert.Error(t, err)
		assert.EqualError(t, err, "failed to validate pool spec unknown compression mode \\"foo\\"")
	})

	t.Run("must specify name", func(t *testing.T) {
		p := cephv1.CephBlockPool{ObjectMeta: metav1.ObjectMeta{Namespace: clusterInfo.Namespace}}
		p.Spec.Replicated.Size = 3
		err := validatePool(context, clusterInfo, clusterSpec, &p)
		assert.Error(t, err)
	})

	t.Run("a mock the reader does not follow", func(t *testing.T) {
		p := cephv1.CephBlockPool{ObjectMeta: metav1.ObjectMeta{Name: "mypool", Namespace: clusterInfo.Namespace}}
		executor.MockExecuteCommandWithOutput = nil
		assert.NoError(t, err)
	})
}
`;

describe("the reader of Rook's pool validation tests", () => {
  const table = rookPoolCases(TEST);

  it('reads each block: the pool its assignments build, its name and namespace, and what the test asserts', () => {
    expect(table.cases.map((c) => [c.name, c.spec, c.place, c.refused, c.text?.value])).toEqual([
      [
        'succeed with replication settings',
        { replicated: { size: 1, requireSafeReplicaSize: false } },
        { name: 'mypool', namespace: 'myns' },
        false,
        undefined,
      ],
      [
        "fail Parameters['compression_mode'] is unknown",
        { replicated: { size: 1 }, parameters: { compression_mode: 'foo' } },
        { name: 'mypool', namespace: 'myns' },
        true,
        'failed to validate pool spec unknown compression mode "foo"',
      ],
      ['must specify name', { replicated: { size: 3 } }, { name: '', namespace: 'myns' }, true, undefined],
    ]);
    expect(table.unread).toEqual([{ name: 'a mock the reader does not follow', why: 'the statement executor.MockExecuteCommandWithOutput = nil' }]);
  });

  it('counts the blocks the gate answers as Rook does, and the unread one against it', () => {
    const a = rookPoolAgreement(table);
    expect([a.agree, a.total]).toEqual([3, 4]);
  });
});

describe("Rook's pool rules beyond its tests", () => {
  const place = { name: 'pool', namespace: 'rook-ceph', stretch: false };
  const message = (spec: object, p = place) => {
    const v = poolVerdict(spec as Record<string, unknown>, p);
    return v && 'refused' in v ? v.refused.message : v && 'notJudged' in v ? `not judged: ${v.notJudged.message}` : undefined;
  };

  it("holds a failure domain to the CRUSH map's types, as a pool names them", () => {
    expect(message({ failureDomain: 'host', replicated: { size: 3 } })).toBeUndefined();
    expect(message({ failureDomain: 'node', replicated: { size: 3 } })).toBe('unrecognized failure domain node');
    expect(message({ failureDomain: 'host', replicated: { size: 3, subFailureDomain: 'shelf' } })).toBe('unrecognized crush sub domain shelf');
    expect(message({ crushRoot: 'fast', replicated: { size: 3 } })).toMatch(/^not judged: whether the CRUSH map has a bucket fast/);
  });

  it("refuses erasure coding below its minimums and for Ceph's own pools, and a stretch cluster's pools but of size 4", () => {
    expect(message({ erasureCoded: { dataChunks: 1, codingChunks: 1 } })).toBe('invalid pool spec: erasurecoded.datachunks needs minimum value of 2');
    expect(message({ erasureCoded: { dataChunks: 2, codingChunks: 1 } }, { ...place, name: '.mgr' })).toBe(
      'invalid CephBlockPool spec: ceph built-in pool ".mgr" cannot be erasure coded',
    );
    expect(message({ replicated: { size: 3 } }, { ...place, stretch: true })).toBe('pools in a stretch cluster must have replication size 4');
    expect(message({ replicated: { size: 3, hybridStorage: { primaryDeviceClass: 'ssd', secondaryDeviceClass: 'hdd' } } })).toMatch(
      /^not judged: a hybrid pool/,
    );
  });
});

describe('what Rook refuses of a CephCluster before it starts', () => {
  const message = (spec: object) => clusterRefusal(spec as Record<string, unknown>)?.message;
  const zone = (name: string, arbiter = false) => ({ name, ...(arbiter ? { arbiter } : {}) });

  it('refuses its own internal paths as dataDirHostPath, as path.Clean reads them', () => {
    expect(message({ dataDirHostPath: '/var/lib/rook' })).toBeUndefined();
    expect(message({ dataDirHostPath: '/rook/' })).toBe('dataDirHostPath (given: "/rook/") must not be used, conflicts with "/rook" internal path');
    expect(message({ dataDirHostPath: '/etc//ceph' })).toMatch(/conflicts with "\/etc\/ceph" internal path$/);
  });

  it('holds a stretch cluster to three named zones, one arbiter, and three or five monitors', () => {
    expect(message({ mon: { count: 5, stretchCluster: { zones: [zone('a', true), zone('b'), zone('c')] } } })).toBeUndefined();
    expect(message({ mon: { count: 5, stretchCluster: { zones: [zone('a', true), zone('b')] } } })).toBe(
      'expecting exactly three zones for the stretch cluster, but found 2',
    );
    expect(message({ mon: { count: 4, stretchCluster: { zones: [zone('a', true), zone('b'), zone('c')] } } })).toBe(
      'invalid number of mons 4 for a stretch cluster, expecting 5 (recommended) or 3 (minimal)',
    );
    expect(message({ mon: { stretchCluster: { zones: [zone('a'), zone('b'), zone('c')] } } })).toBe('expecting to find exactly one arbiter zone, but found 0');
    expect(message({ mon: { stretchCluster: { zones: [zone('a', true), zone(''), zone('c')] } } })).toBe('missing zone name for the stretch cluster');
  });

  it('takes a network spec as ValidateNetworkSpec does', () => {
    expect(message({ network: { provider: 'host' } })).toBeUndefined();
    expect(message({ network: { hostNetwork: true, provider: 'multus' } })).toMatch(
      /^the legacy hostNetwork setting is only valid with the default network provider/,
    );
    expect(message({ network: { provider: 'multus' } })).toBe('at least one network selector must be specified when using the "multus" network provider');
    expect(message({ network: { addressRanges: { public: ['10.0.0.0/24'] } } })).toBe(
      'network ranges can only be specified for "host" and "multus" network providers',
    );
  });
});
