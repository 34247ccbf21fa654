/**
 * The cluster facts the rest of the repository relies on, pinned once in
 * clusters/home/cluster-facts.yaml (a ConfigMap, so Argo CD can apply it and
 * in-cluster jobs can read it).
 */
import type { Resource } from './manifest.ts';

export const CLUSTER_FACTS_FILE = 'clusters/home/cluster-facts.yaml';
export const CLUSTER_FACTS_NAME = 'cluster-facts';

export interface ClusterFacts {
  kubernetesVersion: string;
  kubernetesMinor: number;
  talosVersion: string;
  nodeCount: number;
  controlPlaneCount: number;
  repoURL: string;
  /** Branch every repo source tracks. */
  revision: string;
}

export interface FactsProblem {
  key: string;
  message: string;
}

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)$/;

export function findFactsResource(resources: readonly Resource[]): Resource | undefined {
  return resources.find((r) => r.file === CLUSTER_FACTS_FILE && r.kind === 'ConfigMap' && r.name === CLUSTER_FACTS_NAME);
}

/** Reads the facts ConfigMap, reporting every key that is missing or malformed. */
/** Facts are returned even when some keys are bad, so one typo does not cascade into every check. */
export function readClusterFacts(resource: Resource): { facts: ClusterFacts; problems: FactsProblem[] } {
  const data = (resource.object.data ?? {}) as Record<string, unknown>;
  const problems: FactsProblem[] = [];
  const text = (key: string): string => {
    const v = data[key];
    if (typeof v !== 'string' || v === '') problems.push({ key, message: `cluster fact "${key}" is missing` });
    return typeof v === 'string' ? v : '';
  };
  const count = (key: string): number => {
    const raw = text(key);
    const n = Number(raw);
    if (raw !== '' && !(Number.isInteger(n) && n > 0)) problems.push({ key, message: `cluster fact "${key}" must be a positive integer, got "${raw}"` });
    return n;
  };
  const kubernetesVersion = text('kubernetesVersion');
  const talosVersion = text('talosVersion');
  const version = SEMVER.exec(kubernetesVersion);
  if (kubernetesVersion && !version) problems.push({ key: 'kubernetesVersion', message: `kubernetesVersion "${kubernetesVersion}" is not an exact x.y.z version` });
  if (talosVersion && !SEMVER.test(talosVersion)) problems.push({ key: 'talosVersion', message: `talosVersion "${talosVersion}" is not an exact version` });
  const facts: ClusterFacts = {
    kubernetesVersion,
    kubernetesMinor: version ? Number(version[2]) : NaN,
    talosVersion,
    nodeCount: count('nodeCount'),
    controlPlaneCount: count('controlPlaneCount'),
    repoURL: text('repoURL'),
    revision: text('revision'),
  };
  return { facts, problems };
}
