/**
 * The render tier: every Application rendered the way Argo CD 3 renders it,
 * before anything is checked. Directory sources stay with the loader; Helm
 * sources (a chart from a chart repository over HTTP or OCI, or a chart at a
 * path of this repository) go through `helm template` with Argo CD's flags;
 * kustomize sources through kustomize. Renders are cached by their inputs,
 * so an unchanged Application costs nothing. A chart that is not in the
 * cache is reported as not rendered, never as valid.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { applications, isThisRepo, normalizeSourcePath, sourceType, type AppSource, type ArgoApp } from '../model/argocd/argocd.ts';
import type { Resource } from '../model/core/manifest.ts';
import type { Path } from '../model/core/positions.ts';
import type { ChartScope, Nondeterminism, SourceRender } from '../model/argocd/rendered.ts';
import { parseDataFile, type DataFile, type Repo } from '../model/repository/repo.ts';
import {
  cachedChartPath,
  chartId,
  chartRefOf,
  chartScopeFromArchive,
  chartScopeFromFiles,
  digestOf,
  mayReadApiVersions,
  lockEntryFor,
  pendingEntryFor,
  PULL_COMMAND,
  remoteEntryFor,
  readLock,
  type ChartLock,
} from './charts.ts';
import { KUSTOMIZATION_FILES, kustomizeInputs } from '../model/argocd/kustomize.ts';
import { assertAllowedHost, fetchRemote, remoteDigest, type RemoteEntry } from './remote-bases.ts';
import { runtimeApiVersions } from '../model/argocd/app-declarations.ts';
import { writeFileAtomic } from '../model/stores/write-atomic.ts';
import { splitRendered, toResources, type RenderedDoc } from './output.ts';
import { cacheRoot, renderTools, type RenderTools } from './tools.ts';
import { unresolvable } from './reachable.ts';
import {
  assertNoEscapingLinks,
  assertRealInside,
  assertSize,
  confinedRel,
  realPaths,
  renderLimits,
  RenderRefused,
  type RealPathOf,
  type RenderLimits,
} from './limits.ts';
import { scalarText } from '../model/core/text.ts';

const run = promisify(execFile);

export interface RenderOptions {
  /** `group/version` and `group/version/Kind` of every built-in API the cluster serves. */
  builtinApiVersions: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Render the tool once more on a cache miss and compare (on by default). */
  checkDeterminism?: boolean;
  /** Render only these Applications' sources (bootstrap installs the CNI before Argo CD exists); every one by default. */
  apps?: readonly string[];
  /** Helm's --kube-version for every chart that does not set its own: the gate's --kubernetes-version; the facts' by default. */
  kubernetesVersion?: string;
}

export interface RenderResult {
  renders: SourceRender[];
  /** Every API version passed to Helm: built-in, plus every CRD in the repository or any render. */
  apiVersions: string[];
  tools?: string;
}

interface Invocation {
  bin: string;
  args: string[];
  cwd: string;
  /** Everything the output depends on, hashed into the cache key. */
  key: unknown;
  /** The key less the API versions: the same source in the next pass of one run (renderRepo) shares it. */
  sourceKey: unknown;
  /**
   * Its output is a function of the files in its key alone: one run answers the determinism check. So for a
   * kustomization with no remote input (the gate renders none with Helm charts, and passes no plugin flags).
   */
  pure?: boolean;
}

/** The first output of a source's last render in this run, what it split into, and whether its two renders agreed. */
interface EarlierRender {
  first: string;
  split: ReturnType<typeof splitRendered>;
  deterministic: boolean;
}

class NotRendered extends Error {}

function hash(value: unknown): string {
  // A file's bytes hash as they are: JSON.stringify of a Buffer is an array of numbers, many times its size.
  return createHash('sha256')
    .update(typeof value === 'string' || value instanceof Uint8Array ? value : JSON.stringify(value))
    .digest('hex');
}

function firstLines(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.slice(0, 3).join(' ').slice(0, 600);
}

/** The API versions of CRDs: both `group/version` and `group/version/Kind`, as Argo CD passes them. */
export function crdApiVersions(resources: Iterable<Resource>): string[] {
  const out = new Set<string>();
  for (const r of resources) {
    if (r.kind !== 'CustomResourceDefinition') continue;
    const spec = (r.object.spec ?? {}) as { group?: unknown; names?: { kind?: unknown }; versions?: { name?: unknown; served?: unknown }[] };
    if (typeof spec.group !== 'string' || typeof spec.names?.kind !== 'string') continue;
    for (const v of spec.versions ?? []) {
      if (typeof v.name !== 'string' || v.served === false) continue;
      out.add(`${spec.group}/${v.name}`);
      out.add(`${spec.group}/${v.name}/${spec.names.kind}`);
    }
  }
  return [...out];
}

