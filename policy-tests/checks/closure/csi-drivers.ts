/**
 * closure-csi-driver: every StorageClass's provisioner and VolumeSnapshotClass's driver is one the cluster runs. No
 * controller takes a claim of a class whose provisioner nobody runs: it stays Pending ("waiting for a volume to be
 * created by external provisioner"), and a snapshot of a class whose driver nobody runs never becomes ready, so VolSync's
 * copies fail, with nothing the API server refuses. Rook names its CSI drivers after the namespace its operator runs in
 * (v1.20's csi/controller.go: `<operator namespace>.rbd.csi.ceph.com`, `.cephfs.` and `.nfs.`), so a Ceph driver name
 * is judged on that rule alone; any other is one of a CSIDriver the repository declares or providedOutsideGit, or
 * `kubernetes.io/no-provisioner` for local volumes, and not judged while a source the gate did not render might hold it.
 * Where Ceph runs without Rook's operator, closure-crd names that one mistake, and the Ceph classes' drivers follow.
 * And the CSI sidecars reserve the parameter prefix `csi.storage.k8s.io/` for the keys they read themselves
 * (external-provisioner v5's `removePrefixedParameters`, external-snapshotter v8's `RemovePrefixedParameters`): a key
 * under it they do not know fails every claim of the class ("found unknown parameter key ... with reserved
 * namespace csi.storage.k8s.io/"), or every snapshot.
 */
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';
import { str } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { applicationsByName } from '../../model/argocd/argocd.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { provided } from '../../model/cluster/providers.ts';
import { unrenderedSources } from './closing.ts';

const ROOK_DRIVER = /\.(rbd|cephfs|nfs)\.csi\.ceph\.com$/;
/** The CSI sidecars' reserved prefix of a class's parameters. */
const RESERVED = 'csi.storage.k8s.io/';

/** The reserved keys each sidecar reads: a StorageClass's (the provisioner's), a VolumeSnapshotClass's (the snapshotter's). */
const RESERVED_KEYS: Record<'StorageClass' | 'VolumeSnapshotClass', ReadonlySet<string>> = {
  StorageClass: new Set([
    'fstype',
    ...['provisioner', 'controller-publish', 'node-stage', 'node-publish', 'controller-expand', 'node-expand', ''].flatMap((use) =>
      ['name', 'namespace'].map((part) => `${use ? `${use}-` : ''}secret-${part}`),
    ),
  ]),
  VolumeSnapshotClass: new Set(['snapshotter', 'snapshotter-list', 'group-snapshotter'].flatMap((use) => [`${use}-secret-name`, `${use}-secret-namespace`])),
};

/** Whether the CSI sidecar of a class of `kind` reads this reserved parameter (a key the others judge by). */
export const reservedKeyKnown = (kind: string, key: string): boolean =>
  (kind === 'StorageClass' || kind === 'VolumeSnapshotClass') && key.startsWith(RESERVED) && RESERVED_KEYS[kind].has(key.slice(RESERVED.length));

/** Each reserved parameter of a CSI class its sidecar does not know, with the key meant where one is near. */
function unknownReserved(kind: 'StorageClass' | 'VolumeSnapshotClass', parameters: unknown): { key: string; near: string }[] {
  if (parameters === null || typeof parameters !== 'object') return [];
  return Object.keys(parameters)
    .filter((key) => key.startsWith(RESERVED) && !RESERVED_KEYS[kind].has(key.slice(RESERVED.length)))
    .map((key) => {
      const near = nearestName(key.slice(RESERVED.length), RESERVED_KEYS[kind]);
      return { key, near: suggesting(near === undefined ? undefined : `${RESERVED}${near}`) };
    });
}

/** The in-tree name of "no provisioner": local PersistentVolumes a class only groups. */
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

