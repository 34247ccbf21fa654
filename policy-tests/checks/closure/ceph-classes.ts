/**
 * closure-ceph-class: a StorageClass or VolumeSnapshotClass of Rook's Ceph CSI drivers names what Rook runs. ceph-csi
 * looks the class's `clusterID` up among the clusters Rook configured it with (each CephCluster by its namespace),
 * an RBD class's `pool` (and `dataPool`) in that cluster, and reads each `csi.storage.k8s.io/*-secret-name` Secret
 * from its `-secret-namespace`: Rook (v1.20, csi/secrets.go) writes rook-csi-rbd-provisioner and rook-csi-rbd-node,
 * rook-csi-cephfs-provisioner and rook-csi-cephfs-node, into the CephCluster's namespace. A name that misses leaves
 * every claim of the class Pending ("cluster ID not found", "pool not found", a Secret not found), and every
 * snapshot of it failing, with nothing the API server refuses. So does a claim of an RBD class that only a writer on
 * many nodes may mount as a filesystem: an RBD image holds one filesystem one node mounts, and ceph-csi's
 * parseVolCreateRequest refuses such a volume ("multi node access modes are only supported on rbd `block` type
 * volumes") unless one of its modes is a single node's (ReadWriteOnce, ReadWriteOncePod) or read-only.
 */
import { reservedKeyKnown } from './csi-drivers.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { dig, isMap, list, str } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { namespacedProviders } from '../../model/cluster/providers.ts';
import { cephOf } from './ceph.ts';
import { defaultStorageClassName } from '../../model/cluster/providers.ts';
import { claimSpecs } from '../../model/storage/claims.ts';

const CSI_DRIVER = /\.(rbd|cephfs)\.csi\.ceph\.com$/;
/** The Secrets Rook writes for each driver (csi/secrets.go). */
const ROOK_CSI_SECRETS: Record<string, string[]> = {
  rbd: ['rook-csi-rbd-provisioner', 'rook-csi-rbd-node'],
  cephfs: ['rook-csi-cephfs-provisioner', 'rook-csi-cephfs-node'],
};
const SECRET_NAME = /^csi\.storage\.k8s\.io\/(.+)-secret-name$/;

/** The Secrets ceph-csi cannot work without, by what it does with each, and what fails without it. */
const NEEDED_SECRETS = {
  provisioner: 'ceph-csi refuses to create a volume ("provided secret is empty"), and every claim of it stays Pending',
  'node-stage': 'ceph-csi refuses to stage a volume on a node, and every pod that mounts one stays ContainerCreating',
  'controller-expand': 'ceph-csi refuses to grow a volume, and every claim resized stays at its size',
  snapshotter: 'ceph-csi refuses to snapshot a volume, and every snapshot of it fails',
} as const;

/**
 * The CSI Secrets a class must give: a StorageClass the provisioner's and node stage's (and the expansion's where it
 * lets volumes grow), a VolumeSnapshotClass the snapshotter's. The CSI sidecars hand ceph-csi only what the class
 * names, and take a name only with its namespace (external-provisioner's getSecretReference: both or neither).
 */
function neededSecrets(ctx: CheckContext, r: Resource, params: Record<string, unknown>): void {
  const needed: (keyof typeof NEEDED_SECRETS)[] =
    r.kind === 'VolumeSnapshotClass'
      ? ['snapshotter']
      : ['provisioner', 'node-stage', ...(dig(r.object, ['allowVolumeExpansion']) === true ? (['controller-expand'] as const) : [])];
  for (const use of Object.keys(NEEDED_SECRETS) as (keyof typeof NEEDED_SECRETS)[]) {
    const [name, namespace] = [`csi.storage.k8s.io/${use}-secret-name`, `csi.storage.k8s.io/${use}-secret-namespace`];
    if (params[name] === undefined && params[namespace] !== undefined)
      ctx.fail(
        { resource: r, path: ['parameters', namespace] },
        `${r.kind} ${r.name} gives the ${use} Secret a namespace and no name: the CSI sidecar takes both or neither, and refuses the class, so ${NEEDED_SECRETS[use].replace(/^ceph-csi refuses to /, 'nothing is done: it cannot ')}`,
      );
    else if (params[name] === undefined && needed.includes(use))
      ctx.fail(
        { resource: r, path: ['parameters'] },
        `${r.kind} ${r.name} gives ceph-csi no Secret for ${use} (${name} and its namespace): ${NEEDED_SECRETS[use]}`,
      );
  }
}

/**
 * The RBD image features ceph-csi makes an image with, each with the features it needs beside it and whether only the
 * rbd-nbd mounter maps it (internal/rbd/rbd_util.go's supportedFeatures, librbd's names).
 */