/** `group/version` and `group/version/Kind` of every custom kind the plain manifests use. */
export function usedApiVersions(resources: Iterable<Resource>): string[] {
  const out = new Set<string>();
  for (const r of resources) {
    if (!r.apiVersion.includes('/') || r.rendered) continue;
    out.add(r.apiVersion);
    out.add(`${r.apiVersion}/${r.kind}`);
  }
  return [...out];
}

function sourceLabel(repo: Repo, source: AppSource): string {
  if (source.chart !== undefined) return `chart ${source.chart} ${source.targetRevision} from ${source.repoURL}`;
  const type = sourceType(repo, source);
  return type === 'kustomize' ? `kustomize ${normalizeSourcePath(source.path ?? '')}` : `chart at ${normalizeSourcePath(source.path ?? '')}`;
}

interface Context {
  repo: Repo;
  tools: RenderTools;
  lock: ChartLock;
  apiVersions: readonly string[];
  env: NodeJS.ProcessEnv;
  checkDeterminism: boolean;
  scratch: string;
  limits: RenderLimits;
  /** Real paths, each folder resolved once per run. */
  realPathOf: RealPathOf;
  /** Renders made in this run's earlier passes, by source key (Invocation.sourceKey). */
  earlier: Map<string, EarlierRender>;
  /** The Kubernetes version Helm renders for, unless an Application's helm block names one. */
  kubernetesVersion?: string;
}

function dataFileOf(repo: Repo, rel: string): DataFile {
  return repo.dataFiles.get(rel) ?? parseDataFile(rel, readFileSync(join(repo.root, rel), 'utf8'));
}

/** Resolves `valueFiles` the way Argo CD does: `$ref/...` from a ref source, anything else relative to the chart path. */
function valueFilesOf(ctx: Context, app: ArgoApp, source: AppSource): { abs: string; data: DataFile }[] {
  const out: { abs: string; data: DataFile }[] = [];
  for (const entry of source.helm?.valueFiles ?? []) {
    let rel: string;
    const ref = /^\$([^/]+)\/(.*)$/.exec(entry);
    if (ref) {
      const lender = app.sources.find((s) => s.ref === ref[1]);
      if (!lender) throw new Error(`value file ${entry}: no source of ${app.name} has ref: ${ref[1]}`);
      if (!isThisRepo(ctx.repo, lender))
        throw new NotRendered(`value file ${entry} comes from ${lender.repoURL}, another repository; the gate reads only this one`);
      rel = confinedRel(ref[2]!, `value file ${entry}`);
    } else if (/^[a-z]+:\/\//i.test(entry)) {
      throw new NotRendered(`value file ${entry} is a URL; the gate renders offline`);
    } else if (source.chart === undefined) {
      rel = confinedRel(`${normalizeSourcePath(source.path ?? '')}/${entry}`, `value file ${entry}`);
    } else {
      throw new NotRendered(`value file ${entry} lies inside the chart archive; the gate reads values only from this repository`);
    }
    const abs = join(ctx.repo.root, rel);
    if (!existsSync(abs)) {
      if (source.helm?.ignoreMissingValueFiles) continue;
      throw new Error(`value file ${entry} does not exist (${rel}); Argo CD fails the sync unless helm.ignoreMissingValueFiles is set`);
    }
    assertRealInside(abs, ctx.repo.root, `value file ${entry}`, ctx.realPathOf);
    assertSize(abs, ctx.limits.valuesBytes, `value file ${entry}`, 'HOMELAB_RENDER_MAX_VALUES_MIB');
    const data = dataFileOf(ctx.repo, rel);
    if (data.errors.length) throw new Error(`value file ${rel} does not parse: ${data.errors[0]}`);
    out.push({ abs, data });
  }
  return out;
}

