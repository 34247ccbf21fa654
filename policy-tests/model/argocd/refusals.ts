/**
 * What Argo CD's repo-server would read for an Application that the gate
 * does not take as written (repo-server.ts): a source parameter file it fails
 * on, or whose keys it drops or ignores (it merges the others, and so does the
 * gate), the hidden files its directory walk applies, sources it hands to a plugin or refuses, and a source hydrator,
 * whose branch Argo CD syncs in place of the sources. One list, read by
 * the policy check (checks/argocd/repo-server.ts) and by the rendered diff,
 * which reports such an Application as not judged.
 */
import type { ParsedFile } from '../core/manifest.ts';
import { perObject } from '../core/per-object.ts';
import type { PathSegment } from '../core/positions.ts';
import { checkoutPathSet, checkoutTree, type Repo } from '../repository/repo.ts';
import { perRepo } from '../repository/per-repo.ts';
import { applications, filesOfSource, isThisRepo, normalizeSourcePath, sourceType, type AppSource, type ArgoApp } from './argocd.ts';
import { claimingPlugins } from './cmp-plugins.ts';
import { jsonnetClosure, jsonnetLibraryPaths } from './jsonnet.ts';
import { checkoutView, kustomizeInputs } from './kustomize.ts';
import { valueFilesOf } from './source-files.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsedQuantityValue } from '../go/quantity.ts';
import { sizeOnDisk } from '../repository/directory-source.ts';
import {
  appliedFileRefusal,
  combinedSizeProblem,
  DEFAULT_MAX_COMBINED_MANIFESTS_BYTES,
  explicitTool,
  MAX_COMBINED_MANIFESTS_KEY,
  outOfBoundsLinks,
  sourceParameterFiles,
} from './repo-server.ts';

export type Refusal =
  /** A file of the checkout Argo CD reads for the app (at a line of it, where one is known). */
  (
    | { file: string; line?: number }
    /** A place in the Application itself. */
    | { path: PathSegment[] }
  ) & {
    message: string;
    /** What mends this one refusal, printed with it. */
    fix: string;
    /** What Argo CD would make of it is unknown here (merged options, a plugin): the diff cannot vouch for the app. A hidden file is read and judged, only refused. */
    unread: boolean;
  };

/**
 * argocd-cmd-params-cm's data as the repository applies it: what the repo-server's and the ApplicationSet
 * controller's Deployments read their flags from.
 */
export const argocdCmdParams = perRepo(
  (repo: Repo): Record<string, unknown> | undefined =>
    repo.resources.find((r) => r.kind === 'ConfigMap' && r.name === 'argocd-cmd-params-cm')?.object.data as Record<string, unknown> | undefined,
);

/**
 * A switch of argocd-cmd-params-cm as a Deployment of Argo CD reads it from its environment (util/env
 * ParseBoolFromEnv): "true" or "false" in any case; anything else, or nothing, keeps the default (false unless given).
 */
export function cmdParamsSwitch(repo: Repo, key: string, byDefault = false): boolean {
  const value = argocdCmdParams(repo)?.[key];
  const said = typeof value === 'string' ? value.toLowerCase() : undefined;
  return said === 'true' ? true : said === 'false' ? false : byDefault;
}

/**
 * A list of argocd-cmd-params-cm as a Deployment of Argo CD reads it from its environment (util/env StringsFromEnv):
 * split on commas, each entry trimmed; none where the key is absent or empty.
 */
export function cmdParamsList(repo: Repo, key: string): string[] {
  const value = argocdCmdParams(repo)?.[key];
  return typeof value === 'string' && value !== '' ? value.split(',').map((entry) => entry.trim()) : [];
}

/** argocd-cmd-params-cm's key the ApplicationSet controller reads ARGOCD_APPLICATIONSET_CONTROLLER_DRY_RUN from. */
export const APPSET_DRY_RUN_KEY = 'applicationsetcontroller.dryrun';