const IMAGE_FEATURES: Readonly<Record<string, { needs?: string; nbd?: true }>> = {
  layering: {},
  'exclusive-lock': {},
  'object-map': { needs: 'exclusive-lock' },
  'fast-diff': { needs: 'object-map' },
  journaling: { needs: 'exclusive-lock', nbd: true },
  'deep-flatten': {},
};

/**
 * Why ceph-csi refuses to make a volume of an RBD StorageClass for its imageFeatures, as parseVolCreateRequest reads
 * them: an empty one ("empty imageFeatures parameter"), then each of the comma-cut list, as written (no space trimmed),
 * one it knows (validateImageFeatures: "invalid feature"), with the features it needs, and journaling with the rbd-nbd
 * mounter alone (the class's `mounter`, rbd where unset).
 */
function imageFeaturesRefusal(params: Record<string, unknown>): { said: string; hint?: string } | undefined {
  if (params.imageFeatures === undefined) return undefined;
  const written = str(params.imageFeatures);
  if (written === '') return { said: 'empty imageFeatures parameter' };
  const features = written.split(',');
  for (const f of features) {
    const known = IMAGE_FEATURES[f];
    if (!known) return { said: `invalid feature ${f}`, hint: didYouMean(f.trim(), Object.keys(IMAGE_FEATURES)) };
    if (known.needs && !features.includes(known.needs)) return { said: `feature ${f} requires ${known.needs} to be set` };
    if (known.nbd && (params.mounter === undefined ? 'rbd' : str(params.mounter)) !== 'rbd-nbd') return { said: `feature ${f} requires rbd-nbd for mounter` };
  }
  return undefined;
}

function judgeClass(ctx: CheckContext, r: Resource, driver: 'rbd' | 'cephfs', ceph: ReturnType<typeof cephOf>): void {
  const params = dig(r.object, ['parameters']);
  if (!isMap(params)) return;
  const refused = driver === 'rbd' && r.kind === 'StorageClass' ? imageFeaturesRefusal(params) : undefined;
  if (refused)
    ctx.fail(
      { resource: r, path: ['parameters', 'imageFeatures'] },
      `${r.kind} ${r.name}'s imageFeatures ${JSON.stringify(str(params.imageFeatures))}: ceph-csi refuses to make a volume of it ("${refused.said}")${refused.hint ?? ''}, and every claim of it stays Pending`,
    );
  const clusterID = str(params.clusterID);
  const clusters = new Set(ceph.clusters.map((c) => c.object.namespace));
  if (!clusters.has(clusterID)) {
    ctx.fail(
      { resource: r, path: ['parameters', 'clusterID'] },
      `${r.kind} ${r.name} names clusterID ${JSON.stringify(clusterID)}, and Rook configures ceph-csi with ${[...clusters].join(', ') || 'no cluster'} (each CephCluster by its namespace): every claim of it stays Pending ("cluster ID not found")`,
    );
    return;
  }
  if (driver === 'rbd' && r.kind === 'StorageClass') {
    const pools = new Set(ceph.pools.filter((p) => p.object.namespace === clusterID).map((p) => p.object.name));
    // Offline, values that write no cephBlockPools leave the chart's own, which the gate does not know.
    if (pools.size === 0 && !ceph.clusters.some((c) => c.rendered)) {
      ctx.notJudged(
        { resource: r, path: ['parameters', 'pool'] },
        `${r.kind} ${r.name}'s pool: the values of rook-ceph-cluster write no cephBlockPools, and the chart's own are known once it is rendered (npm run charts:pull)`,
      );
    } else
      for (const key of ['pool', 'dataPool'].filter((k) => k === 'pool' || params[k] !== undefined))
        if (!pools.has(str(params[key])))
          ctx.fail(
            { resource: r, path: ['parameters', key] },
            `${r.kind} ${r.name} names ${key} ${JSON.stringify(str(params[key]))}, which no CephBlockPool of ${clusterID} makes (${[...pools].join(', ') || 'none'}): every claim of it stays Pending`,
          );
  }
  neededSecrets(ctx, r, params);
  // Rook's own in the cluster's namespace, and every Secret the repository provides (declared, written by an
  // ExternalSecret or a Certificate, or providedOutsideGit), as closure-secret reads them.
  const provided = namespacedProviders(ctx.repo, 'Secret');
  const exists = (namespace: string, name: string) =>
    (namespace === clusterID && ROOK_CSI_SECRETS[driver]!.includes(name)) || provided.has(`${namespace}/${name}`);
  for (const [key, value] of Object.entries(params)) {
    const use = SECRET_NAME.exec(key)?.[1];
    // A key the CSI sidecar does not read fails the class there: closure-csi-driver's finding, not a Secret to look for.
    if (!use || !reservedKeyKnown(r.kind, key)) continue;
    const namespace = str(params[`csi.storage.k8s.io/${use}-secret-namespace`]);
    if (!exists(namespace, str(value)))
      ctx.fail(
        { resource: r, path: ['parameters', key] },
        `${r.kind} ${r.name} gives ceph-csi the Secret ${namespace || '(no namespace)'}/${str(value)} for ${use}, which neither Rook (${ROOK_CSI_SECRETS[driver]!.join(', ')} in ${clusterID}) nor the repository writes: ${use === 'snapshotter' ? 'every snapshot of it fails' : 'every claim of it fails there'}`,
      );
  }
}