/** The `helm template` call Argo CD 3 makes for a source (util/helm/cmd.go, in its order). */
function helmInvocation(
  ctx: Context,
  app: ArgoApp,
  source: AppSource,
  chartPath: string,
  chartKey: string,
  values: { abs: string; data: DataFile }[],
  chartReadsApiVersions: boolean,
): Invocation {
  const helm = source.helm ?? {};
  const args = ['template', chartPath, '--name-template', helm.releaseName ?? app.name];
  const namespace = helm.namespace ?? app.destinationNamespace;
  if (namespace) args.push('--namespace', namespace);
  const kubeVersion = helm.kubeVersion ?? ctx.kubernetesVersion;
  if (kubeVersion) args.push('--kube-version', kubeVersion);
  for (const p of helm.parameters ?? []) args.push(p.forceString ? '--set-string' : '--set', `${p.name}=${p.value}`);
  const fileParams = (helm.fileParameters ?? []).map((p) => {
    const abs = join(ctx.repo.root, confinedRel(`${normalizeSourcePath(source.path ?? '')}/${p.path}`, `file parameter ${p.name}`));
    if (existsSync(abs)) {
      assertRealInside(abs, ctx.repo.root, `file parameter ${p.name}`, ctx.realPathOf);
      assertSize(abs, ctx.limits.valuesBytes, `file parameter ${p.name}`, 'HOMELAB_RENDER_MAX_VALUES_MIB');
    }
    args.push('--set-file', `${p.name}=${abs}`);
    return existsSync(abs) ? readFileSync(abs, 'utf8') : '';
  });
  for (const v of values) args.push('--values', v.abs);
  let extra: string | undefined;
  if (helm.valuesObject !== undefined) extra = stringify(helm.valuesObject);
  else if (helm.values !== undefined) extra = helm.values;
  if (extra !== undefined) {
    const file = join(ctx.scratch, `${hash(extra).slice(0, 16)}-values.yaml`);
    writeFileSync(file, extra);
    args.push('--values', file);
  }
  for (const v of helm.apiVersions ?? ctx.apiVersions) args.push('--api-versions', v);
  if (!helm.skipCrds) args.push('--include-crds');
  if (helm.skipSchemaValidation) args.push('--skip-schema-validation');
  if (helm.skipTests) args.push('--skip-tests');
  const keyArgs = args.slice(2).map((a) => (values.some((v) => v.abs === a) || a.startsWith(ctx.scratch) ? '<file>' : a));
  const withoutApiVersions = keyArgs.filter((a, i) => a !== '--api-versions' && keyArgs[i - 1] !== '--api-versions');
  const inputs = { values: values.map((v) => readFileSync(v.abs, 'utf8')), extra, fileParams };
  const sourceKey = { tools: ctx.tools.versions, chartKey, args: withoutApiVersions, ...inputs };
  // A chart that cannot see --api-versions (nor can a values string it renders with tpl) renders the same whatever the
  // cluster serves: its key leaves them out, so the next pass, and the next run after a CRD arrives, find it cached.
  const readsApiVersions = chartReadsApiVersions || mayReadApiVersions('', JSON.stringify(sourceKey));
  const key = readsApiVersions ? { ...sourceKey, args: keyArgs } : { ...sourceKey, apiVersions: 'not read by the chart' };
  return { bin: ctx.tools.helm, args, cwd: ctx.scratch, key, sourceKey };
}

/** Content hash of files under a folder of the repository (a chart at a path). */
function folderKey(repo: Repo, dir: string): string {
  const prefix = `${dir}/`;
  const files = [...repo.files].filter((f) => f.startsWith(prefix)).sort();
  return hash(files.map((f) => [f, hash(readFileSync(join(repo.root, f)))]));
}

/** What the render tools may see of the environment beyond the hermetic basics: how to reach the network from a lab behind a proxy. */
export const PASSED_THROUGH = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'SSL_CERT_FILE', 'SSL_CERT_DIR'] as const;

/**
 * The environment Helm and kustomize run with: a hermetic Helm (no user
 * repositories, plugins or kubeconfig take part in a render), plus the proxy
 * and CA settings when set, so a lab behind a proxy can fetch a remote base.
 * Nothing else of the caller's environment (tokens, cloud credentials) reaches them.
 */
export function renderToolEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const home = join(cacheRoot(env), 'helm-home');
  const network = Object.fromEntries(PASSED_THROUGH.filter((k) => env[k] !== undefined && env[k] !== '').map((k) => [k, env[k]]));
  return {
    PATH: env.PATH ?? '',
    HOME: env.HOME ?? tmpdir(),
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
    KUBECONFIG: join(home, 'no-kubeconfig'),
    // Go's collector only past half a gigabyte: a render lives a fraction of a second, and collecting as it allocates
    // cost a sixth to a quarter of its CPU (kubectl kustomize 89 to 67 ms, helm template of kube-prometheus-stack
    // 0.48 to 0.41 s). Output does not depend on it; the largest render here peaked at 200 MB with it.
    GOGC: 'off',
    GOMEMLIMIT: '512MiB',
    ...network,
  };
}