/** argocd-cmd-params-cm's key the repo-server reads ARGOCD_REPO_SERVER_INCLUDE_HIDDEN_DIRECTORIES from. */
export const HIDDEN_DIRECTORIES_KEY = 'reposerver.include.hidden.directories';

/**
 * The repo-server's limit on a directory source's combined manifest size: argocd-cmd-params-cm's
 * reposerver.max.combined.directory.manifests.size as the repository applies it (its Deployment reads the key), else
 * 10M. A value the repo-server cannot parse stops it from starting, no source's fault: the default is kept. Once per
 * repository: every directory source asks.
 */
const maxCombinedManifestsBytes = perRepo((repo: Repo): number => {
  const bytes = parsedQuantityValue(argocdCmdParams(repo)?.[MAX_COMBINED_MANIFESTS_KEY]);
  return bytes === undefined || bytes < 0 ? DEFAULT_MAX_COMBINED_MANIFESTS_BYTES : Math.floor(bytes);
});

/** A read file's size, from the text the loader read (what a link names, as Argo CD counts it), once per parsed file. */
const bytesOf = perObject((p: ParsedFile): number => Buffer.byteLength(p.text));

/** The repository's read files by path: no file is read again for its size. */
const parsedByFile = perRepo((repo: Repo): Map<string, ParsedFile> => new Map(repo.parsed.filter((p) => !p.renderedBy).map((p) => [p.file, p])));

const fileBytes = (repo: Repo, file: string): number => {
  const parsed = parsedByFile(repo).get(file);
  return parsed ? bytesOf(parsed) : sizeOnDisk(join(repo.root, file));
};

/** What Helm reads of a chart folder as the chart itself (chart/loader): its metadata, values, schema, templates, CRDs and subcharts. */
const CHART_PARTS = /^(Chart\.yaml|Chart\.lock|requirements\.(yaml|lock)|values\.yaml|values\.schema\.json|(templates|crds|charts)\/.+)$/;

/**
 * The files of this checkout whose content one source's manifests are made from, as Argo CD's repo-server makes them:
 * its value files (those a `$ref` source lends too); a local chart's parts, and every file of it where a template
 * reads files (`.Files`); what its kustomizations read; and what its jsonnet imports. The manifests a directory source
 * applies are the loader's own. A file only lying in the folder (a chart's icon, a README) makes nothing.
 */
function contentFilesOf(repo: Repo, app: ArgoApp, source: AppSource): string[] {
  const files = valueFilesOf(repo, app, source).flatMap((v) => ('rel' in v ? [v.rel] : []));
  if (source.path === undefined || !isThisRepo(repo, source)) return files;
  const path = normalizeSourcePath(source.path);
  const type = sourceType(repo, source);
  if (type === 'kustomize') files.push(...kustomizeInputs(checkoutView(repo), path).files);
  if (type === 'directory') files.push(...jsonnetInputs(repo, source));
  if (type === 'helm-path') {
    const chart = checkoutTree(repo).filter((f) => path === '' || f.startsWith(`${path}/`));
    const inChart = (f: string) => (path === '' ? f : f.slice(path.length + 1));
    const templates = chart.filter((f) => inChart(f).startsWith('templates/'));
    const readsFiles = templates.some((f) => /\.Files\b/.test(textOf(repo, f)));
    files.push(...(readsFiles ? chart : chart.filter((f) => CHART_PARTS.test(inChart(f)))));
  }
  return files;
}

/** A checkout file's text, or nothing where it cannot be read as one (gone, a folder a link names). */
function textOf(repo: Repo, file: string): string {
  try {
    return readFileSync(join(repo.root, file), 'utf8');
  } catch {
    return '';
  }
}