/** The access modes ceph-csi's RBD driver takes for a filesystem volume: one node's, or read-only (IsFileRWO, IsReaderOnly). */
const RBD_FILE_MODES = new Set(['ReadWriteOnce', 'ReadWriteOncePod', 'ReadOnlyMany']);

/** Each claim, and each claim template of a StatefulSet, of an RBD class that asks a filesystem only many nodes may write. */
function judgeClaims(ctx: CheckContext, rbdClasses: ReadonlySet<string>): void {
  const defaultClass = defaultStorageClassName(ctx.resources);
  for (const { resource: r, at, spec } of claimSpecs(ctx.resources)) {
    const asked = dig(spec, ['storageClassName']);
    const className = typeof asked === 'string' ? asked : defaultClass;
    const modes = list(dig(spec, ['accessModes']));
    // A claim that names its volume binds that one: no provisioner is asked for it (closure-volume holds the pair).
    if (!className || !rbdClasses.has(className) || dig(spec, ['volumeMode']) === 'Block' || modes.length === 0 || dig(spec, ['volumeName'])) continue;
    if (modes.some((m) => typeof m === 'string' && RBD_FILE_MODES.has(m))) continue;
    ctx.fail(
      { resource: r, path: [...at, 'accessModes'] },
      `${r.kind} ${r.name} asks StorageClass ${className} (Ceph RBD) for a filesystem volume in ${modes.map(String).join(', ')} only: an RBD image holds a filesystem one node mounts, and ceph-csi refuses to make it ("multi node access modes are only supported on rbd \`block\` type volumes"), so the claim stays Pending`,
    );
  }
}

export const cephClassCheck: PolicyCheck = {
  id: 'closure-ceph-class',
  description:
    "Every StorageClass and VolumeSnapshotClass of Rook's Ceph CSI drivers names what Rook runs: a clusterID that is a CephCluster's namespace, an RBD pool (and dataPool) a CephBlockPool of it makes, and CSI Secrets Rook writes in that namespace (rook-csi-rbd-provisioner, rook-csi-rbd-node, and CephFS's) or the repository does, each name with its namespace, and those ceph-csi cannot work without (a StorageClass's provisioner and node-stage Secrets, and controller-expand where volumes may grow; a VolumeSnapshotClass's snapshotter); an RBD StorageClass's imageFeatures ones ceph-csi makes an image with (not empty; each a feature it knows, with the feature it needs, journaling with the rbd-nbd mounter alone); and every claim of an RBD class (a StatefulSet's claim templates too) that asks a filesystem volume asks a single node's or a read-only access mode, since ceph-csi makes no filesystem volume only many nodes write; otherwise every claim of the class stays Pending and every snapshot fails (invariants P1).",
  invariants: ['P1'],
  remediation:
    "name the CephCluster's namespace as clusterID, a pool of its cephBlockPools, and the Secrets Rook writes (apps/platform/rook-ceph-cluster/classes.yaml); give an RBD claim ReadWriteOnce (or volumeMode: Block), or share the data over NFS",
  reads: {
    kinds: ['StorageClass', 'VolumeSnapshotClass', 'CephCluster', 'CephBlockPool', 'Secret', 'Application', 'PersistentVolumeClaim', 'StatefulSet'],
    charts: ['rook-ceph-cluster'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const classes = ctx.resources.flatMap((r) => {
      const driver = CSI_DRIVER.exec(
        str(r.kind === 'StorageClass' ? dig(r.object, ['provisioner']) : r.kind === 'VolumeSnapshotClass' ? dig(r.object, ['driver']) : ''),
      )?.[1];
      return driver ? [{ r, driver: driver as 'rbd' | 'cephfs' }] : [];
    });
    if (classes.length === 0) return;
    const ceph = cephOf(ctx);
    for (const { r, driver } of classes) judgeClass(ctx, r, driver, ceph);
    judgeClaims(ctx, new Set(classes.filter((c) => c.driver === 'rbd' && c.r.kind === 'StorageClass').map((c) => c.r.name)));
  },
};
