/**
 * What Rook (v1.20) refuses of a CephCluster before it orchestrates anything: `initializeCluster`'s disallowed
 * dataDirHostPath (pkg/operator/ceph/cluster/cluster.go, which logs the error and leaves the cluster alone, with no
 * condition), `validateStretchCluster`, and `ValidateNetworkSpec` (pkg/apis/ceph.rook.io/v1/network.go). The monitor
 * count against the nodes is closure-ceph-daemons'.
 */
import { posix } from 'node:path';
import { isSet, list, obj, str, type Obj } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';

/** The host paths a dataDirHostPath may not be (controller.go's disallowedHostDirectories). */
const DISALLOWED_HOST_DIRECTORIES = ['/etc/ceph', '/rook', '/var/log/ceph'];

export interface ClusterRefusal {
  path: Path;
  message: string;
}

const refuse = (path: Path, message: string): ClusterRefusal => ({ path, message });

/** The zones of a stretch cluster (ClusterSpec.IsStretchCluster: any at all). */
const stretchZones = (spec: Obj): Obj[] => list(obj(obj(spec.mon).stretchCluster).zones).map(obj);

/** Whether the CephCluster is a stretch cluster, which asks more of every pool. */
export const isStretchCluster = (spec: Obj): boolean => stretchZones(spec).length > 0;

/** validateStretchCluster: three zones, one of them the arbiter, each named; three or five monitors. */
function stretchRefusal(spec: Obj): ClusterRefusal | undefined {
  const mon = obj(spec.mon);
  const zones = stretchZones(spec);
  if (zones.length === 0) return undefined;
  const at: Path = ['mon', 'stretchCluster', 'zones'];
  if (zones.length !== 3) return refuse(at, `expecting exactly three zones for the stretch cluster, but found ${zones.length}`);
  // Rook reads a count of 0 as its default before it validates: three monitors.
  const count = typeof mon.count === 'number' && mon.count > 0 ? mon.count : 3;
  if (count !== 3 && count !== 5)
    return refuse(['mon', 'count'], `invalid number of mons ${count} for a stretch cluster, expecting 5 (recommended) or 3 (minimal)`);
  const unnamed = zones.findIndex((z) => str(z.name) === '');
  if (unnamed >= 0) return refuse([...at, unnamed], 'missing zone name for the stretch cluster');
  const arbiters = zones.filter((z) => z.arbiter === true).length;
  return arbiters === 1 ? undefined : refuse(at, `expecting to find exactly one arbiter zone, but found ${arbiters}`);
}

/** ValidateNetworkSpec, for what needs no Multus network attachment to judge. */
function networkRefusal(spec: Obj): ClusterRefusal | undefined {
  const network = obj(spec.network);
  const provider = str(network.provider);
  if (network.hostNetwork === true && provider !== '')
    return refuse(
      ['network', 'hostNetwork'],
      `the legacy hostNetwork setting is only valid with the default network provider ("") and not with '${JSON.stringify(provider)}'`,
    );
  if (provider === 'multus' && Object.keys(obj(network.selectors)).length === 0)
    return refuse(['network', 'selectors'], 'at least one network selector must be specified when using the "multus" network provider');
  const ranges = obj(network.addressRanges);
  const anyRange = list(ranges.public).length > 0 || list(ranges.cluster).length > 0;
  if (anyRange && provider !== 'multus' && provider !== 'host' && network.hostNetwork !== true)
    return refuse(['network', 'addressRanges'], 'network ranges can only be specified for "host" and "multus" network providers');
  return undefined;
}

/** The first refusal Rook makes of the CephCluster's spec before it starts, or undefined. */
export function clusterRefusal(spec: Obj): ClusterRefusal | undefined {
  if (isSet(spec.dataDirHostPath)) {
    const clean = posix.normalize(str(spec.dataDirHostPath)).replace(/(.)\/$/, '$1');
    const taken = DISALLOWED_HOST_DIRECTORIES.find((d) => d === clean);
    if (taken)
      return refuse(
        ['dataDirHostPath'],
        `dataDirHostPath (given: ${JSON.stringify(str(spec.dataDirHostPath))}) must not be used, conflicts with ${JSON.stringify(taken)} internal path`,
      );
  }
  return stretchRefusal(spec) ?? networkRefusal(spec);
}
