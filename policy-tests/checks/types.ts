import type { Resource } from '../model/manifest.ts';
import type { Path } from '../model/positions.ts';
import type { Repo } from '../model/repo.ts';

export interface CheckContext {
  repo: Repo;
  /** Resources of the kinds the check declares (all resources for `*`). */
  resources: readonly Resource[];
  fail(resource: Resource, path: Path, message: string, target?: 'key' | 'value'): void;
  /** A finding about a file or folder rather than one node (reported at line 1). */
  failAtFile(file: string, message: string): void;
  /** A finding at an exact place that is not a node of a resource (YAML embedded in a value, a values file). */
  failAt(file: string, line: number, col: number, message: string): void;
}

/** A policy check, modeled on kube-linter's builtin checks: metadata plus a pure function. */
export interface PolicyCheck {
  id: string;
  /** One line, naming the spec section it enforces. */
  description: string;
  /** Invariant ids stated in docs/invariants.md, or the design rule it enforces. */
  invariants: readonly string[];
  remediation: string;
  /** Kinds it reads (`*` for every resource). */
  kinds: readonly string[];
  /** Whether a workload may opt out with a documented annotation next to it. */
  exemptible: boolean;
  run(ctx: CheckContext): void;
}
