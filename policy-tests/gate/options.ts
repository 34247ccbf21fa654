/** What a gate run is asked: the options runGate takes, and the version and progress types its stages share. */
import type { SchemaOptions } from '../schema/schema-layer.ts';

/** A Kubernetes version to judge at: x.y.z and its minor (gate/cli.ts reads --kubernetes-version into one). */
export interface KubernetesVersion {
  version: string;
  minor: number;
}

export type Progress = (phase: 'parse' | 'schema' | 'admission' | 'policy', done: number, total: number) => void;

export interface GateOptions extends Partial<Omit<SchemaOptions, 'kubernetesMinor'>> {
  /** Files, folders or `-`; empty means the whole repository. */
  paths?: readonly string[];
  root?: string;
  cwd?: string;
  stdin?: () => string;
  /** Called as work advances: the phase (parse, schema, admission, policy) and counts within it. */
  onProgress?: Progress;
  /** Parse in worker threads; by default only for large trees. */
  parallel?: boolean;
  /** Render Applications with Helm and kustomize before checking (default: on). */
  render?: boolean;
  /** A source that cannot be rendered offline fails the gate instead of being counted. */
  requireRendered?: boolean;
  /** The environment the render tools read (HELM_BIN, KUSTOMIZE_BIN, the cache folder). */
  env?: NodeJS.ProcessEnv;
  /**
   * `--kubernetes-version` (x.y.z, or x.y): the version the repository is judged at in place of the facts' (Helm's
   * --kube-version, the schema layer, Pod Security and built-in validation). A version the gate cannot judge is a UsageError.
   */
  kubernetesVersion?: KubernetesVersion;
}