/** What the jsonnet files of a directory source can import, as the render finds them (up to an import out of the repository). */
export function jsonnetInputs(repo: Repo, source: AppSource): string[] {
  const jsonnet = filesOfSource(repo, source).filter((f) => f.endsWith('.jsonnet'));
  if (!jsonnet.length) return [];
  const { jpaths } = jsonnetLibraryPaths(source);
  const known = checkoutPathSet(repo);
  const files = {
    kind: (rel: string) => (known.has(rel) ? ('file' as const) : undefined),
    read: (rel: string) => textOf(repo, rel),
  };
  return jsonnet.flatMap((f) => {
    const closure = jsonnetClosure(f, jpaths, files);
    return [...closure.code, ...closure.data];
  });
}

/**
 * The Git LFS pointers an app's manifests are made from, other than manifests (the loader refuses those itself). Argo CD's checkout
 * puts the object a pointer names in its place where the repository's credentials enable LFS (util/git `Checkout`:
 * `git lfs fetch --all`, `git lfs checkout`; `enableLfs`, which may be set outside this repository), and reads the
 * pointer's text where they do not: the gate, which sees only the pointer, cannot say which, nor judge the object.
 */
function lfsRefusals(repo: Repo, app: ArgoApp): Refusal[] {
  const pointers = new Set(repo.checkout?.lfsPointers ?? []);
  if (pointers.size === 0) return [];
  const read = new Set(app.sources.flatMap((s) => contentFilesOf(repo, app, s)));
  return [...read]
    .filter((f) => pointers.has(f) && !parsedByFile(repo).has(f))
    .sort()
    .map((file) => ({
      file,
      unread: true,
      fix: 'commit the file outside Git LFS, or judge a checkout that holds its LFS objects (git lfs pull)',
      message: `${file} is a Git LFS pointer, which Application ${app.name} reads: Argo CD's checkout puts the object it names there where the repository's credentials enable LFS (enableLfs), and reads this text where they do not; the gate sees only the pointer, so what the app makes of the file is not judged`,
    }));
}

export function refusalsOf(repo: Repo, app: ArgoApp): Refusal[] {
  const paths = checkoutPathSet(repo);
  const out: Refusal[] = lfsRefusals(repo, app);
  // A source hydrator replaces source and sources (HasMultipleSources, GetSource): Argo CD syncs the manifests its
  // commit server wrote to another branch, which no checkout of main holds.
  if (app.resource.object.spec && typeof app.resource.object.spec === 'object' && 'sourceHydrator' in app.resource.object.spec)
    out.push({
      path: ['spec', 'sourceHydrator'],
      unread: true,
      fix: 'sync the Application from its source, where the gate judges what it applies: drop spec.sourceHydrator',
      message: `Argo CD syncs Application ${app.name} from the branch its source hydrator writes (spec.sourceHydrator), not from its source: what that branch holds would reach the cluster unjudged`,
    });
  for (const source of app.sources) {
    if (source.chart !== undefined || source.path === undefined || !isThisRepo(repo, source)) continue;
    const appPath = normalizeSourcePath(source.path);
    const parameterFiles = sourceParameterFiles(paths, appPath, app.name);
    // Merged as the repo-server merges them (source-parameters.ts): what it fails on fails the source, and a key it
    // drops or ignores is one a reviewer would take for set.
    for (const p of source.parameterFiles?.problems ?? [])
      out.push({
        file: p.file,
        ...(p.line === undefined ? {} : { line: p.line }),
        // A source Argo CD fails applies nothing: the diff cannot say what the app would become.
        unread: p.fails,
        fix: p.fails
          ? 'write the file as Argo CD decodes it: the field names and types of its ApplicationSource'
          : 'set only what Argo CD merges from the file, or put the option in the Application itself',
        message: p.fails
          ? `Argo CD fails the source of Application ${app.name}: error while parsing source parameters: ${p.file}: ${p.message}`
          : `${p.file}, which Argo CD merges into the source of Application ${app.name}: ${p.message}`,
      });
    const type = sourceType(repo, source);
    for (const { container, how } of claimingPlugins(repo, source))
      out.push({
        path: [...source.at, 'path'],
        unread: true,
        fix: 'name the tool in the source (helm, kustomize or directory), or give the plugin a discovery this folder does not match',
        message: `Argo CD offers ${source.path} to the repo-server's plugin sidecar ${container} before it picks ${type === 'directory' ? 'a directory' : type === 'helm-path' ? 'Helm' : 'kustomize'}, and ${how}: the plugin's command would generate what reaches the cluster, which the gate cannot run`,
      });
    if (type === 'conflicting')
      out.push({ path: source.at, unread: true, fix: 'give the source one tool block', message: `Argo CD refuses this source: ${explicitTool(source).error}` });
    if (type === 'plugin')
      out.push({
        path: [...source.at, 'plugin'],
        unread: true,
        fix: 'generate the manifests with a tool Argo CD runs itself (Helm, kustomize, a directory of YAML or jsonnet), or commit what the plugin yields',
        message: `Argo CD hands ${source.path} to a config management plugin, which the gate cannot run: what it yields would reach the cluster unjudged`,
      });
    if (type !== 'directory') continue;
    const tooBig = combinedSizeProblem(filesOfSource(repo, source), (file) => fileBytes(repo, file), maxCombinedManifestsBytes(repo));
    if (tooBig)
      out.push({
        path: [...source.at, 'path'],
        unread: false,
        fix: `split the folder into sources within the limit, or raise argocd-cmd-params-cm ${MAX_COMBINED_MANIFESTS_KEY}`,
        message: `Argo CD fails the source of Application ${app.name}: ${tooBig}`,
      });
    for (const file of filesOfSource(repo, source)) {
      const why = appliedFileRefusal(file);
      if (why && !parameterFiles.includes(file))
        out.push({
          file,
          unread: false,
          fix: 'give the manifest a plain name, or exclude it from the directory source',
          message: `${why} (Application ${app.name})`,
        });
    }
  }
  return out;
}

