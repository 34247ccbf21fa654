/**
 * What Rook (v1.20) refuses of a CephBlockPool when it reconciles one: `validatePool` and `ValidatePoolSpec`
 * (pkg/operator/ceph/pool/validate.go) with `ValidateCephBlockPool` (pkg/apis/ceph.rook.io/v1/pool.go). The API server
 * stores the pool; the operator sets its phase to Failure, logs the error, and creates no pool in Ceph, so a
 * StorageClass on it provisions no volume.
 *
 * The failure domains a pool may name are the CRUSH types of the cluster's map, which Rook never changes from Ceph's
 * defaults; a CRUSH root other than `default` is a bucket the gate does not know, and a hybrid pool's device classes are
 * the OSDs' own: both said not judged.
 */
import { isSet, obj, str, type Obj } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';

/** Ceph's default CRUSH types (`ceph osd crush dump` of a cluster Rook made): the failure domains a pool may name. */
export const CRUSH_TYPES = ['osd', 'host', 'chassis', 'rack', 'row', 'pdu', 'pod', 'room', 'datacenter', 'zone', 'region', 'root'] as const;

/** Where a pool lives, as validatePool reads it beside the spec. */
export interface PoolPlace {
  /** The CephBlockPool's name and namespace (the chart gives both). */
  name: string;
  namespace: string;
  /** Whether the CephCluster is a stretch cluster (mon.stretchCluster with zones). */
  stretch: boolean;
}

export type PoolVerdict = { refused: { path: Path; message: string } } | { notJudged: { path: Path; message: string } } | undefined;

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const refused = (path: Path, message: string): PoolVerdict => ({ refused: { path, message } });

/** ValidateCephBlockPool and the pool spec's own rules (pkg/apis): replicated or erasure coded, one of them, with their minimums. */
function specRefusal(spec: Obj, place: PoolPlace): PoolVerdict {
  const rep = obj(spec.replicated);
  const ec = obj(spec.erasureCoded);
  const [coding, data] = [num(ec.codingChunks), num(ec.dataChunks)];
  const name = str(spec.name) || place.name;
  if (['.rgw.root', '.mgr', '.nfs'].includes(name) && (coding > 0 || data > 0))
    return refused(['erasureCoded'], `invalid CephBlockPool spec: ceph built-in pool ${JSON.stringify(place.name)} cannot be erasure coded`);
  if (coding <= 0 && data <= 0 && num(rep.targetSizeRatio) <= 0 && num(rep.size) <= 0)
    return refused([], 'invalid pool spec: either of erasurecoded or replicated fields should be set');
  if ((coding > 0 || data > 0 || str(ec.algorithm) !== '') && (num(rep.size) > 0 || num(rep.targetSizeRatio) > 0))
    return refused(['erasureCoded'], 'invalid pool spec: both erasurecoded and replicated fields cannot be set at the same time');
  if (num(rep.size) === 0 && num(rep.targetSizeRatio) === 0) {
    if (data < 2 && data !== 0) return refused(['erasureCoded', 'dataChunks'], 'invalid pool spec: erasurecoded.datachunks needs minimum value of 2');
    if (coding < 1 && coding !== 0) return refused(['erasureCoded', 'codingChunks'], 'invalid pool spec: erasurecoded.codingchunks needs minimum value of 1');
  }
  return undefined;
}

/** The CRUSH names a pool gives: failure domains among the map's types, a root the gate knows. */
function crushRefusal(spec: Obj): PoolVerdict {
  const rep = obj(spec.replicated);
  const [domain, sub, root] = [str(spec.failureDomain), str(rep.subFailureDomain), str(spec.crushRoot)];
  const known = (t: string) => (CRUSH_TYPES as readonly string[]).includes(t);
  if (domain !== '' && !known(domain)) return refused(['failureDomain'], `unrecognized failure domain ${domain}`);
  if (root !== '' && root !== 'default')
    return { notJudged: { path: ['crushRoot'], message: `whether the CRUSH map has a bucket ${root} (a root the OSDs' locations make) is not known here` } };
  if (sub !== '' && !known(sub)) return refused(['replicated', 'subFailureDomain'], `unrecognized crush sub domain ${sub}`);
  return undefined;
}

/** The replica rules, compression and mirroring of ValidatePoolSpec. */
function settingsRefusal(spec: Obj): PoolVerdict {
  const rep = obj(spec.replicated);
  const [size, perDomain] = [num(rep.size), num(rep.replicasPerFailureDomain)];
  if (size > 0) {
    if (size === 1 && rep.requireSafeReplicaSize === true)
      return refused(['replicated', 'requireSafeReplicaSize'], `error pool size is 1 and requireSafeReplicaSize is true, must be false`);
    if (size <= perDomain)
      return refused(['replicated', 'size'], `error pool size is ${size} and replicasPerFailureDomain is ${perDomain}, size must be greater`);
    if (perDomain !== 0 && size % perDomain !== 0)
      return refused(
        ['replicated', 'replicasPerFailureDomain'],
        `error replicasPerFailureDomain is ${perDomain} must be a factor of the replica count ${size}`,
      );
  }
  const compression = obj(spec.parameters).compression_mode;
  if (typeof compression === 'string' && compression !== '' && !['none', 'passive', 'aggressive', 'force'].includes(compression))
    return refused(['parameters', 'compression_mode'], `failed to validate pool spec unknown compression mode ${JSON.stringify(compression)}`);
  const mirroring = obj(spec.mirroring);
  if (mirroring.enabled !== true) return undefined;
  if (!['image', 'pool', 'init-only'].includes(str(mirroring.mode)))
    return refused(['mirroring', 'mode'], `unrecognized mirroring mode ${JSON.stringify(str(mirroring.mode))}. only 'image and 'pool' are supported`);
  const schedules = Array.isArray(mirroring.snapshotSchedules) ? mirroring.snapshotSchedules.map(obj) : [];
  const i = schedules.findIndex((s) => str(s.interval) === '' && str(s.startTime) !== '');
  return i < 0 ? undefined : refused(['mirroring', 'snapshotSchedules', i], 'schedule interval cannot be empty if start time is specified');
}

/** validatePool, in Rook's order: the first refusal, or what the gate cannot judge, or undefined where Rook creates the pool. */
export function poolVerdict(spec: Obj, place: PoolPlace): PoolVerdict {
  if (place.name === '') return refused([], 'missing name');
  if (place.namespace === '') return refused([], 'missing namespace');
  const rep = obj(spec.replicated);
  const isReplicated = num(rep.size) > 0;
  const isErasureCoded = num(obj(spec.erasureCoded).codingChunks) > 0 || num(obj(spec.erasureCoded).dataChunks) > 0;
  const first = specRefusal(spec, place);
  if (first) return first;
  if (isSet(rep.hybridStorage))
    return { notJudged: { path: ['replicated', 'hybridStorage'], message: 'a hybrid pool needs OSDs of both device classes, which the gate does not know' } };
  if (isReplicated && isErasureCoded) return refused(['erasureCoded'], 'both replication and erasure code settings cannot be specified');
  if (str(spec.failureDomain) !== '' && str(spec.failureDomain) === str(rep.subFailureDomain))
    return refused(['replicated', 'subFailureDomain'], 'failure and subfailure domain cannot be identical');
  if (place.stretch && isReplicated && num(rep.size) !== 4) return refused(['replicated', 'size'], 'pools in a stretch cluster must have replication size 4');
  if (place.stretch && isErasureCoded) return refused(['erasureCoded'], 'erasure coded pools are not supported in stretch clusters');
  return crushRefusal(spec) ?? settingsRefusal(spec);
}
