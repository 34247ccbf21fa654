/**
 * What one render pass shares: the repository, the tools and their hermetic
 * environment, the lock, the limits, the API versions of this pass; and how
 * a tool is run under them. Helm (helm.ts) and kustomize (kustomize.ts)
 * render through it; the pass loop (render.ts) makes one per pass.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { normalizeSourcePath, type AppSource, type ArgoApp } from '../model/argocd/argocd.ts';
import { argoEnvsubst } from '../model/argocd/source-files.ts';
import type { Repo } from '../model/repository/repo.ts';
import type { ChartLock } from './charts.ts';
import { RenderRefused, type RealPathOf, type RenderLimits } from './limits.ts';
import type { ChunkMemo, splitRendered } from './output.ts';
import { cacheRoot, type RenderTools } from './tools.ts';

const run = promisify(execFile);

export interface Invocation {
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
  /** What the tool printed, made into the `---`-separated documents the cache splits (jsonnet prints one JSON value). */
  reshape?: (stdout: string) => string;
  /** The tool's name in messages, where `bin` only wraps it (prlimit). */
  tool?: string;
}

/** The first output of a source's last render in this run, and what it split into. */
export interface EarlierRender {
  first: string;
  split: ReturnType<typeof splitRendered>;
  /**
   * The full key (hashed) of a print whose second print is still owed: a pass that may not be the last one defers
   * the determinism check (its output is dropped if the API versions grow), and the pass that settles pays it.
   */
  owed?: string;
}

/** Argo CD would render it; the gate cannot, here: reported as not rendered, never as valid. */
export class NotRendered extends Error {}

/**
 * `text` with Argo CD's build environment substituted (argoEnvsubst), where the repo-server substitutes it (a Helm
 * parameter, jsonnet's variables); one that names the revision is known only at sync: the source is not rendered.
 */
export function substitutedBuildEnv(text: string, { app, source }: { app: ArgoApp; source: AppSource }, what: string): string {
  const out = argoEnvsubst(text, app, source);
  if (out === undefined) throw new NotRendered(`${what} names the revision Argo CD syncs, known only at sync time`);
  return out;
}

export function hash(value: unknown): string {
  // A file's bytes hash as they are: JSON.stringify of a Buffer is an array of numbers, many times its size.
  return createHash('sha256')
    .update(typeof value === 'string' || value instanceof Uint8Array ? value : JSON.stringify(value))
    .digest('hex');
}

export function firstLines(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.slice(0, 3).join(' ').slice(0, 600);
}

/** The sources that need a tool: a chart from a chart repository, a chart at a path, a kustomization, a directory's jsonnet. */
export type ToolSource = 'chart' | 'helm-path' | 'kustomize' | 'jsonnet';

/** How a source is named in messages, by the type the render tier found for it (render.ts RenderTarget). */
export function sourceLabel(source: AppSource, type: ToolSource): string {
  if (source.chart !== undefined) return `chart ${source.chart} ${source.targetRevision} from ${source.repoURL}`;
  const path = normalizeSourcePath(source.path ?? '');
  return type === 'kustomize' ? `kustomize ${path}` : type === 'jsonnet' ? `jsonnet in ${path || '.'}` : `chart at ${path}`;
}

export interface Context {
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
  /**
   * Defer the determinism check's second print to the pass that settles (render.ts): a print this pass makes is
   * kept here, uncached, and its source key added to `owed`, unless an earlier pass printed the same bytes.
   */
  deferDeterminism: boolean;
  /** The source keys this context left owing a second print (one set per source: render.ts gives each its own). */
  owed: Set<string>;
  /** Output chunks already parsed in this run, by their text: a pass whose API versions grew reparses only what changed. */
  chunks: ChunkMemo;
  /** Charts whose dependencies this run built (helm-dependencies.ts), by the chart's key: the copy's chart folder. */
  builtCharts: Map<string, Promise<string>>;
  /** The Kubernetes version Helm renders for, unless an Application's helm block names one. */
  kubernetesVersion?: string;
}

/** What the render tools may see of the environment beyond the hermetic basics: how to reach the network from a lab behind a proxy. */
export const PASSED_THROUGH = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'SSL_CERT_FILE', 'SSL_CERT_DIR'] as const;

const helmHome = (env: NodeJS.ProcessEnv) => join(cacheRoot(env), 'helm-home');

/** Helm's own folders in the cache, never the user's: the renders and `npm run charts:pull` use the same ones. */
export function helmHomes(env: NodeJS.ProcessEnv): { HELM_CACHE_HOME: string; HELM_CONFIG_HOME: string; HELM_DATA_HOME: string } {
  const home = helmHome(env);
  return { HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
}

/**
 * The environment Helm and kustomize run with: a hermetic Helm (no user
 * repositories, plugins or kubeconfig take part in a render), plus the proxy
 * and CA settings when set, so a lab behind a proxy can fetch a remote base.
 * Nothing else of the caller's environment (tokens, cloud credentials) reaches them.
 */
export function renderToolEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const network = Object.fromEntries(PASSED_THROUGH.filter((k) => env[k] !== undefined && env[k] !== '').map((k) => [k, env[k]]));
  return {
    PATH: env.PATH ?? '',
    HOME: env.HOME ?? tmpdir(),
    ...helmHomes(env),
    KUBECONFIG: join(helmHome(env), 'no-kubeconfig'),
    // Go's collector only past half a gigabyte: a render lives a fraction of a second, and collecting as it allocates
    // cost a sixth to a quarter of its CPU (kubectl kustomize 89 to 67 ms, helm template of kube-prometheus-stack
    // 0.48 to 0.41 s). Output does not depend on it; the largest render here peaked at 200 MB with it.
    GOGC: 'off',
    GOMEMLIMIT: '512MiB',
    ...network,
  };
}

const toolEnv = (ctx: Context) => renderToolEnv(ctx.env);

export async function runTool(ctx: Context, inv: Invocation): Promise<string> {
  const tool = inv.tool ?? inv.bin.split('/').pop();
  let stdout: string;
  try {
    // SIGKILL at the limit: Helm ignores SIGTERM, and a template loop would hold a core until the job dies.
    ({ stdout } = await run(inv.bin, inv.args, {
      cwd: inv.cwd,
      env: toolEnv(ctx),
      maxBuffer: ctx.limits.outputBytes,
      encoding: 'utf8',
      timeout: ctx.limits.timeoutMs,
      killSignal: 'SIGKILL',
    }));
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
  return inv.reshape ? inv.reshape(stdout) : stdout;
}
