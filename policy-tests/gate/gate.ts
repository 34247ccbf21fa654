/**
 * The gate: load, schema layer, policy layer, one result per resource.
 * Used by the CLI (gate/cli.ts), by the tests and by the benchmark.
 */
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { policyChecks } from '../checks/registry.ts';
import { runPolicy } from './runner.ts';
import type { PolicyCheck } from '../checks/kit.ts';
import { byLocation, type Finding } from '../model/findings.ts';
import { resourceKey, type ParsedFile, type Resource } from '../model/manifest.ts';
import { parseSource, readSource, type Source } from '../model/source.ts';
import { isManifestPath, loadRepo, MANIFEST_ROOTS, REPO_ROOT, relativeToRepo, walkFiles, type Repo } from '../model/repo.ts';
import { BUNDLED_SCHEMA_MINOR, SchemaLayer, type ResourceStatus, type SchemaOptions } from '../schema/schema-layer.ts';

export class UsageError extends Error {}

export type Progress = (phase: 'parse' | 'policy' | 'schema', done: number, total: number) => void;

/** Reads --kubernetes-version; only versions the bundled schemas can speak for are accepted. */
export function parseKubernetesMinor(version: string): number {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(version);
  if (!m) throw new UsageError(`--kubernetes-version must look like 1.${BUNDLED_SCHEMA_MINOR}.0, got "${version}"`);
  const minor = Number(m[2]);
  if (m[1] !== '1' || minor > BUNDLED_SCHEMA_MINOR) throw new UsageError(`no offline schemas for Kubernetes ${version}: the bundled schemas describe 1.${BUNDLED_SCHEMA_MINOR}`);
  return minor;
}


export interface ResourceResult {
  filename: string;
  kind: string;
  version: string;
  name: string;
  status: ResourceStatus;
  findings: Finding[];
}

export interface Summary {
  valid: number;
  invalid: number;
  errors: number;
  skipped: number;
}

export interface GateResult {
  resources: ResourceResult[];
  summary: Summary;
  /** Whether the policy layer ran (only for this repository's own manifests). */
  policy: boolean;
}

export interface GateOptions extends Partial<SchemaOptions> {
  /** Files, folders or `-`; empty means the whole repository. */
  paths?: readonly string[];
  root?: string;
  cwd?: string;
  stdin?: () => string;
  /** Called as work advances: the phase (parse, policy, schema) and counts within it. */
  onProgress?: Progress;
  /** Parse in worker threads; by default only for large trees. */
  parallel?: boolean;
}

let sharedLayer: Promise<SchemaLayer> | undefined;
export function schemaLayer(): Promise<SchemaLayer> {
  return (sharedLayer ??= SchemaLayer.create());
}

