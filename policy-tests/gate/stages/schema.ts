/**
 * The schema stage: one result per resource, in file order, from the schema layer; then every finding of the
 * loader and the later stages attached to the result of the resource (or file) it is about.
 */
import { byLocation, type Finding } from '../../model/core/findings.ts';
import { resourceKey, type ParsedFile, type Resource } from '../../model/core/manifest.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { annotationSyncOptions, owningApplication, syncOptions } from '../../model/argocd/argocd.ts';
import { BUNDLED_SCHEMA_MINOR, type SchemaLayer, type SchemaOptions } from '../../schema/schema-layer.ts';
import type { ResourceResult } from '../result.ts';
import { schemaLayer } from '../pipeline.ts';
import type { GateOptions, Progress } from '../options.ts';
import type { Tree } from './render.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { dig } from '../../model/core/dig.ts';
import { nonStringPatches } from '../../model/prometheus-operator/mutation.ts';

/** The schema layer's options from the gate's, at the version the repository's facts state (or the one asked for). */
export function resolvedOptions(options: GateOptions, repo?: Repo): SchemaOptions {
  // The facts' version is the asked one when a repository is judged (withVersion); files alone take the flag's.
  const minor = repo?.facts?.kubernetesMinor ?? options.kubernetesVersion?.minor ?? BUNDLED_SCHEMA_MINOR;
  return {
    strict: options.strict ?? true,
    kubernetesMinor: Number.isFinite(minor) ? minor : BUNDLED_SCHEMA_MINOR,
    skip: options.skip ?? [],
    reject: options.reject ?? [],
    ignoreMissingSchemas: options.ignoreMissingSchemas ?? false,
  };
}

/** How a schema run goes beside its options: progress reports, and a schema layer already made (with the repository's CRDs). */
interface SchemaRun {
  onProgress?: Progress;
  given?: SchemaLayer;
}

/** The schema layer on parsed files: one result per resource, in file order. */
async function schemaResults(parsed: readonly ParsedFile[], options: SchemaOptions, { onProgress, given }: SchemaRun = {}): Promise<ResourceResult[]> {
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

/**
 * The schema stage on a rendered tree: the files `keep` selects (those asked about), judged by the schema layer with
 * the repository's CRDs, at the version the facts state.
 */
export async function schemaStage(
  tree: Tree,
  options: GateOptions,
  keep: (file: string) => boolean,
): Promise<{ parsed: ParsedFile[]; results: ResourceResult[]; warnings: Finding[] }> {
  const parsed = tree.parsed.filter((p) => keep(p.file));
  const crds = tree.repo.resources.filter((r) => r.kind === 'CustomResourceDefinition');
  const results = await schemaResults(parsed, resolvedOptions(options, tree.repo), { onProgress: options.onProgress, given: tree.layer.withCrds(crds) });
  return { parsed, results, warnings: [...unvalidated(tree, parsed, results), ...mutatedFirst(tree, parsed, results)] };
}

/**
 * Argo CD applies an object under `Validate=false` (its annotation's sync options, or its Application's) with
 * `kubectl apply --validate=false`: field validation Ignore, so the API server drops a field it does not know without
 * a word (gitops-engine sync_context, kubectl's --validate). Such an object's unknown fields are taken out of its
 * results (mutated here) and returned as warnings: the cluster takes the object, and the field never reaches it.
 */
function unvalidated(tree: Tree, parsed: readonly ParsedFile[], results: ResourceResult[]): Finding[] {
  return perResource(parsed, results, (resource, result) => {
    if (!result.findings.some((f) => f.check === 'unknown-field')) return [];
    const options = [...annotationSyncOptions(resource.object), ...syncOptions(owningApplication(tree.repo, resource))];
    if (!options.includes('Validate=false')) return [];
    return downgraded(
      result,
      (f) => f.check === 'unknown-field',
      () => 'under Validate=false Argo CD applies it with kubectl apply --validate=false, and the API server drops the field without a word',
    );
  });
}

/** Each resource of the parsed files with its result (one per resource, in file order), and what `fn` returns for it. */
const perResource = (parsed: readonly ParsedFile[], results: ResourceResult[], fn: (resource: Resource, result: ResourceResult) => Finding[]): Finding[] =>
  parsed.flatMap((p) => p.resources).flatMap((resource, i) => fn(resource, results[i]!));

/**
 * The findings of a result that `about` matches, taken out of it (mutated: a result left with none is valid) and
 * returned as warnings, each with why the cluster takes the object after all.
 */
function downgraded(result: ResourceResult, about: (f: Finding) => boolean, why: (f: Finding) => string): Finding[] {
  const out = result.findings.filter(about).map((f): Finding => ({ ...f, severity: 'warning', message: `${f.message}: ${why(f)}` }));
  result.findings = result.findings.filter((f) => !about(f));
  if (!result.findings.length && result.status === 'invalid') result.status = 'valid';
  return out;
}

/** Whether the repository deploys the Prometheus operator with its webhooks (kube-prometheus-stack's defaults). */
const operatorWebhooks = (repo: Repo): boolean =>
  chartValues(repo, 'kube-prometheus-stack').some(
    (c) => dig(c.values, ['prometheusOperator', 'enabled']) !== false && dig(c.values, ['prometheusOperator', 'admissionWebhooks', 'enabled']) !== false,
  );

/**
 * A PrometheusRule label or annotation that is no string (`priority: 2`) fails the CRD's schema, which wants strings,
 * but the Prometheus operator's mutating webhook turns it into one first (model/prometheus-operator/mutation.ts). Its
 * failurePolicy is Ignore: while the operator is down the API server validates the object as written, and refuses
 * it. So where the repository deploys the operator's webhooks, that schema error is taken out of the result (mutated
 * here) and returned as a warning that says both.
 */
function mutatedFirst(tree: Tree, parsed: readonly ParsedFile[], results: ResourceResult[]): Finding[] {
  let deployed: boolean | undefined;
  return perResource(parsed, results, (resource, result) => {
    if (resource.kind !== 'PrometheusRule' || !result.findings.length) return [];
    const patches = nonStringPatches(resource.object.spec);
    if (!patches.length || !(deployed ??= operatorWebhooks(tree.repo))) return [];
    const patchOf = (f: Finding) => (f.check === 'schema' ? patches.find((p) => f.message.includes(`: ${p.pointer}: `)) : undefined);
    return downgraded(
      result,
      (f) => patchOf(f) !== undefined,
      (f) =>
        `the operator's mutating webhook writes it as the string "${patchOf(f)!.value}" before the API server validates it, but only while the operator runs (failurePolicy Ignore); while it is down the API server refuses the PrometheusRule`,
    );
  });
}
