/**
 * Kustomize sources: the build Argo CD makes, from a copy whose remote bases
 * are the files the lock pins (fetched and checked here, never trusted from
 * the network), with findings pointed back at the templates and local-config
 * values the objects came from.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { parse, stringify } from 'yaml';
import { normalizeSourcePath, type AppSource, type ArgoApp } from '../model/argocd/argocd.ts';
import { checkoutView, KUSTOMIZATION_FILES, kustomizationIn, kustomizeBuildOptions, kustomizeInputs } from '../model/argocd/kustomize.ts';
import { ARGOCD_CM_PATCH } from '../model/controller/resource-filter.ts';
import { applyKustomizeOptions, editOptions, kustomizeOptionsRefusal, withBuildEnv } from './kustomize-options.ts';
import { sourceApiVersions, sourceKubeVersion } from '../model/argocd/repo-server.ts';
import { argoEnvsubst } from '../model/argocd/source-files.ts';
import type { SourceRender } from '../model/argocd/rendered.ts';
import type { Positions, Resource } from '../model/core/manifest.ts';
import type { Path } from '../model/core/positions.ts';
import { scalarText } from '../model/core/text.ts';
import type { DataFile } from '../model/repository/repo.ts';
import { cachedRun, type CachedRender } from './cache.ts';
import { PULL_COMMAND, remoteEntryFor } from './charts.ts';
import { hash, NotRendered, type Context, type Invocation } from './context.ts';
import { assertRealInside, confinedRel, RenderRefused } from './limits.ts';
import { toResources } from './output.ts';
import { chartsRepeatable, helmBuildArgs, inflatedCharts, inflationKey, placeCharts } from './kustomize-helm.ts';
import { unresolvable } from './reachable.ts';
import { assertAllowedHost, fetchRemote, remoteDigest, type RemoteEntry } from './remote-bases.ts';

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

/** The components an Application adds, as folders of the repository; missing ones dropped when it says to ignore them. */
function addedComponents(ctx: Context, dir: string, options: Record<string, unknown>): { entry: string; rel: string }[] {
  const entries = Array.isArray(options.components) ? options.components.map((c) => scalarText(c)) : [];
  return (
    entries
      .map((entry) => ({ entry, rel: confinedRel(posix.normalize(dir ? `${dir}/${entry}` : entry), `kustomize component ${entry}`) }))
      // ignoreMissingComponents: Argo CD adds only the components whose folder the checkout holds (util/kustomize Build),
      // anywhere in it: the folder on disk, not the loader's list of the manifest roots.
      .filter(({ rel }) => options.ignoreMissingComponents !== true || statSync(join(ctx.repo.root, rel), { throwIfNoEntry: false }) !== undefined)
  );
}

/** The build's inputs with the Application's components' own. */
function withComponents(inputs: ReturnType<typeof kustomizeInputs>, more: ReturnType<typeof kustomizeInputs>[]): ReturnType<typeof kustomizeInputs> {
  const all = [inputs, ...more];
  const union = (pick: (i: ReturnType<typeof kustomizeInputs>) => readonly string[]) => [...new Set(all.flatMap(pick))].sort();
  return {
    ...inputs,
    files: union((i) => i.files),
    componentFiles: union((i) => i.componentFiles),
    keyFiles: union((i) => i.keyFiles),
    remote: union((i) => i.remote),
    outside: union((i) => i.outside),
    ...(all.find((i) => i.unsupported) ? { unsupported: all.find((i) => i.unsupported)!.unsupported } : {}),
    helmCharts: all.flatMap((i) => i.helmCharts),
  };
}

/** The Application's own options (namePrefix, images, patches, ...), which Argo CD edits into the kustomization first, and every file the build reads. */
function buildInputs(
  ctx: Context,
  { app, source }: { app: ArgoApp; source: AppSource },
  dir: string,
): { options?: Record<string, unknown>; inputs: ReturnType<typeof kustomizeInputs> } {
  const edits = source.kustomize && editOptions(source.kustomize);
  const written = edits && Object.keys(edits).length ? edits : undefined;
  const refused = written && kustomizeOptionsRefusal(written);
  if (refused) throw new RenderRefused(refused);
  const built = written && withBuildEnv(written, (text) => argoEnvsubst(text, app, source));
  if (built && 'sync' in built) throw new NotRendered(built.sync);
  const options = built?.options;
  // The whole checkout: a base or component outside the manifest roots is inside the repository all the same.
  const own = kustomizeInputs(checkoutView(ctx.repo), dir);
  const added = options ? addedComponents(ctx, dir, options) : [];
  return {
    // The components Argo CD adds: those it found, where it ignores the missing ones.
    options: options && Array.isArray(options.components) ? { ...options, components: added.map((c) => c.entry) } : options,
    inputs: added.length
      ? withComponents(
          own,
          added.map((c) => kustomizeInputs(checkoutView(ctx.repo), c.rel)),
        )
      : own,
  };
}

/** Argo CD's `kustomize edit` commands, made on the copy's kustomization (kustomize-options.ts). */
function editKustomization(ctx: Context, copy: string, dir: string, options: Record<string, unknown>): void {
  const file = kustomizationIn(checkoutView(ctx.repo), dir);
  if (!file) throw new Error('kustomization file not found in the path');
  const at = join(copy, file);
  const parsed: unknown = parse(readFileSync(at, 'utf8'), { merge: true });
  const kustomization = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  writeFileSync(at, stringify(applyKustomizeOptions(kustomization, options)));
}