const toolEnv = (ctx: Context) => renderToolEnv(ctx.env);

async function runTool(ctx: Context, inv: Invocation): Promise<string> {
  const tool = inv.bin.split('/').pop();
  try {
    // SIGKILL at the limit: Helm ignores SIGTERM, and a template loop would hold a core until the job dies.
    const { stdout } = await run(inv.bin, inv.args, {
      cwd: inv.cwd,
      env: toolEnv(ctx),
      maxBuffer: ctx.limits.outputBytes,
      encoding: 'utf8',
      timeout: ctx.limits.timeoutMs,
      killSignal: 'SIGKILL',
    });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string; killed?: boolean; signal?: string; code?: string };
    if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
      throw new RenderRefused(
        `${tool} printed more than ${ctx.limits.outputBytes / 1024 / 1024} MiB, the render output limit (HOMELAB_RENDER_MAX_OUTPUT_MIB); killed`,
      );
    if (e.killed || e.signal === 'SIGKILL')
      throw new RenderRefused(`${tool} did not finish within ${ctx.limits.timeoutMs / 1000} s, the render time limit (HOMELAB_RENDER_TIMEOUT); killed`);
    // Argo CD drops the (long) --api-versions list from errors too.
    throw new Error(firstLines(e.stderr || e.message).replace(/(--api-versions \S+ )+/g, '<api versions> '));
  }
}

function docKey(doc: RenderedDoc): string {
  const m = (doc.object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return `${scalarText(doc.object.apiVersion)}/${scalarText(doc.object.kind)}/${scalarText(m.namespace ?? '')}/${scalarText(m.name ?? '')}`;
}

/** Objects whose two renders differ (a randAlphaNum password, and the checksum it feeds). */
export function differences(first: string, second: string): Nondeterminism[] {
  if (first === second) return [];
  const a = splitRendered(first).docs;
  const b = new Map(splitRendered(second).docs.map((d) => [docKey(d), JSON.stringify(d.object)]));
  const out: Nondeterminism[] = [];
  for (const doc of a) {
    if (b.get(docKey(doc)) === JSON.stringify(doc.object)) continue;
    out.push({
      kind: String(doc.object.kind),
      name: scalarText(((doc.object.metadata ?? {}) as { name?: unknown }).name ?? ''),
      ...(doc.template ? { template: doc.template } : {}),
    });
  }
  return out.length ? out : [{ kind: '(output)', name: 'the order or number of objects' }];
}

/** A render as the cache keeps it: the objects already parsed (JSON reads far faster than YAML), or the tool's complaint about its output. */
interface CachedRender {
  docs: RenderedDoc[];
  problem?: string;
  nondeterministic: Nondeterminism[];
}

/**
 * Cache entries already read in this process, by file. Rendered objects are
 * never mutated (like parsed files), so a second tree that renders the same
 * inputs (a diff's other ref, a watch loop) reads nothing from disk. Bounded.
 */
const readEntries = new Map<string, unknown>();

function readEntry<T>(file: string): T | undefined {
  const known = readEntries.get(file);
  if (known !== undefined) return known as T;
  if (!existsSync(file)) return undefined;
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as T;
    readEntries.set(file, entry);
    if (readEntries.size > 256) readEntries.delete(readEntries.keys().next().value!);
    return entry;
  } catch {
    return undefined; // A torn entry is made again.
  }
}

/** Runs an invocation through the render cache; a miss renders (twice, to catch nondeterminism). */
async function cachedRun(ctx: Context, inv: Invocation, beforeRun?: () => Promise<void>): Promise<CachedRender> {
  const dir = join(cacheRoot(ctx.env), 'renders');
  const file = join(dir, `${hash(inv.key)}.json`);
  const cached = readEntry<CachedRender>(file);
  if (cached) return cached;
  await beforeRun?.();
  const first = await runTool(ctx, inv);
  // The determinism check renders twice. A later pass (the API versions grew) that prints, byte for byte, what this
  // source printed twice alike in an earlier pass has now printed it three times: the second run is not made again.
  const sourceKey = hash(inv.sourceKey);
  const earlier = ctx.earlier.get(sourceKey);
  const seenAlike = earlier?.deterministic === true && earlier.first === first;
  const nondeterministic = ctx.checkDeterminism && !seenAlike && !inv.pure ? differences(first, await runTool(ctx, inv)) : [];
  // The same text splits into the same objects: an earlier pass's are reused (that pass's renders are dropped for this one's).
  const split = earlier?.first === first ? earlier.split : splitRendered(first);
  ctx.earlier.set(sourceKey, { first, split, deterministic: nondeterministic.length === 0 });
  const { docs, problems } = split;
  const entry: CachedRender = { docs, nondeterministic, ...(problems.length ? { problem: problems[0]!.message } : {}) };
  writeFileAtomic(file, JSON.stringify(entry));
  return entry;
}

