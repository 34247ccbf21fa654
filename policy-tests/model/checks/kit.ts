/**
 * The check kit: what a policy check is, and the one way it reports. A check
 * calls `ctx.fail(place, message)`; the place is a node of a resource, a spot
 * in a file, or a key of a parsed data file (values, settings, facts).
 */
import { chartValues, type ChartValues } from '../helm/chart-values.ts';
import type { Resource, ScopeLookup } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import type { DataFile, Repo } from '../repository/repo.ts';
import type { SourceRender } from '../argocd/rendered.ts';

export type FailurePlace =
  /** A node of a resource: its key or its value. */
  | { resource: Resource; path: Path; target?: 'key' | 'value' }
  /** A spot in a file; line 1 when the finding is about the whole file or folder. */
  | { file: string; line?: number; col?: number }
  /** The key a path names in a parsed data file. */
  | { data: DataFile; path: Path };

export interface CheckContext {
  repo: Repo;
  /** Resources of the kinds the check declares (all resources for `*`), plain and rendered. */
  resources: readonly Resource[];
  /** What the render tier made of each Application source (for checks that declare `renders`). */
  renders: readonly SourceRender[];
  /**
   * A failure at a place. `fix` says what mends this one, where a check fails for several causes: without it, the
   * check's remediation, which names every cause's mend, is printed.
   */
  fail(place: FailurePlace, message: string, fix?: string): void;
  /** What the consumer takes with a caveat the reader must see (the API server's warnings; a sync Argo CD holds back for a time): reported apart, never a failure. */
  warn(place: FailurePlace, message: string, fix?: string): void;
  /** What the check cannot judge here, and why: counted in the summary as not judged, never a failure. */
  notJudged(place: FailurePlace, why: string, fix?: string): void;
}

/**
 * What a check reads: resources of some kinds, data files (Helm values,
 * settings, facts) by Argo CD-style glob, and the values of charts (found
 * through the Applications that deploy them). The repository's layout and
 * the cluster facts are visible to every check.
 */
export interface Reads {
  /** Resource kinds; `*` for every resource, with `everyKind` saying why. */
  kinds?: readonly string[];
  /** Why the check reads every resource (`kinds: ['*']`): printed in the check table; a `*` without it fails the layout test. */
  everyKind?: string;
  /** Data files, as globs (`*` crosses `/`). */
  files?: readonly string[];
  /** Charts whose values files it reads. */
  charts?: readonly string[];
  /** The render tier's record of every source: status, values files, chart interface, determinism. */
  renders?: boolean;
}

/** A policy check, modeled on kube-linter's builtin checks: metadata plus a pure function. */
export interface PolicyCheck {
  id: string;
  /** One line, naming the invariants (docs/invariants.md) it enforces. */
  description: string;
  /** Invariant ids stated in docs/invariants.md, or the design rule it enforces. */
  invariants: readonly string[];
  remediation: string;
  /** What it reads; the runner shows it nothing else. */
  reads: Reads;
  /** Whether a workload may opt out with a documented annotation next to it. */
  exemptible: boolean;
  run(ctx: CheckContext): void;
}

export type ValuesFail = (path: Path, message: string, fix?: string) => void;

/**
 * Runs `body` on each values file of `chart`, with a `fail` that reports at a
 * path inside that file; no Application deploying the chart is itself a
 * finding, reported at `whereMissing`.
 */
export function eachChartValues(ctx: CheckContext, chart: string, whereMissing: string, body: (v: ChartValues, fail: ValuesFail) => void): void {
  const found = chartValues(ctx.repo, chart);
  if (found.length === 0)
    ctx.fail(
      { file: whereMissing },
      `no Application deploys the ${chart} chart with values from this repo`,
      `deploy the ${chart} chart from an Application whose values this repository holds`,
    );
  for (const v of found) body(v, (path, message, fix) => ctx.fail({ data: v.source, path }, message, fix));
}

/** The checks whose reads say `*` without saying why: each must narrow its kinds or give its reason. */
export function unreasonedReads(checks: readonly PolicyCheck[]): string[] {
  return checks
    .filter((c) => c.reads.kinds?.includes('*') && !c.reads.everyKind?.trim())
    .map((c) => `${c.id} reads every kind and does not say why (reads.everyKind)`);
}

/**
 * What every check may know beyond the repository, the same for all and passed in one parameter: the schema
 * layer's knowledge of the cluster's APIs.
 */
export interface CheckEnvironment {
  /** Whether a kind is cluster-scoped (built-in kinds and the CRDs the repository renders). */
  isClusterScoped: ScopeLookup;
  /** The API groups the cluster serves built in (`''` for the core group). */
  builtinGroups: ReadonlySet<string>;
  /** Each kind the cluster serves built in, as `group/Kind` (`/ConfigMap` for the core group's): whether it is cluster-scoped. */
  builtinKinds: ReadonlyMap<string, boolean>;
}

/** An area of checks, declared once where its checks are written (its folder's index.ts, or its one module); the registry lists the areas. */
export interface Area {
  name: string;
  checks(env: CheckEnvironment): PolicyCheck[];
  /**
   * The invariants this area states, each once, in the project's own words (any area's checks may cite them):
   * docs/invariants.md and the readme test read them from the areas (checks/registry.ts INVARIANTS).
   */
  invariants?: Readonly<Record<string, string>>;
}

/** An area whose checks need nothing of the environment. */
export const staticArea = (name: string, checks: readonly PolicyCheck[], invariants?: Readonly<Record<string, string>>): Area => ({
  name,
  checks: () => [...checks],
  ...(invariants ? { invariants } : {}),
});