/**
 * The options argocd-cm makes Argo CD add to every kustomize build that the gate builds with too (the load
 * restrictor, Helm inflation), as the repository's argocd-cm patch sets them: the install's own argocd-cm sets none.
 */
function buildOptionArgs(ctx: Context): string[] {
  const data = (ctx.repo.dataFiles.get(ARGOCD_CM_PATCH)?.data as { data?: Record<string, unknown> } | undefined)?.data;
  return kustomizeBuildOptions(data?.['kustomize.buildOptions']).args;
}

/**
 * Where findings on a build's objects point, in the repository: a value a local-config ConfigMap set (the kustomize
 * analogue of a values file) at that key, anything else at the same path of the template the object came from.
 */
function pointsInto(ctx: Context, files: readonly string[]): { values: DataFile[]; templateFor: (object: Record<string, unknown>) => Positions | undefined } {
  const consumed = new Set(files);
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
    // The template of the same name; else the one whose name ends as the object's does (a replacement or a prefix
    // rewrites a name's head: app-db-backup for sonarr-db-backup, app-config-restic for bazarr-4k-config-restic, not
    // the bazarr-4k-api-key beside it); else the one sharing the most dash-separated parts.
    const parts = name.split('-');
    const tail = (r: Resource) => {
      const own = r.name.split('-');
      let n = 0;
      while (n < own.length && n < parts.length && own[own.length - 1 - n] === parts[parts.length - 1 - n]) n++;
      return n;
    };
    const score = (r: Resource) => [r.name === name ? 1 : 0, tail(r), r.name.split('-').filter((part) => parts.includes(part)).length];
    const best = [...candidates].sort((a, b) => {
      const [x, y] = [score(a), score(b)];
      return y[0]! - x[0]! || y[1]! - x[1]! || y[2]! - x[2]!;
    })[0];
    if (!best) return undefined;
    return { at: (path: Path, target: 'key' | 'value') => ({ ...best.positions.at(path, target), file: best.file }) };
  };
  return { values, templateFor };
}

export async function renderKustomize(ctx: Context, app: ArgoApp, source: AppSource, base: SourceRender): Promise<SourceRender> {
  const dir = confinedRel(normalizeSourcePath(source.path ?? ''), 'kustomize path');
  const { options, inputs } = buildInputs(ctx, { app, source }, dir);
  if (inputs.unsupported) throw new NotRendered(inputs.unsupported);
  // The repo-server parses the source's Kubernetes version before every kustomize build, and fails the source on one it cannot.
  const kube = sourceKubeVersion(source, ctx.kubernetesVersion);
  if ('error' in kube) throw new RenderRefused(kube.error);
  const buildOptions = buildOptionArgs(ctx);
  const helm = buildOptions.includes('--enable-helm');
  if (inputs.helmCharts.length && !helm)
    throw new Error(
      `${inputs.helmCharts[0]!.file} inflates Helm charts (helmCharts), and argocd-cm's kustomize.buildOptions does not pass --enable-helm: kustomize refuses the build ("must specify --enable-helm"), in Argo CD as here`,
    );
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
  // kustomize is given no API versions unless it inflates Helm charts: then they are in its key, and only its source
  // key is the same in every pass (the charts may read them, as a Helm source's may).
  const remotes = lockedRemotes(ctx, inputs.remote);
  const charts = helm ? inflatedCharts(ctx, inputs.helmCharts) : [];
  const helmArgs =
    helm && inputs.helmCharts.length
      ? helmBuildArgs(ctx, buildOptions, { kubeVersion: kube.version, apiVersions: sourceApiVersions(source, ctx.apiVersions) })
      : [];
  const sourceKey = {
    tools: ctx.tools.versions,
    dir,
    contents,
    remote: remotes,
    ...(options ? { options } : {}),
    ...(buildOptions.length ? { buildOptions } : {}),
    ...(charts.length ? { charts: inflationKey(charts) } : {}),
  };
  const key = helmArgs.length ? { ...sourceKey, helmArgs: helmArgs.slice(2) } : sourceKey;
  // With remote bases, options to apply, or charts to put in place, kustomize builds a copy: its remote entries name
  // the files fetched and checked here, its kustomization carries the Application's edits, its chart homes the charts.
  const copy = remotes.length || options || charts.length ? join(ctx.scratch, `remote-${hash(key).slice(0, 16)}`) : undefined;
  const inv: Invocation = {
    bin: ctx.tools.kustomize.bin,
    args: [...ctx.tools.kustomize.buildArgs(join(copy ?? ctx.repo.root, dir)), ...buildOptions, ...helmArgs],
    cwd: copy ?? ctx.repo.root,
    key,
    sourceKey,
    // A chart's templates may print what changes from one render to the next (a random password): unless none can.
    pure: await chartsRepeatable(ctx, inputs.helmCharts, charts),
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
      if (options) editKustomization(ctx, copy, dir, options);
      await placeCharts(ctx, copy, charts);
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
  const { values, templateFor } = pointsInto(ctx, inputs.files);
  return {
    ...base,
    status: 'rendered',
    nondeterministic,
    madeOf: [`print ${rendered.key}`],
    consumedFiles: inputs.files,
    resources: toResources({ app, source, label: base.label, docs, values, firstIndex: 0, templateFor }),
  };
}