/** A chart's interface (defaults, templates, subcharts), read from its archive once per digest. */
async function cachedScope(ctx: Context, archive: string, digest: string): Promise<ChartScope> {
  const file = join(cacheRoot(ctx.env), 'scopes', `${digest.replace(/^sha256:/, '')}.json`);
  type Stored = Omit<ChartScope, 'subcharts'> & { subcharts: [string, Stored][] };
  const revive = (s: Stored): ChartScope => ({ ...s, subcharts: new Map(s.subcharts.map(([k, v]) => [k, revive(v)])) });
  const store = (s: ChartScope): Stored => ({ ...s, subcharts: [...s.subcharts].map(([k, v]) => [k, store(v)]) });
  const stored = readEntry<Stored>(file);
  if (stored) return revive(stored);
  const scope = await chartScopeFromArchive(archive, ctx.limits.unpackedBytes);
  writeFileAtomic(file, JSON.stringify(store(scope)));
  return scope;
}

async function renderHelm(ctx: Context, app: ArgoApp, source: AppSource, base: SourceRender): Promise<SourceRender> {
  let chartPath: string;
  let chartKey: string;
  let scope;
  const ref = chartRefOf(source);
  if (ref) {
    chartPath = cachedChartPath(ref, ctx.env);
    if (!existsSync(chartPath)) throw new NotRendered(`not in the chart cache: run ${PULL_COMMAND}`);
    assertSize(chartPath, ctx.limits.archiveBytes, `chart archive ${chartId(ref)}`, 'HOMELAB_RENDER_MAX_CHART_MIB');
    const digest = digestOf(readFileSync(chartPath));
    const locked = lockEntryFor(ctx.lock, ref);
    const pending = pendingEntryFor(ctx.lock, ref);
    if (!locked && pending)
      throw new Error(
        `chart ${chartId(ref)} has no digest in charts.lock.json yet (${pending.reason}): run ${PULL_COMMAND} -- --update-lock with network to record it`,
      );
    if (!locked) throw new Error(`chart ${chartId(ref)} has no entry in charts.lock.json: run ${PULL_COMMAND} to record its digest`);
    if (locked.digest !== digest)
      throw new Error(`cached chart ${chartPath} has digest ${digest}, but charts.lock.json records ${locked.digest}: delete it and run ${PULL_COMMAND}`);
    chartKey = digest;
    scope = await cachedScope(ctx, chartPath, digest);
  } else {
    const dir = confinedRel(normalizeSourcePath(source.path ?? ''), 'chart path');
    chartPath = join(ctx.repo.root, dir);
    // Helm follows a chart's symlinks (.Files.Get reads through them): none may leave the chart.
    assertRealInside(chartPath, ctx.repo.root, `chart path ${dir}`, ctx.realPathOf);
    if (existsSync(chartPath)) assertNoEscapingLinks(chartPath, chartPath, `chart at ${dir}`);
    chartKey = folderKey(ctx.repo, dir);
    const prefix = `${dir}/`;
    scope = chartScopeFromFiles(
      new Map([...ctx.repo.files].filter((f) => f.startsWith(prefix)).map((f) => [f.slice(prefix.length), readFileSync(join(ctx.repo.root, f), 'utf8')])),
    );
  }
  const values = valueFilesOf(ctx, app, source);
  const invocation = helmInvocation(ctx, app, source, chartPath, chartKey, values, scope.readsApiVersions !== false);
  const { docs, problem, nondeterministic } = await cachedRun(ctx, invocation);
  if (problem) throw new Error(problem);
  const data = values.map((v) => v.data);
  return {
    ...base,
    status: 'rendered',
    values: data,
    chart: scope,
    nondeterministic,
    resources: toResources({ app, source, label: base.label, docs, values: data, firstIndex: 0 }),
  };
}

