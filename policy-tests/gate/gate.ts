/**
 * The gate: load, render, the schema layer, the admission stage, the policy stage, one result per resource.
 * Used by the CLI (gate/cli.ts), by the tests and by the benchmark.
 */
import { policyChecks, stagedChecks } from '../checks/registry.ts';
import { exemptionStep, runChecks } from '../model/checks/runner.ts';
import { exemptionCheck } from '../model/checks/exemptions.ts';
import type { CheckEnvironment, PolicyCheck } from '../model/checks/kit.ts';
import { byLocation, type Finding } from '../model/core/findings.ts';
import { assemble, type GateResult, type NotRendered, type ResourceResult } from './result.ts';
import { findingAt, resourceKey, type ParsedFile, type Resource } from '../model/core/manifest.ts';
import { parseSource } from '../model/core/source.ts';
import { REPO_ROOT, type Repo } from '../model/repository/repo.ts';
import { markRootCauses } from './root-causes.ts';
import { didYouMean } from '../model/core/did-you-mean.ts';
import { collectInputs, type Inputs } from './inputs.ts';
import { UsageError } from './usage-error.ts';
import { crdsFromObjects } from '../schema/repo-crds.ts';
import { BUNDLED_SCHEMA_MINOR, type SchemaLayer, type SchemaOptions } from '../schema/schema-layer.ts';
import type { SourceRender } from '../model/argocd/rendered.ts';
import { unrenderedSources } from '../render/render.ts';
import { loadTree, renderTree, schemaLayer, type LoadedTree } from './pipeline.ts';
import { flushOutcomeStores } from '../model/stores/outcome-store.ts';
import { admissionLayer, type AdmissionJudgement, type PodSecurityCoverage, type RuleCoverage } from '../admission/index.ts';

export { UsageError };
export { allFindings, type GateResult, type NotRendered, type ResourceResult, type Summary } from './result.ts';

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

/** The version asked for in place of the facts', if any. */
type AskedVersion = KubernetesVersion | undefined;

function resolvedOptions(options: GateOptions, repo: Repo | undefined, asked: AskedVersion): SchemaOptions {
  // The facts' version is the asked one when a repository is judged (withVersion); files alone take the flag's.
  const minor = repo?.facts?.kubernetesMinor ?? asked?.minor ?? BUNDLED_SCHEMA_MINOR;
  return {
    strict: options.strict ?? true,
    kubernetesMinor: Number.isFinite(minor) ? minor : BUNDLED_SCHEMA_MINOR,
    skip: options.skip ?? [],
    reject: options.reject ?? [],
    ignoreMissingSchemas: options.ignoreMissingSchemas ?? false,
  };
}

/** What every check is given: scope knowledge from the schema layer. */
async function checkEnvironment(): Promise<CheckEnvironment> {
  const layer = await schemaLayer();
  // `v1/ConfigMap` is the core group, `apps/v1/Deployment` the group apps.
  const builtinGroups = new Set(layer.builtinApiVersions().map((v) => (/^v\d/.test(v) ? '' : v.split('/')[0]!)));
  return { isClusterScoped: (apiVersion, kind) => layer.isClusterScoped(apiVersion, kind), builtinGroups };
}

/** Every check the gate runs, in report order, and the exemption step's declaration: the CLI's list, the check table. */
export async function registeredChecks(): Promise<PolicyCheck[]> {
  return [...policyChecks(await checkEnvironment()), exemptionCheck];
}

/** The schema layer on parsed files: one result per resource, in file order. */
/** How a schema run goes beside its options: progress reports, and a schema layer already made (with the repository's CRDs). */
interface SchemaRun {
  onProgress?: Progress;
  given?: SchemaLayer;
}