export const csiDriverCheck: PolicyCheck = {
  id: 'closure-csi-driver',
  description:
    "Every StorageClass's provisioner and VolumeSnapshotClass's driver is one the cluster runs: Rook's CSI drivers, named after its operator's namespace (<namespace>.rbd.csi.ceph.com, .cephfs. and .nfs.), a CSIDriver the repository declares or providedOutsideGit, or kubernetes.io/no-provisioner for a class of local volumes; and every parameter under csi.storage.k8s.io/ is one the CSI sidecar reads (the provisioner's fstype and secrets, the snapshotter's secrets), which refuses any other; otherwise every claim of the class stays Pending and every snapshot of it stays unready (invariants P1).",
  invariants: ['P1'],
  remediation:
    "name the driver Rook runs (the rook-ceph app's namespace, then .rbd.csi.ceph.com), or declare the CSIDriver the class needs; spell a csi.storage.k8s.io/ parameter as the CSI sidecars document it (fstype, provisioner-secret-name, snapshotter-secret-name, ...), or drop the prefix for a driver's own parameter",
  reads: {
    kinds: ['StorageClass', 'VolumeSnapshotClass', 'CSIDriver', 'CephCluster', 'CephBlockPool', 'Application'],
    charts: ['rook-ceph', 'rook-ceph-cluster'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const operators = chartValues(ctx.repo, 'rook-ceph').flatMap((v) => applicationsByName(ctx.repo).get(v.appName)?.destinationNamespace ?? []);
    const rook = new Set(operators.flatMap((ns) => ['rbd', 'cephfs', 'nfs'].map((d) => `${ns}.${d}.csi.ceph.com`)));
    const drivers = provided(ctx.repo, 'CSIDriver');
    const unrendered = unrenderedSources(ctx);
    // Ceph's resources without Rook's operator: closure-crd names that one mistake (their kinds have no CRD), and
    // every Ceph class's driver follows from it.
    const operatorMissing =
      operators.length === 0 && (chartValues(ctx.repo, 'rook-ceph-cluster').length > 0 || ctx.resources.some((r) => r.apiVersion.startsWith('ceph.rook.io/')));
    for (const r of ctx.resources.filter((x) => x.kind === 'StorageClass' || x.kind === 'VolumeSnapshotClass')) {
      const field = r.kind === 'StorageClass' ? 'provisioner' : 'driver';
      const name = str(r.object[field]);
      // An in-tree provisioner (kubernetes.io/...) runs no CSI sidecar, and reserves nothing.
      if (!name.startsWith('kubernetes.io/'))
        for (const { key, near } of unknownReserved(r.kind as 'StorageClass' | 'VolumeSnapshotClass', r.object.parameters))
          ctx.fail(
            { resource: r, path: ['parameters', key] },
            `${r.kind} ${r.name}'s parameter ${JSON.stringify(key)} is under ${RESERVED}, which the CSI ${r.kind === 'StorageClass' ? 'provisioner' : 'snapshotter'} keeps for the keys it reads, and is none of them${near}: it fails ${r.kind === 'StorageClass' ? 'every claim of the class' : 'every snapshot of the class'} ("found unknown parameter key ... with reserved namespace ${RESERVED}")`,
          );
      if (!name || rook.has(name) || drivers.has(name) || (r.kind === 'StorageClass' && name === NO_PROVISIONER)) continue;
      const effect =
        r.kind === 'StorageClass' ? 'every claim of the class stays Pending' : 'every snapshot of the class stays unready, and VolSync copies nothing';
      if (ROOK_DRIVER.test(name) && operatorMissing) continue;
      if (ROOK_DRIVER.test(name))
        ctx.fail(
          { resource: r, path: [field] },
          `${r.kind} ${r.name} names ${name}, and Rook names its drivers after its operator's namespace (${[...rook].filter((d) => d.endsWith(name.replace(/^[^.]*\./, '.'))).join(', ') || 'no rook-ceph app here'}): ${effect}`,
        );
      else if (unrendered.count > 0)
        ctx.notJudged(
          { resource: r, path: [field] },
          `${r.kind} ${r.name}'s ${field} ${name} is no CSIDriver of the repository; ${unrendered.text}, which may hold it`,
        );
      else ctx.fail({ resource: r, path: [field] }, `${r.kind} ${r.name} names ${field} ${name}, which no CSIDriver of the cluster is: ${effect}`);
    }
  },
};