/** Each remote base's lock entry, on a host the facts list; none is fetched when one is missing. */
function lockedRemotes(ctx: Context, urls: readonly string[]): RemoteEntry[] {
  return urls.map((url) => {
    assertAllowedHost(url, ctx.repo.facts?.remoteBases ?? []);
    const entry = remoteEntryFor(ctx.lock, url);
    // Not rendered, never fetched: chart-lock names the missing entry at the kustomization's line.
    if (!entry)
      throw new NotRendered(`the remote base ${url} has no digest in charts.lock.json: run ${PULL_COMMAND} to record it, after reading what it serves`);
    return entry;
  });
}

/** Why a fetch failed, when it failed for want of a network (kustomize's words or undici's codes); undefined otherwise. */
function networkCause(err: unknown): string | undefined {
  const detail = err as Error & { cause?: { code?: string; message?: string } };
  const cause =
    /(no such host|dial tcp[^;']*|connection refused|network is unreachable|i\/o timeout|TLS handshake[^;']*|temporary failure[^;']*|HTTP 5\d\d|could not resolve[^;']*|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|aborted due to timeout)/i.exec(
      `${detail.message} ${detail.cause?.code ?? ''} ${detail.cause?.message ?? ''}`,
    );
  return cause ? cause[1]!.trim().slice(0, 160) : undefined;
}

/**
 * A copy of the files a kustomize build reads, under `copy`, with each remote entry replaced by the file its URL
 * served, once that file's sha256 is the one the lock records. A mismatch is the render's failure, never a
 * fallback to the network.
 */
async function pinnedCopy(ctx: Context, files: readonly string[], remotes: readonly RemoteEntry[], copy: string): Promise<void> {
  const fetched = new Map<string, string>();
  for (const r of remotes) {
    const bytes = await fetchRemote(r.url, { env: ctx.env, timeoutMs: ctx.limits.timeoutMs, maxBytes: ctx.limits.outputBytes });
    const digest = remoteDigest(bytes);
    if (digest !== r.digest)
      throw new Error(
        `the remote base ${r.url} served content with digest ${digest}, but charts.lock.json records ${r.digest}: what Argo CD would fetch is not what was reviewed; read the change, then run ${PULL_COMMAND} -- --update-lock`,
      );
    const name = `remote-${digest.slice('sha256:'.length, 'sha256:'.length + 16)}.yaml`;
    fetched.set(r.url, name);
    mkdirSync(copy, { recursive: true });
    writeFileSync(join(copy, name), bytes);
  }
  for (const f of files) {
    const abs = join(ctx.repo.root, f);
    if (ctx.realPathOf(abs) === undefined) continue;
    let text = readFileSync(abs, 'utf8');
    const into = join(copy, f);
    mkdirSync(dirname(into), { recursive: true });
    if ((KUSTOMIZATION_FILES as readonly string[]).includes(basename(f)))
      for (const [url, name] of fetched) {
        if (!text.includes(url)) continue;
        // Beside the kustomization that names it: kustomize reads files only below its own root.
        copyFileSync(join(copy, name), join(dirname(into), name));
        text = text.split(url).join(name);
      }
    writeFileSync(into, text);
  }
}

/**
 * Renders whose remote base could not be fetched, by render key, for the life
 * of this process: a second tree in the same process (the diff's other ref,
 * a test's next mutation) does not wait for the network again. Never written
 * to disk: the next process tries again.
 */
const unreachable = new Map<string, string>();

