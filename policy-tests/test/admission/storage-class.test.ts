/** A StorageClass as pkg/apis/storage/validation `ValidateStorageClass` judges it. */
import { describe, expect, it } from 'vitest';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const said = (o: object) => validateBuiltin('StorageClass', { metadata: { name: 'ceph-block' }, ...o }, 35).map((p) => `${p.path.join('.')}: ${p.message}`);

describe('a StorageClass', () => {
  it('admits what rook writes: a CSI provisioner, parameters, a policy, a binding mode, topologies', () => {
    expect(
      said({
        provisioner: 'rook-ceph.rbd.csi.ceph.com',
        parameters: { clusterID: 'rook-ceph', pool: 'replicapool' },
        reclaimPolicy: 'Retain',
        volumeBindingMode: 'WaitForFirstConsumer',
        allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a', 'b'] }] }],
      }),
    ).toEqual([]);
  });
  it('refuses a provisioner that is no qualified name, Recycle, and topologies that repeat a key, a value or a term', () => {
    const term = { matchLabelExpressions: [{ key: 'zone', values: ['a'] }] };
    expect(
      said({
        provisioner: 'rook ceph',
        reclaimPolicy: 'Recycle',
        allowedTopologies: [
          term,
          term,
          {
            matchLabelExpressions: [
              { key: 'zone', values: ['a', 'a'] },
              { key: 'zone', values: [] },
            ],
          },
        ],
      }),
    ).toEqual([
      expect.stringMatching(/^provisioner: provisioner "rook ceph": /),
      'reclaimPolicy: reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
      'allowedTopologies.1.matchLabelExpressions: matchLabelExpressions: Duplicate value',
      'allowedTopologies.2.matchLabelExpressions.0.values.1: values: Duplicate value: "a"',
      'allowedTopologies.2.matchLabelExpressions.1.values: values: Required value',
      'allowedTopologies.2.matchLabelExpressions.1.key: key: Duplicate value: "zone"',
    ]);
  });
});

describe("a claim's modes and classes", () => {
  const claim = (spec: object) =>
    validateBuiltin('PersistentVolumeClaim', { metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } }, ...spec } }, 35).map(
      (p) => `${p.path.join('.')}: ${p.message}`,
    );
  it('refuses ReadWriteOncePod beside another mode, and a class name that is no subdomain', () => {
    expect(claim({ accessModes: ['ReadWriteOncePod'], storageClassName: 'ceph-block' })).toEqual([]);
    expect(claim({ accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'], storageClassName: 'Ceph_Block' })).toEqual([
      'spec.accessModes: may not use ReadWriteOncePod with other access modes',
      expect.stringMatching(/^spec\.storageClassName: storageClassName "Ceph_Block": /),
    ]);
  });
});

describe("a claim's data source", () => {
  const claim = (spec: object) =>
    validateBuiltin(
      'PersistentVolumeClaim',
      { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } },
      35,
    ).map((p) => `${p.path.join('.')}: ${p.message}`);
  const snapshot = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'nightly' };
  it('admits a snapshot, a claim of the core group, and the two fields naming one object', () => {
    expect(claim({ dataSource: snapshot, dataSourceRef: snapshot })).toEqual([]);
    expect(claim({ dataSource: { kind: 'PersistentVolumeClaim', name: 'old' } })).toEqual([]);
  });
  it('refuses another kind of the core group, a group that is no subdomain, and two fields that disagree', () => {
    expect(claim({ dataSource: { kind: 'ConfigMap', name: 'x' }, dataSourceRef: { ...snapshot, apiGroup: 'Snapshot_Storage' } })).toEqual([
      `spec.dataSource: dataSource kind "ConfigMap": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
      expect.stringMatching(/^spec\.dataSourceRef\.apiGroup: dataSourceRef apiGroup "Snapshot_Storage": /),
      'spec.dataSource: dataSource: must match dataSourceRef',
    ]);
  });
});

describe('a PersistentVolumeClaim', () => {
  const claim = (spec: unknown) =>
    validateBuiltin('PersistentVolumeClaim', { metadata: { name: 'data', namespace: 'media' }, spec }, 35).map((p) => `${p.path.join('.')}: ${p.message}`);
  it('admits access modes and a storage request', () => {
    expect(claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } })).toEqual([]);
  });
  it('refuses a spec left out or null as the empty one Go decodes: no access mode, no storage request', () => {
    for (const spec of [undefined, null, {}])
      expect(claim(spec), JSON.stringify(spec)).toEqual([
        'spec.accessModes: at least 1 access mode is required',
        'spec.resources: resources.requests.storage is required',
      ]);
  });
});
