/**
 * The gate: load, schema layer, policy layer, one result per resource.
 * Used by the CLI (gate/cli.ts), by the tests and by the benchmark.
 */
import { policyChecks } from '../checks/registry.ts';
import { runPolicy } from './runner.ts';
import type { PolicyCheck } from '../checks/kit.ts';
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
import { ruleCoverage, type RuleCoverage } from '../admission/cel/crd-rules.ts';
import { crdSchemas } from '../admission/crd-schemas.ts';
import { policyCoverage } from '../admission/cel/admission-policies.ts';

export { UsageError };
export { allFindings, type GateResult, type NotRendered, type ResourceResult, type Summary } from './result.ts';

/** A Kubernetes version to judge at: x.y.z and its minor (gate/cli.ts reads --kubernetes-version into one). */
export interface KubernetesVersion {
  version: string;
  minor: number;
}

export type Progress = (phase: 'parse' | 'policy' | 'schema', done: number, total: number) => void;

export interface GateOptions extends Partial<Omit<SchemaOptions, 'kubernetesMinor'>> {
  /** Files, folders or `-`; empty means the whole repository. */
  paths?: readonly string[];
  root?: string;
  cwd?: string;
  stdin?: () => string;
  /** Called as work advances: the phase (parse, policy, schema) and counts within it. */
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

/** The policy checks, with scope knowledge from the schema layer. */
export async function registeredChecks(): Promise<PolicyCheck[]> {
  const layer = await schemaLayer();
  // `v1/ConfigMap` is the core group, `apps/v1/Deployment` the group apps.
  const builtinGroups = new Set(layer.builtinApiVersions().map((v) => (/^v\d/.test(v) ? '' : v.split('/')[0]!)));
  return policyChecks({ isClusterScoped: (apiVersion, kind) => layer.isClusterScoped(apiVersion, kind), builtinGroups });
}

/** Validates parsed files (schema layer), attaching any extra findings (policy layer) to their resources. */
export async function evaluate(
  parsed: readonly ParsedFile[],
  extra: readonly Finding[],
  options: SchemaOptions,
  onProgress?: Progress,
  given?: SchemaLayer,
): Promise<ResourceResult[]> {
  const layer = given ?? (await schemaLayer());
  const resources: Resource[] = parsed.flatMap((p) => p.resources);
  await layer.prepareFor(resources);
  const results: ResourceResult[] = [];
  const byDoc = new Map<string, ResourceResult>();
  resources.forEach((resource, i) => {
    if (onProgress && i % 200 === 0) onProgress('schema', i, resources.length);
    const { status, findings } = layer.check(resource, options);
    const result: ResourceResult = {
      filename: resource.file,
      kind: resource.kind,
      version: resource.apiVersion,
      name: resource.name,
      status,
      findings,
      ...(resource.rendered ? { renderedBy: `${resource.rendered.app}: ${resource.rendered.template ?? resource.rendered.source}` } : {}),
    };
    results.push(result);
    byDoc.set(resourceKey(resource), result);
  });
  onProgress?.('schema', resources.length, resources.length);
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

/** The CEL rules found and compiled, the CRDs' and the admission policies' together: the summary counts what is not judged. */
function celRuleCoverage(repo: Repo): RuleCoverage {
  const crdRules = ruleCoverage([...crdSchemas(repo.resources)].map(([crd, { schema }]) => ({ crd, schema })));
  const policyRules = policyCoverage(repo.resources.filter((r) => r.kind === 'ValidatingAdmissionPolicy').map((r) => r.object));
  return {
    found: crdRules.found + policyRules.found,
    compiled: crdRules.compiled + policyRules.compiled,
    notJudged: [...crdRules.notJudged, ...policyRules.notJudged],
  };
}

/** The repository as judged before the schema layer: its files, the findings of the render tier and the policy layer, and what they counted apart. */
interface Judged {
  repo: Repo;
  parsed: readonly ParsedFile[];
  findings: Finding[];
  warnings: Finding[];
  notJudged: Finding[];
  notRendered: NotRendered[];
  policy: boolean;
  tools?: string;
  celRules?: RuleCoverage;
}

/**
 * The files alone (--no-render): the loader and schema layers on every file. The policy layer judges the
 * repository as Argo CD applies it, which needs the renders; it does not run, and every source that needs a
 * tool is listed as not rendered, never failed on output it did not build.
 */
function judgeFiles(loaded: LoadedTree, options: GateOptions, asked: AskedVersion): Judged {
  const plain = withVersion(loaded.plain, asked);
  const notRendered: NotRendered[] = [];
  const skipped = unrenderedSources(
    plain,
    'not rendered: --no-render runs neither Helm nor kustomize, and the policy layer, which judges the rendered repository, did not run',
  );
  const findings = renderProblems(skipped, options.requireRendered ?? false, notRendered);
  return { repo: plain, parsed: plain.parsed, findings, warnings: [], notJudged: [], notRendered, policy: false };
}

/** The repository as Argo CD applies it: rendered at the version asked for, every policy check run, root causes marked. */
async function judgeRendered(loaded: LoadedTree, options: GateOptions, asked: AskedVersion): Promise<Judged> {
  const rendered = await renderTree(loaded, options.env, asked?.version);
  // --kubernetes-version is the cluster's version for every layer: the checks read it from the facts.
  const repo = withVersion(rendered.repo, asked);
  const notRendered: NotRendered[] = [];
  const renderFindings = renderProblems(rendered.renders, options.requireRendered ?? false, notRendered);
  options.onProgress?.('policy', 0, repo.resources.length);
  const policyFindings = runPolicy(repo, await registeredChecks(), rendered.renders);
  const findings = [...renderFindings, ...policyFindings.filter((f) => f.severity === undefined)];
  markRootCauses(findings);
  return {
    repo,
    parsed: rendered.parsed,
    findings,
    warnings: policyFindings.filter((f) => f.severity === 'warning'),
    notJudged: policyFindings.filter((f) => f.severity === 'not-judged'),
    notRendered,
    policy: true,
    tools: rendered.tools,
    celRules: celRuleCoverage(repo),
  };
}

export async function runGate(options: GateOptions = {}): Promise<GateResult> {
  const root = options.root ?? REPO_ROOT;
  const cwd = options.cwd ?? process.cwd();
  const paths = options.paths ?? [];
  const asked: AskedVersion = options.kubernetesVersion;
  const inputs: Inputs = paths.length === 0 ? { outside: [] } : collectInputs(paths, root, cwd, options.stdin);
  const wantsRepo = paths.length === 0 || (inputs.repoFiles?.size ?? 0) > 0;
  const results: ResourceResult[] = [];
  let judged: Judged | undefined;
  if (wantsRepo) {
    options.onProgress?.('parse', 0, 1);
    const loaded = await loadTree(root, { parallel: options.parallel });
    assertKnownKinds(options, loaded.layer, loaded.plain.resources);
    options.onProgress?.('parse', 1, 1);
    judged = options.render === false ? judgeFiles(loaded, options, asked) : await judgeRendered(loaded, options, asked);
    // Only the files asked about are reported; the whole repository was judged, as Argo CD applies it whole.
    const keep = (file: string): boolean => paths.length === 0 || inputs.repoFiles!.has(file);
    const crds = judged.repo.resources.filter((r) => r.kind === 'CustomResourceDefinition');
    results.push(
      ...(await evaluate(
        judged.parsed.filter((p) => keep(p.file)),
        judged.findings.filter((f) => keep(f.file)),
        resolvedOptions(options, judged.repo, asked),
        options.onProgress,
        loaded.layer.withCrds(crds),
      )),
    );
  }
  if (inputs.outside.length > 0) {
    const parsed = inputs.outside.map((input) => parseSource(input.filename, input.read()));
    results.push(...(await evaluate(parsed, [], resolvedOptions(options, undefined, asked), options.onProgress)));
  }
  // What the parser read, the validators judged and the CEL rules found, for the next run to skip (keyed by inputs).
  flushOutcomeStores();
  return assemble({
    results,
    warnings: judged?.warnings ?? [],
    notJudged: judged?.notJudged ?? [],
    notRendered: judged?.notRendered ?? [],
    scope: judged?.repo,
    files: inputs.repoFiles,
    policy: judged?.policy ?? false,
    tools: judged?.tools,
    celRules: judged?.celRules,
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
    const at = findingAt(
      r.app.resource,
      [...r.source.at, field],
      r.status === 'failed' ? 'render' : 'not-rendered',
      `${r.label}: ${r.message ?? 'not rendered'}`,
      r.status === 'failed'
        ? 'fix what the tool reports, then run npm run validate again'
        : 'run npm run charts:pull with network access (or --mirror URL), then validate again',
    );
    if (r.status === 'not-rendered')
      notRendered.push({ file: at.file, line: at.line, col: at.col, app: r.app.name, source: r.label, message: r.message ?? '' });
    if (r.status === 'failed' || requireRendered) out.push(at);
  }
  return out;
}