export async function schemaResults(parsed: readonly ParsedFile[], options: SchemaOptions, { onProgress, given }: SchemaRun = {}): Promise<ResourceResult[]> {
  const layer = given ?? (await schemaLayer());
  const resources: Resource[] = parsed.flatMap((p) => p.resources);
  await layer.prepareFor(resources);
  const results = resources.map((resource, i): ResourceResult => {
    if (onProgress && i % 200 === 0) onProgress('schema', i, resources.length);
    const { status, findings } = layer.check(resource, options);
    return {
      filename: resource.file,
      kind: resource.kind,
      version: resource.apiVersion,
      name: resource.name,
      status,
      findings,
      ...(resource.rendered ? { renderedBy: `${resource.rendered.app}: ${resource.rendered.template ?? resource.rendered.source}` } : {}),
    };
  });
  onProgress?.('schema', resources.length, resources.length);
  return results;
}

/**
 * The loader's findings and the checks' attached to the schema results of the same files: each to its resource, a
 * file's own to the file's first; a file that did not parse becomes an error result of its own.
 */
export function withFindings(results: ResourceResult[], parsed: readonly ParsedFile[], extra: readonly Finding[]): ResourceResult[] {
  const byDoc = new Map(parsed.flatMap((p) => p.resources).map((resource, i) => [resourceKey(resource), results[i]!]));
  const firstOfFile = new Map<string, ResourceResult>();
  for (const r of results) if (!firstOfFile.has(r.filename)) firstOfFile.set(r.filename, r);
  const loaderFindings = new Set(parsed.flatMap((p) => p.findings));
  for (const finding of [...loaderFindings, ...extra]) {
    const isLoader = loaderFindings.has(finding);
    let target = isLoader ? undefined : finding.doc !== undefined ? byDoc.get(resourceKey(finding)) : firstOfFile.get(finding.file);
    if (!target) {
      target = { filename: finding.file, kind: '', version: '', name: '', status: isLoader ? 'error' : 'invalid', findings: [] };
      results.push(target);
      if (!isLoader && finding.doc === undefined) firstOfFile.set(finding.file, target);
    }
    target.findings.push(finding);
    if (target.status === 'valid' || target.status === 'skipped') target.status = 'invalid';
  }
  for (const r of results) r.findings.sort(byLocation);
  return results;
}

/** The schema layer on parsed files, with the loader's findings and `extra` (the checks') attached to their resources. */
export async function evaluate(
  parsed: readonly ParsedFile[],
  extra: readonly Finding[],
  options: SchemaOptions,
  run: SchemaRun = {},
): Promise<ResourceResult[]> {
  return withFindings(await schemaResults(parsed, options, run), parsed, extra);
}

/** The repository as Argo CD applies it (or its files alone), after the render stage: what the later stages judge. */
interface Tree {
  repo: Repo;
  parsed: readonly ParsedFile[];
  renders: readonly SourceRender[];
  /** A source that failed to render, or (with requireRendered) could not be: findings on its Application. */
  renderFindings: Finding[];
  notRendered: NotRendered[];
  /** Whether the checks run: they judge the rendered repository, so not on the files alone. */
  checked: boolean;
  tools?: string;
}

/** What the admission and policy stages found, and what they counted apart. */
interface Checked {
  findings: Finding[];
  warnings: Finding[];
  notJudged: Finding[];
  celRules?: RuleCoverage;
  podSecurity?: PodSecurityCoverage;
}

/** The checks of each stage (checks/registry.ts stagedChecks). */
type Staged = ReturnType<typeof stagedChecks>;

/**
 * The render stage. With --no-render, the files alone: every source that needs a tool is listed as not rendered,
 * never failed on output it did not build, and the checks, which judge the rendered repository, do not run.
 * Otherwise the repository as Argo CD applies it, rendered at the version asked for.
 */