async function renderKustomize(ctx: Context, app: ArgoApp, source: AppSource, base: SourceRender): Promise<SourceRender> {
  const dir = confinedRel(normalizeSourcePath(source.path ?? ''), 'kustomize path');
  if (source.kustomize && Object.keys(source.kustomize).length)
    throw new NotRendered(
      `the kustomize options of ${app.name} (${Object.keys(source.kustomize).join(', ')}) are not applied by the gate; move them into kustomization.yaml`,
    );
  const inputs = kustomizeInputs(ctx.repo, dir);
  if (inputs.unsupported) throw new NotRendered(inputs.unsupported);
  if (inputs.outside.length) throw new RenderRefused(`${inputs.outside[0]} leaves the repository; Argo CD refuses it`);
  assertRealInside(join(ctx.repo.root, dir), ctx.repo.root, `kustomize path ${dir}`, ctx.realPathOf);
  // The key holds every file the build can read (inputs.keyFiles), so a changed replacements source is a new render.
  // Every one is confined first: all of them are checked before any is read.
  for (const f of inputs.keyFiles) assertRealInside(join(ctx.repo.root, f), ctx.repo.root, f, ctx.realPathOf);
  const contents = inputs.keyFiles.map((f) => {
    const abs = join(ctx.repo.root, f);
    return [f, ctx.realPathOf(abs) === undefined ? 'missing' : hash(readFileSync(abs))];
  });
  // A remote file is pinned by its digest (render/remote-bases.ts): on a host the facts list, with a lock entry, and
  // part of the key as that digest, so a server that starts returning other bytes is a miss, fetched and refused.
  // kustomize is given no API versions: its key is the source's in every pass.
  const remotes = lockedRemotes(ctx, inputs.remote);
  const key = { tools: ctx.tools.versions, dir, contents, remote: remotes };
  // With remote bases, kustomize builds a copy whose remote entries name the files fetched and checked here.
  const copy = remotes.length ? join(ctx.scratch, `remote-${hash(key).slice(0, 16)}`) : undefined;
  const inv: Invocation = {
    bin: ctx.tools.kustomize.bin,
    args: ctx.tools.kustomize.buildArgs(join(copy ?? ctx.repo.root, dir)),
    cwd: copy ?? ctx.repo.root,
    key,
    sourceKey: key,
    pure: true,
  };
  let rendered: CachedRender;
  const unreachableKey = remotes.length ? hash(inv.key) : undefined;
  const known = unreachableKey && unreachable.get(unreachableKey);
  if (known) throw new NotRendered(known);
  try {
    rendered = await cachedRun(ctx, inv, async () => {
      // Only on a miss: a base fetched and checked once is rendered from the cache, network or not.
      if (!copy) return;
      const why = await unresolvable(inputs.remote, ctx.env);
      if (why) throw new Error(why);
      await pinnedCopy(ctx, inputs.keyFiles, remotes, copy);
    });
  } catch (err) {
    // Offline, a remote file cannot be fetched: not judged, and said so, rather than a failure of the repository.
    const cause = networkCause(err);
    if (unreachableKey && cause) {
      const message = `the remote base ${inputs.remote.join(', ')} cannot be fetched from here (${cause})`;
      unreachable.set(unreachableKey, message);
      throw new NotRendered(message);
    }
    throw err;
  }
  const { docs, problem, nondeterministic } = rendered;
  if (problem) throw new Error(problem);
  // Findings point into the repository: a value a local-config ConfigMap set (the kustomize analogue of a
  // values file) at that key, anything else at the same path of the template the object came from.
  const consumed = new Set(inputs.files);
  const inputsOf = ctx.repo.resources.filter((r) => consumed.has(r.file));
  const localConfig = inputsOf.filter(
    (r) => ((r.object.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations ?? {})['config.kubernetes.io/local-config'] === 'true',
  );
  const values: DataFile[] = localConfig.map((r) => ({
    file: r.file,
    data: r.object,
    positions: { at: (path, target) => r.positions.at(path, target) },
    errors: [],
  }));
  const byKind = Map.groupBy(
    inputsOf.filter((r) => !localConfig.includes(r)),
    (r) => `${r.apiVersion}/${r.kind}`,
  );
  const templateFor = (object: Record<string, unknown>) => {
    const candidates = byKind.get(`${String(object.apiVersion)}/${String(object.kind)}`) ?? [];
    const name = scalarText(((object.metadata ?? {}) as { name?: unknown }).name ?? '');
    // The template whose name shares the most dash-separated parts with the object's (app-db-backup for sonarr-db-backup).
    const score = (r: Resource) => r.name.split('-').filter((part) => name.split('-').includes(part)).length;
    const best = [...candidates].sort((a, b) => score(b) - score(a))[0];
    if (!best) return undefined;
    return { at: (path: Path, target: 'key' | 'value') => ({ ...best.positions.at(path, target), file: best.file }) };
  };
  return {
    ...base,
    status: 'rendered',
    nondeterministic,
    consumedFiles: inputs.files,
    resources: toResources({ app, source, label: base.label, docs, values, firstIndex: 0, templateFor }),
  };
}

async function renderSource(ctx: Context, app: ArgoApp, source: AppSource): Promise<SourceRender> {
  const base: SourceRender = {
    app,
    source,
    label: sourceLabel(ctx.repo, source),
    status: 'failed',
    resources: [],
    values: [],
    nondeterministic: [],
    consumedFiles: [],
  };
  try {
    return sourceType(ctx.repo, source) === 'kustomize' ? await renderKustomize(ctx, app, source, base) : await renderHelm(ctx, app, source, base);
  } catch (err) {
    return { ...base, status: err instanceof NotRendered ? 'not-rendered' : 'failed', message: (err as Error).message };
  }
}

function readSettled(file: string): string[] {
  try {
    const list = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function writeSettled(file: string, versions: string[]): void {
  writeFileAtomic(file, JSON.stringify(versions));
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}

/** The sources that need a tool: charts, charts at a path, kustomizations. */
export function renderableSources(repo: Repo): { app: ArgoApp; source: AppSource }[] {
  return applications(repo).flatMap((app) =>
    app.sources.filter((s) => ['chart', 'helm-path', 'kustomize'].includes(sourceType(repo, s))).map((source) => ({ app, source })),
  );
}

/** Each of `targets` as not rendered (or failed) with `message`, rendering nothing. */
function unrenderedAs(repo: Repo, targets: ReturnType<typeof renderableSources>, status: 'not-rendered' | 'failed', message: string): SourceRender[] {
  return targets.map(({ app, source }) => ({
    app,
    source,
    label: sourceLabel(repo, source),
    status,
    message,
    resources: [],
    values: [],
    nondeterministic: [],
    consumedFiles: [],
  }));
}

/** Every source that needs a tool, as not rendered with `message`: what --no-render reports instead of rendering. */
export function unrenderedSources(repo: Repo, message: string): SourceRender[] {
  return unrenderedAs(repo, renderableSources(repo), 'not-rendered', message);
}

/** Renders every Application source that needs a tool. The API versions grow with the CRDs renders produce, until they settle. */
export async function renderRepo(repo: Repo, options: RenderOptions): Promise<RenderResult> {
  const targets = renderableSources(repo).filter(({ app }) => !options.apps || options.apps.includes(app.name));
  if (targets.length === 0) return { renders: [], apiVersions: [] };
  const env = options.env ?? process.env;
  let tools: RenderTools;
  try {
    tools = await renderTools(env);
  } catch (err) {
    const message = `render tools unavailable: ${(err as Error).message}`;
    return { renders: unrenderedAs(repo, targets, 'not-rendered', message), apiVersions: [] };
  }
  const lock = readLock(repo.root);
  let limits: RenderLimits;
  try {
    limits = renderLimits(env);
  } catch (err) {
    return { renders: unrenderedAs(repo, targets, 'failed', (err as Error).message), apiVersions: [] };
  }
  const scratch = mkdtempSync(join(tmpdir(), 'homelab-render-'));
  const earlier = new Map<string, EarlierRender>();
  try {
    // The cluster serves what the repository's own manifests use (a plain ServiceMonitor means the
    // ServiceMonitor API exists, whichever app installs it), and the CRDs any render brings.
    // And what operators register at run time, as their Applications declare it (provides-crds-at-runtime).
    const plain = new Set([...options.builtinApiVersions, ...crdApiVersions(repo.resources), ...usedApiVersions(repo.resources), ...runtimeApiVersions(repo)]);
    // Start from the set the last run settled at (the fixpoint still checks it), so a warm run renders once.
    const settledFile = join(cacheRoot(env), 'renders', `settled-${hash(repo.root).slice(0, 16)}.json`);
    let apiVersions = [...new Set([...plain, ...readSettled(settledFile)])].sort();
    let renders: SourceRender[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const ctx: Context = {
        repo,
        tools,
        lock,
        apiVersions,
        env,
        checkDeterminism: options.checkDeterminism ?? true,
        scratch,
        limits,
        realPathOf: realPaths(),
        earlier,
        kubernetesVersion: options.kubernetesVersion ?? repo.facts?.kubernetesVersion,
      };
      renders = await pool(
        targets.map(
          ({ app, source }) =>
            () =>
              renderSource(ctx, app, source),
        ),
        Math.max(2, availableParallelism()),
      );
      const grown = [...new Set([...plain, ...crdApiVersions(renders.flatMap((r) => r.resources))])].sort();
      if (grown.join('\n') === apiVersions.join('\n')) break;
      apiVersions = grown;
    }
    // A partial render settles on part of the set: only a whole one may be remembered.
    if (!options.apps)
      writeSettled(
        settledFile,
        apiVersions.filter((v) => !plain.has(v)),
      );
    // One index per Application across its sources, so every rendered resource has a unique id.
    const nextIndex = new Map<string, number>();
    for (const r of renders) {
      const start = nextIndex.get(r.app.name) ?? 0;
      r.resources.forEach((res, i) => (res.rendered!.id = `${r.app.name}#${start + i}`));
      nextIndex.set(r.app.name, start + r.resources.length);
    }
    return { renders, apiVersions, tools: tools.versions };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
