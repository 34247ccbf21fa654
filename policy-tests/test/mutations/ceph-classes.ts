/** Mutations for closure-ceph-class: the Ceph classes naming a cluster, a pool or a CSI Secret Rook does not make. */
import type { Mutation } from '../support/mutation-runner.ts';
import { lineOf } from '../support/helpers.ts';
import { swap } from './edits.ts';

const CLASSES = 'apps/platform/rook-ceph-cluster/classes.yaml';
const CHECK = 'closure-ceph-class';

export const csiDriverMutations: Mutation[] = [
  {
    check: 'closure-csi-driver',
    why: "the StorageClass names rook.rbd.csi.ceph.com, where Rook's operator runs in rook-ceph and names its driver rook-ceph.rbd.csi.ceph.com: no provisioner takes its claims",
    mutate: swap(CLASSES, 'provisioner: rook-ceph.rbd.csi.ceph.com\n', 'provisioner: rook.rbd.csi.ceph.com\n'),
    at: 'provisioner: rook.rbd.csi.ceph.com',
  },
  {
    check: 'closure-csi-driver',
    why: "the VolumeSnapshotClass names ceph.rbd.csi.ceph.com: no snapshot of it becomes ready, and VolSync's copies fail",
    mutate: swap(CLASSES, 'driver: rook-ceph.rbd.csi.ceph.com\n', 'driver: ceph.rbd.csi.ceph.com\n'),
    at: 'driver: ceph.rbd.csi.ceph.com',
  },
  {
    check: 'closure-csi-driver',
    why: "the StorageClass spells the provisioner's fstype as csi.storage.k8s.io/fs-type: the provisioner reserves the prefix, knows no such key, and fails every claim of the class",
    mutate: swap(CLASSES, '  csi.storage.k8s.io/fstype: ext4\n', '  csi.storage.k8s.io/fs-type: ext4\n'),
    at: 'csi.storage.k8s.io/fs-type: ext4',
  },
  {
    check: 'closure-csi-driver',
    why: 'the VolumeSnapshotClass gives a list Secret under csi.storage.k8s.io/snapshoter-list-secret-name: the snapshotter knows no such key, and fails every snapshot, so VolSync copies nothing',
    mutate: swap(
      CLASSES,
      '  csi.storage.k8s.io/snapshotter-secret-namespace: rook-ceph\n',
      '  csi.storage.k8s.io/snapshotter-secret-namespace: rook-ceph\n  csi.storage.k8s.io/snapshoter-list-secret-name: rook-csi-rbd-provisioner\n',
    ),
    at: 'snapshoter-list-secret-name',
  },
];

export const cephClassMutations: Mutation[] = [
  {
    check: CHECK,
    why: 'the block class given journaling beside layering and exclusive-lock: ceph-csi maps such an image with rbd-nbd alone, and the class keeps the kernel mounter, so it refuses every volume ("feature journaling requires rbd-nbd for mounter")',
    mutate: swap(CLASSES, '  imageFeatures: layering\n', '  imageFeatures: layering,exclusive-lock,journaling\n'),
    at: 'imageFeatures: layering,exclusive-lock,journaling',
  },
  {
    check: CHECK,
    why: 'the block class\'s image features written with a space after the comma: ceph-csi cuts the list at commas alone and knows no " exclusive-lock" ("invalid feature")',
    mutate: swap(CLASSES, '  imageFeatures: layering\n', '  imageFeatures: layering, exclusive-lock\n'),
    at: 'imageFeatures: layering, exclusive-lock',
  },
  {
    check: CHECK,
    why: "the block class's node-stage Secret removed: ceph-csi cannot stage a volume on a node, and every pod that mounts one stays ContainerCreating",
    mutate: swap(CLASSES, '  csi.storage.k8s.io/node-stage-secret-name: rook-csi-rbd-node\n  csi.storage.k8s.io/node-stage-secret-namespace: rook-ceph\n', ''),
    at: (c) => ({ file: CLASSES, line: lineOf(c, CLASSES, 'parameters:') }),
  },
  {
    check: CHECK,
    why: 'the StorageClass names clusterID rook, where the CephCluster runs in rook-ceph: ceph-csi finds no such cluster',
    mutate: swap(CLASSES, 'parameters:\n  clusterID: rook-ceph\n  pool: ceph-blockpool\n', 'parameters:\n  clusterID: rook\n  pool: ceph-blockpool\n'),
    at: 'clusterID: rook',
  },
  {
    check: CHECK,
    why: 'the StorageClass names pool ceph-block-pool, which no CephBlockPool makes',
    mutate: swap(CLASSES, '  pool: ceph-blockpool\n', '  pool: ceph-block-pool\n'),
    at: 'pool: ceph-block-pool',
  },
  {
    check: CHECK,
    why: 'the node-stage Secret misspelt: no node can map an image of the class',
    mutate: swap(CLASSES, 'node-stage-secret-name: rook-csi-rbd-node\n', 'node-stage-secret-name: rook-csi-rbd-nodes\n'),
    at: 'rook-csi-rbd-nodes',
  },
  {
    check: CHECK,
    why: "the snapshot class's Secret in the wrong namespace: VolSync's snapshots fail",
    mutate: swap(
      CLASSES,
      '  csi.storage.k8s.io/snapshotter-secret-namespace: rook-ceph\n',
      '  csi.storage.k8s.io/snapshotter-secret-namespace: volsync-system\n',
    ),
    at: 'snapshotter-secret-name',
  },
  {
    check: CHECK,
    why: "the TV manager's config claim asks the RBD class for ReadWriteMany: ceph-csi makes no filesystem volume many nodes write, the claim stays Pending, and Sonarr never starts",
    mutate: swap('apps/media/sonarr/pvc.yaml', 'accessModes: ["ReadWriteOnce"]', 'accessModes: ["ReadWriteMany"]'),
    at: (c) => ({ file: 'apps/media/sonarr/pvc.yaml', line: lineOf(c, 'apps/media/sonarr/pvc.yaml', 'ReadWriteMany') }),
  },
];