async function renderStage(loaded: LoadedTree, options: GateOptions, asked: AskedVersion): Promise<Tree> {
  const notRendered: NotRendered[] = [];
  const requireRendered = options.requireRendered ?? false;
  if (options.render === false) {
    const plain = withVersion(loaded.plain, asked);
    const skipped = unrenderedSources(
      plain,
      'not rendered: --no-render runs neither Helm nor kustomize, and the policy layer, which judges the rendered repository, did not run',
    );
    return {
      repo: plain,
      parsed: plain.parsed,
      renders: [],
      renderFindings: renderProblems(skipped, requireRendered, notRendered),
      notRendered,
      checked: false,
    };
  }
  const rendered = await renderTree(loaded, options.env, asked?.version);
  // --kubernetes-version is the cluster's version for every layer: the checks read it from the facts.
  const repo = withVersion(rendered.repo, asked);
  const renderFindings = renderProblems(rendered.renders, requireRendered, notRendered);
  return { repo, parsed: rendered.parsed, renders: rendered.renders, renderFindings, notRendered, checked: true, tools: rendered.tools };
}

/** The admission stage, after the schema layer: the admission layer (admission/index.ts). Not run on the files alone (--no-render). */
function admissionStage(tree: Tree, checks: readonly PolicyCheck[], options: GateOptions): AdmissionJudgement | undefined {
  if (!tree.checked) return undefined;
  const total = tree.repo.resources.length;
  options.onProgress?.('admission', 0, total);
  const judged = admissionLayer(tree.repo, tree.renders, checks);
  options.onProgress?.('admission', total, total);
  return judged;
}

/**
 * The policy stage: every other area's checks, then the exemption step over both stages (an exemption is stale when
 * neither used it), root causes marked across them and the render's findings.
 */
function policyStage(tree: Tree, staged: Staged, admitted: AdmissionJudgement | undefined, options: GateOptions): Checked {
  if (!admitted) return { findings: tree.renderFindings, warnings: [], notJudged: [] };
  const total = tree.repo.resources.length;
  options.onProgress?.('policy', 0, total);
  const run = runChecks(tree.repo, staged.policy, tree.renders);
  const exemptions = exemptionStep(tree.repo, [...staged.admission, ...staged.policy, exemptionCheck], [admitted.run, run]);
  options.onProgress?.('policy', total, total);
  const found = [...admitted.run.findings, ...run.findings, ...exemptions];
  const findings = [...tree.renderFindings, ...found.filter((f) => f.severity === undefined)];
  markRootCauses(findings);
  return {
    findings,
    warnings: found.filter((f) => f.severity === 'warning'),
    notJudged: found.filter((f) => f.severity === 'not-judged'),
    celRules: admitted.celRules,
    ...(admitted.podSecurity ? { podSecurity: admitted.podSecurity } : {}),
  };
}

/**
 * The gate, a straight line of stages: load the repository, render it, the schema layer, the admission stage, the
 * policy stage, then the files asked about selected and reported. Files outside the repository get the schema layer alone.
 */
export async function runGate(options: GateOptions = {}): Promise<GateResult> {
  const root = options.root ?? REPO_ROOT;
  const paths = options.paths ?? [];
  const asked: AskedVersion = options.kubernetesVersion;
  const inputs: Inputs = paths.length === 0 ? { outside: [] } : collectInputs(paths, root, options.cwd ?? process.cwd(), options.stdin);
  // Only the files asked about are reported; the whole repository is judged, as Argo CD applies it whole.
  const keep = (file: string): boolean => paths.length === 0 || inputs.repoFiles!.has(file);
  const results: ResourceResult[] = [];
  let tree: Tree | undefined;
  let checked: Checked | undefined;
  if (paths.length === 0 || (inputs.repoFiles?.size ?? 0) > 0) {
    options.onProgress?.('parse', 0, 1);
    const loaded = await loadTree(root, { parallel: options.parallel });
    assertKnownKinds(options, loaded.layer, loaded.plain.resources);
    options.onProgress?.('parse', 1, 1);
    tree = await renderStage(loaded, options, asked);
    const parsed = tree.parsed.filter((p) => keep(p.file));
    const crds = tree.repo.resources.filter((r) => r.kind === 'CustomResourceDefinition');
    const schema = await schemaResults(parsed, resolvedOptions(options, tree.repo, asked), {
      onProgress: options.onProgress,
      given: loaded.layer.withCrds(crds),
    });
    const staged = stagedChecks(await checkEnvironment());
    checked = policyStage(tree, staged, admissionStage(tree, staged.admission, options), options);
    results.push(
      ...withFindings(
        schema,
        parsed,
        checked.findings.filter((f) => keep(f.file)),
      ),
    );
  }
  if (inputs.outside.length > 0) {
    const parsed = inputs.outside.map((input) => parseSource(input.filename, input.read()));
    results.push(...(await evaluate(parsed, [], resolvedOptions(options, undefined, asked), { onProgress: options.onProgress })));
  }
  // What the parser read, the validators judged and the CEL rules found, for the next run to skip (keyed by inputs).
  flushOutcomeStores();
  return assemble({
    results,
    warnings: checked?.warnings ?? [],
    notJudged: checked?.notJudged ?? [],
    notRendered: tree?.notRendered ?? [],
    scope: tree?.repo,
    files: inputs.repoFiles,
    policy: tree?.checked ?? false,
    tools: tree?.tools,
    celRules: checked?.celRules,
    podSecurity: checked?.podSecurity,
  });
}

