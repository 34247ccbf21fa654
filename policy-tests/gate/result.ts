/**
 * What a gate run judged: one record, every stage adding to it (the files and their resources with the schema
 * layer's and the admission and policy layers' findings, what the cluster warns about, what nobody judged, what was
 * not rendered), and its summary. The report formats read only this.
 */
import { byLocation, type Finding, type Layer } from '../model/core/findings.ts';
import { LAYER_CHECKS } from '../schema/layer-checks.ts';
import { ADMISSION_CHECK_IDS } from '../admission/index.ts';
import type { Repo } from '../model/repository/repo.ts';
import { applicationsByName, filesOfApp } from '../model/argocd/argocd.ts';
import type { ResourceStatus } from '../schema/schema-layer.ts';
import type { PodSecurityCoverage, RuleCoverage } from '../admission/index.ts';

export interface ResourceResult {
  filename: string;
  kind: string;
  version: string;
  name: string;
  status: ResourceStatus;
  findings: Finding[];
  /** `<application>: <template>` for a rendered resource. */
  renderedBy?: string;
}

export interface Summary {
  valid: number;
  invalid: number;
  errors: number;
  skipped: number;
  /** Application sources that could not be rendered offline (a chart not in the cache): judged by nobody. */
  notRendered: number;
  warnings?: number;
  /** What a check could not judge, each with its reason. */
  notJudged?: number;
}

/** A source the gate could not render, where it is declared, and the command that fixes it. */
export interface NotRendered {
  file: string;
  line: number;
  col: number;
  app: string;
  source: string;
  message: string;
}

export interface GateResult {
  resources: ResourceResult[];
  summary: Summary;
  /** Whether the policy layer ran (only for this repository's own manifests). */
  policy: boolean;
  notRendered: NotRendered[];
  /** The render tools' versions, when anything was rendered. */
  tools?: string;
  /** What the API server admits with a warning (Pod Security's warn and audit levels): listed, never a failure. */
  warnings: Finding[];
  /** What a check could not judge (severity `not-judged`), each with its reason: counted, never reported as fine. */
  notJudged: Finding[];
  /** The CRD validation rules (CEL) of every CRD the repository renders or the gate bundles: how many the evaluator judges. */
  celRules?: RuleCoverage;
  /** The namespaces holding pods, by the Pod Security level they are enforced at, and those exempt. */
  podSecurity?: PodSecurityCoverage;
}

/** The counts of a run's resources by status. */
export function summarize(resources: readonly ResourceResult[]): Summary {
  const summary: Summary = { valid: 0, invalid: 0, errors: 0, skipped: 0, notRendered: 0 };
  for (const r of resources) {
    if (r.status === 'valid') summary.valid++;
    else if (r.status === 'invalid') summary.invalid++;
    else if (r.status === 'error') summary.errors++;
    else summary.skipped++;
  }
  return summary;
}

/** What the stages collected, before the files asked about are selected. */
export interface Collected {
  results: ResourceResult[];
  warnings: Finding[];
  notJudged: Finding[];
  notRendered: NotRendered[];
  scope: Repo | undefined;
  /** The repository files the paths asked about, or undefined for the whole repository. */
  files: ReadonlySet<string> | undefined;
  policy: boolean;
  tools: string | undefined;
  celRules: RuleCoverage | undefined;
  podSecurity: PodSecurityCoverage | undefined;
}

const LAYERS = new Map<string, Layer>([
  ...LAYER_CHECKS.map((c) => [c.id, c.layer] as const),
  ...ADMISSION_CHECK_IDS.map((id) => [id, 'admission'] as const),
  ['render', 'render'],
  ['not-rendered', 'render'],
]);

/** The layer a check id belongs to: the loader's and the schema layer's ids, the admission checks, the render tier, else the policy layer. */
export function layerOf(check: string): Layer {
  return LAYERS.get(check) ?? 'policy';
}

const withLayer = (f: Finding): Finding => (f.layer ? f : { ...f, layer: layerOf(f.check) });

/** The result, keeping only the warnings, gaps and unrendered sources that concern the files asked about; every finding carries its layer. */
export function assemble(c: Collected): GateResult {
  for (const r of c.results) r.findings = r.findings.map(withLayer);
  const selected = (l: Finding[]): Finding[] =>
    l
      .filter((w) => !c.files || c.files.has(w.file))
      .map(withLayer)
      .sort(byLocation);
  const [warnings, notJudged] = [selected(c.warnings), selected(c.notJudged)];
  const notRendered = c.notRendered.filter((n) => concerns(c.scope, c.files, n));
  return {
    resources: c.results,
    summary: { ...summarize(c.results), notRendered: notRendered.length, warnings: warnings.length, notJudged: notJudged.length },
    policy: c.policy,
    notRendered,
    warnings,
    notJudged,
    ...(c.tools ? { tools: c.tools } : {}),
    ...(c.celRules ? { celRules: c.celRules } : {}),
    ...(c.podSecurity ? { podSecurity: c.podSecurity } : {}),
  };
}

/** Whether an unrendered source concerns the files asked about: its Application's own file, or a file the app reads. */
function concerns(repo: Repo | undefined, files: ReadonlySet<string> | undefined, n: NotRendered): boolean {
  if (!files || files.has(n.file)) return true;
  const app = repo && applicationsByName(repo).get(n.app);
  return app !== undefined && filesOfApp(repo!, app).some((f) => files.has(f));
}

/** Every finding of a run, in file order. */
export function allFindings(result: GateResult): Finding[] {
  return result.resources.flatMap((r) => r.findings).sort(byLocation);
}