interface Inputs {
  repoFiles?: Set<string>;
  outside: { filename: string; read: () => Source }[];
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function collectInputs(paths: readonly string[], root: string, cwd: string, stdin?: () => string): Inputs {
  const repoFiles = new Set<string>();
  const outside: Inputs['outside'] = [];
  for (const raw of paths) {
    if (raw === '-') {
      outside.push({ filename: 'stdin', read: () => ({ text: stdin ? stdin() : readFileSync(0, 'utf8') }) });
      continue;
    }
    const abs = resolve(cwd, raw);
    // lstat: a dangling or looping symlink exists, and readSource says what is wrong with it.
    const entry = lstatOrUndefined(abs);
    if (!entry) throw new UsageError(`no such file or directory: ${raw}`);
    const files = new Set<string>();
    if (entry.isDirectory() || (entry.isSymbolicLink() && existsSync(abs) && statSync(abs).isDirectory())) walkFiles(abs, '', files, new Set());
    else files.add('');
    for (const f of files) {
      const full = f ? resolve(abs, f) : abs;
      if (f && !isManifestPath(f)) continue;
      const rel = relativeToRepo(root, full);
      if (rel && MANIFEST_ROOTS.some((r) => rel === r || rel.startsWith(`${r}/`))) repoFiles.add(rel);
      else {
        const filename = f ? `${raw.replace(/\/+$/, '')}/${f}` : raw;
        outside.push({
          filename,
          read: () => {
            const source = readSource(dirname(full), basename(full), false);
            return 'text' in source ? source : { finding: { ...source.finding, file: filename } };
          },
        });
      }
    }
  }
  return { repoFiles, outside };
}

function resolvedOptions(options: GateOptions, repo?: Repo): SchemaOptions {
  const minor = options.kubernetesMinor ?? repo?.facts?.kubernetesMinor ?? BUNDLED_SCHEMA_MINOR;
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
  return policyChecks((apiVersion, kind) => layer.isClusterScoped(apiVersion, kind));
}

function summarize(resources: readonly ResourceResult[]): Summary {
  const summary: Summary = { valid: 0, invalid: 0, errors: 0, skipped: 0 };
  for (const r of resources) {
    if (r.status === 'valid') summary.valid++;
    else if (r.status === 'invalid') summary.invalid++;
    else if (r.status === 'error') summary.errors++;
    else summary.skipped++;
  }
  return summary;
}

/** Validates parsed files (schema layer), attaching any extra findings (policy layer) to their resources. */
export async function evaluate(parsed: readonly ParsedFile[], extra: readonly Finding[], options: SchemaOptions, onProgress?: Progress): Promise<ResourceResult[]> {
  const layer = await schemaLayer();
  const resources: Resource[] = parsed.flatMap((p) => p.resources);
  await layer.prepare(resources.map((r) => `${r.apiVersion}/${r.kind}`));
  const results: ResourceResult[] = [];
  const byDoc = new Map<string, ResourceResult>();
  resources.forEach((resource, i) => {
    if (onProgress && i % 200 === 0) onProgress('schema', i, resources.length);
    const { status, findings } = layer.check(resource, options);
    const result: ResourceResult = { filename: resource.file, kind: resource.kind, version: resource.apiVersion, name: resource.name, status, findings };
    results.push(result);
    byDoc.set(resourceKey(resource), result);
  });
  onProgress?.('schema', resources.length, resources.length);
  const firstOfFile = new Map<string, ResourceResult>();
  for (const r of results) if (!firstOfFile.has(r.filename)) firstOfFile.set(r.filename, r);
  const loaderFindings = new Set(parsed.flatMap((p) => p.findings));
  for (const finding of [...loaderFindings, ...extra]) {
    const isLoader = loaderFindings.has(finding);
    let target = isLoader ? undefined : (finding.doc !== undefined ? byDoc.get(resourceKey(finding)) : firstOfFile.get(finding.file));
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

export async function runGate(options: GateOptions = {}): Promise<GateResult> {
  const root = options.root ?? REPO_ROOT;
  const cwd = options.cwd ?? process.cwd();
  const paths = options.paths ?? [];
  const inputs: Inputs = paths.length === 0 ? { outside: [] } : collectInputs(paths, root, cwd, options.stdin);
  const wantsRepo = paths.length === 0 || (inputs.repoFiles?.size ?? 0) > 0;
  const results: ResourceResult[] = [];
  let policy = false;
  if (wantsRepo) {
    options.onProgress?.('parse', 0, 1);
    const repo = await loadRepo(root, { parallel: options.parallel });
    options.onProgress?.('parse', 1, 1);
    const schemaOptions = resolvedOptions(options, repo);
    options.onProgress?.('policy', 0, repo.resources.length);
    const findings = runPolicy(repo, await registeredChecks());
    policy = true;
    const selected = paths.length === 0 ? undefined : inputs.repoFiles!;
    const keep = (file: string): boolean => !selected || selected.has(file);
    results.push(...(await evaluate(repo.parsed.filter((p) => keep(p.file)), findings.filter((f) => keep(f.file)), schemaOptions, options.onProgress)));
  }
  if (inputs.outside.length > 0) {
    const parsed = inputs.outside.map((input) => parseSource(input.filename, input.read()));
    results.push(...(await evaluate(parsed, [], resolvedOptions(options), options.onProgress)));
  }
  return { resources: results, summary: summarize(results), policy };
}

export function allFindings(result: GateResult): Finding[] {
  return result.resources.flatMap((r) => r.findings).sort(byLocation);
}