/**
 * `--skip` and `--reject` name kinds (`Kind` or `apiVersion/Kind`); a name no schema and no resource knows is a typo
 * that would silently skip nothing, so it is a usage error, with the nearest known name.
 */
function assertKnownKinds(options: GateOptions, layer: SchemaLayer, resources: readonly Resource[]): void {
  const known = new Set<string>();
  // The kinds the layer has schemas for, those the repository's CRDs declare (read lazily, no schema compiled), and those it uses.
  const declared = crdsFromObjects(resources.filter((r) => r.kind === 'CustomResourceDefinition')).map((c) => `${c.apiVersion}/${c.kind}`);
  for (const key of [...layer.knownKinds(), ...declared, ...resources.map((r) => `${r.apiVersion}/${r.kind}`)]) {
    known.add(key);
    known.add(key.slice(key.lastIndexOf('/') + 1));
  }
  for (const [flag, kinds] of [
    ['--skip', options.skip ?? []],
    ['--reject', options.reject ?? []],
  ] as const)
    for (const kind of kinds)
      if (!known.has(kind)) {
        throw new UsageError(`${flag} ${kind}: no schema or resource has that kind${didYouMean(kind, known)}`);
      }
}

/** The repository as judged at another Kubernetes version (x.y.z), or as it is. */
function withVersion(repo: Repo, asked: AskedVersion): Repo {
  if (asked === undefined || !repo.facts) return repo;
  return { ...repo, facts: { ...repo.facts, kubernetesVersion: asked.version, kubernetesMinor: asked.minor } };
}

/**
 * Sources that failed to render are findings on their Application. Sources
 * that could not be rendered offline are counted, or with `requireRendered`,
 * findings too: either way never reported as valid.
 */
function renderProblems(renders: readonly SourceRender[], requireRendered: boolean, notRendered: NotRendered[]): Finding[] {
  const out: Finding[] = [];
  for (const r of renders) {
    if (r.status === 'rendered') continue;
    const field = r.source.chart !== undefined ? 'chart' : 'path';
    const at = findingAt(r.app.resource, [...r.source.at, field], {
      check: r.status === 'failed' ? 'render' : 'not-rendered',
      message: `${r.label}: ${r.message ?? 'not rendered'}`,
      fix:
        r.status === 'failed'
          ? 'fix what the tool reports, then run npm run validate again'
          : 'run npm run charts:pull with network access (or --mirror URL), then validate again',
    });
    if (r.status === 'not-rendered')
      notRendered.push({ file: at.file, line: at.line, col: at.col, app: r.app.name, source: r.label, message: r.message ?? '' });
    if (r.status === 'failed' || requireRendered) out.push(at);
  }
  return out;
}