/** argocd-cmd-params-cm's key the repo-server's Deployment reads ARGOCD_GIT_MODULES_ENABLED from. */
export const SUBMODULES_KEY = 'reposerver.enable.git.submodule';

/**
 * Whether Argo CD's repo-server updates submodules: ARGOCD_GIT_MODULES_ENABLED, from argocd-cmd-params-cm as the
 * repository applies it, read as util/env ParseBoolFromEnv reads it (true or false in any case; anything else, or
 * nothing, keeps the default, true).
 */
export const submodulesEnabled = perRepo((repo: Repo): boolean => {
  const value = argocdCmdParams(repo)?.[SUBMODULES_KEY];
  return typeof value === 'string' && value.toLowerCase() === 'false' ? false : true;
});

/**
 * The submodules Argo CD's checkout brings in (util/git/client.go `Checkout`: with `.gitmodules` at the root,
 * `git submodule update --init --recursive`): another repository's files at a commit, which any source reaching the
 * path applies and the gate never reads; and a gitlink `.gitmodules` does not name, on which the update fails, and
 * with it every source of this repository. None where the repo-server does not update submodules.
 */
export function submoduleRefusals(repo: Repo): { line: number; message: string; fix: string }[] {
  const submodules = repo.checkout?.submodules ?? [];
  if (submodules.length === 0 || !submodulesEnabled(repo)) return [];
  return submodules.flatMap((s) => {
    if (s.line === undefined)
      return [
        {
          line: 1,
          fix: `name the submodule in .gitmodules, or take the gitlink out of the index (git rm --cached ${s.path})`,
          message: `git's index holds a submodule at ${s.path} that .gitmodules does not name: Argo CD's checkout runs git submodule update, which fails on it, and with it every source of this repository`,
        },
      ];
    if (s.gitlink === false) return [];
    return [
      {
        line: s.line,
        fix: `commit what the submodule holds into this repository, or set argocd-cmd-params-cm ${SUBMODULES_KEY}: "false"`,
        message: `Argo CD's checkout fetches the submodule at ${s.path}${s.url ? ` (${s.url})` : ''} (git submodule update --init --recursive, argocd-cmd-params-cm ${SUBMODULES_KEY} true by default): another repository's files at a commit, which a source reaching ${s.path} applies and the gate never reads`,
      },
    ];
  });
}

/** argocd-cmd-params-cm's key the repo-server's Deployment reads ARGOCD_REPO_SERVER_ALLOW_OUT_OF_BOUNDS_SYMLINKS from. */
export const OOB_SYMLINKS_KEY = 'reposerver.allow.oob.symlinks';

/**
 * The checkout's symlinks Argo CD's repo-server refuses (outOfBoundsLink), unless argocd-cmd-params-cm allows them
 * (ParseBoolFromEnv: "true" in any case; anything else keeps the default, false). It checks the whole checkout
 * before it reads any source, so one such link anywhere, in a folder no Application reads too, fails every source of
 * this repository, the root app's among them: nothing syncs until it is gone. Each one, in the order its walk meets them.
 */
export function symlinkRefusals(repo: Repo): { file: string; message: string; fix: string }[] {
  if (cmdParamsSwitch(repo, OOB_SYMLINKS_KEY)) return [];
  return outOfBoundsLinks(repo.checkout?.links ?? []).map(({ path, target, why }) => ({
    file: path,
    fix: 'replace the symlink by the file itself, or by a relative link that stays inside the repository',
    message: `${path} is a symlink to ${target}, which ${why === 'absolute' ? 'is absolute' : 'steps out of the repository'}: Argo CD's repo-server checks every symlink of the checkout before it reads any source, and fails every source of this repository (repository contains out-of-bounds symlinks. file: ${path}; argocd-cmd-params-cm ${OOB_SYMLINKS_KEY} false by default): nothing syncs, the root app included`,
  }));
}

/** argocd-cm's switches of manifest generation (util/settings `sourceTypeToEnableGenerationKey`) for the tools the gate renders. */
const GENERATION_KEYS = [
  { key: 'helm.enable', tool: 'Helm', types: ['chart', 'helm-path'] },
  { key: 'kustomize.enable', tool: 'Kustomize', types: ['kustomize'] },
] as const;

/**
 * Sources argocd-cm takes a tool from: where `helm.enable` or `kustomize.enable` holds anything but "true"
 * (GetEnabledSourceTypes; unset or empty keeps it on), the repo-server generates no manifests with that tool and
 * applies the source's folder as plain YAML (GetAppSourceType: IsManifestGenerationEnabled), a chart's templates
 * among them; the gate renders them with the tool. Each switch that turns off a tool some source needs, with those
 * sources' Applications. `jsonnet.enable` is the render tier's to read (it evaluates jsonnet only where Argo CD does).
 */
export function disabledToolRefusals(
  repo: Repo,
  argocdCm: Record<string, unknown> | undefined,
): { key: string; apps: string[]; message: string; fix: string }[] {
  return GENERATION_KEYS.flatMap(({ key, tool, types }) => {
    const value = argocdCm?.[key];
    if (value === undefined || value === null || value === '' || value === 'true') return [];
    const apps = [...new Set(applicationsByType(repo, types))].sort();
    if (apps.length === 0) return [];
    return [
      {
        key,
        apps,
        fix: `remove ${key} from argocd-cm (or set it to "true"), or commit those sources as plain YAML`,
        message: `argocd-cm sets ${key} to ${JSON.stringify(value)}: Argo CD generates no ${tool} manifests, and applies the folder of each ${tool} source as plain YAML, where the gate renders it with ${tool} (${apps.join(', ')})`,
      },
    ];
  });
}

function applicationsByType(repo: Repo, types: readonly string[]): string[] {
  return applications(repo).flatMap((app) => (app.sources.some((s) => types.includes(sourceType(repo, s))) ? [app.name] : []));
}
