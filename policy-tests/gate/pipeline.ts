/**
 * Load and render, once, for everything that needs the repository as Argo CD
 * applies it: the gate and the rendered diff's snapshots run this same
 * pipeline, so the two cannot disagree about what a tree renders to.
 */
import { loadRepo, readingBeyond, type Repo } from '../model/repository/repo.ts';
import { withRendered, type SourceRender } from '../model/argocd/rendered.ts';
import type { ParsedFile } from '../model/core/manifest.ts';
import { SchemaLayer } from '../schema/schema-layer.ts';
import { renderRepo, unrenderedSources } from '../render/render.ts';
import { renderGoTemplates } from '../render/go-template.ts';
import { expandApplicationSets, withRenderedApplicationSets, type GoTemplateEngine } from '../model/appset/expand.ts';
import { controllerComparison } from '../model/appset/outcomes.ts';
import { applications, owningApplication } from '../model/argocd/argocd.ts';
import { resolveJqExpressions } from '../model/compare/ignore-differences.ts';
import { argocdSettings } from '../model/controller/resource-filter.ts';

let sharedLayer: Promise<SchemaLayer> | undefined;
/** The schema layer, built once per process: it is the costly part of start-up, and it holds no per-tree state. */
export function schemaLayer(): Promise<SchemaLayer> {
  return (sharedLayer ??= SchemaLayer.create());
}

export interface LoadedTree {
  /** The tree's own files, before any render. */
  plain: Repo;
  layer: SchemaLayer;
}

export interface RenderedTree extends LoadedTree {
  renders: SourceRender[];
  /** The render tools' versions, for the report. */
  tools?: string;
  /** The tree with every rendered object in it, as Argo CD would apply it. */
  repo: Repo;
  parsed: ParsedFile[];
}

/**
 * The tree's own files, with the Applications its ApplicationSets make put in as Applications it declares
 * (model/appset/expand.ts): Go templates rendered by the render tier's engine, unless `render` is false.
 */
export async function loadTree(root: string, options: { parallel?: boolean; env?: NodeJS.ProcessEnv; render?: boolean } = {}): Promise<LoadedTree> {
  const own = await loadRepo(root, { parallel: options.parallel });
  const engine: GoTemplateEngine | undefined = options.render === false ? undefined : (jobs) => renderGoTemplates(jobs, options.env);
  // The folders the Applications an ApplicationSet makes sync are read too, wherever they stand, as Argo CD reads them.
  const { applied: plain } = await readingBeyond(own, (repo) => expandApplicationSets(repo, engine), { parallel: options.parallel });
  return { plain, layer: await schemaLayer() };
}

/** How deep Applications that renders make are followed: an app of apps written as a chart, and one more level or so. */
const MADE_APP_DEPTH = 4;

export async function renderTree(loaded: LoadedTree, env?: NodeJS.ProcessEnv, kubernetesVersion?: string): Promise<RenderedTree> {
  const options = { builtinApiVersions: loaded.layer.builtinApiVersions(), env, kubernetesVersion };
  const engine: GoTemplateEngine = (jobs) => renderGoTemplates(jobs, env);
  const first = await renderRepo(loaded.plain, options);
  let renders = first.renders;
  // The tree with the renders in it, and what the ApplicationSets a render makes or changes make (model/appset/expand.ts);
  // what an Application a render makes syncs beyond the manifest roots is read too, as Argo CD reads any path.
  let plain = loaded.plain;
  let repo = loaded.plain;
  const settle = async () => {
    ({ own: plain, applied: repo } = await readingBeyond(plain, async (own) => withRenderedApplicationSets(withRendered(own, renders).repo, engine)));
  };
  await settle();
  // An Application a render makes (an app of apps written as a chart) is synced by Argo CD like any other: its sources
  // are rendered too, level by level. Past the depth, what is left is not rendered; a name taken twice is a duplicate
  // (duplicate-resource), rendered once.
  const seen = new Set(applications(loaded.plain).map((a) => a.name));
  for (let depth = 0; ; depth++) {
    const made = [...new Set(applications(repo).map((a) => a.name))].filter((name) => !seen.has(name));
    if (made.length === 0) break;
    for (const name of made) seen.add(name);
    const more =
      depth < MADE_APP_DEPTH
        ? (await renderRepo(repo, { ...options, apps: made })).renders
        : unrenderedSources(
            repo,
            `an Application ${MADE_APP_DEPTH + 1} renders deep: the gate renders Applications that renders make ${MADE_APP_DEPTH} deep`,
          ).filter((r) => made.includes(r.app.name));
    renders = [...renders, ...more];
    await settle();
  }
  await resolveIgnoredJq(repo);
  return { ...loaded, plain, renders, tools: first.tools, repo, parsed: [...repo.parsed] };
}

/**
 * Has jq name the fields each jq expression of ignoreDifferences deletes of the objects it points at, so the checks
 * and the diff read them as Argo CD's comparison does (model/compare/ignore-differences.ts). Nothing runs where the
 * repository writes no jq expression.
 */
async function resolveIgnoredJq(repo: Repo): Promise<void> {
  // An Application an ApplicationSet made is compared by its controller's settings (model/appset/outcomes.ts).
  const objects = () =>
    repo.resources.flatMap((r) => {
      const app = owningApplication(repo, r);
      return app ? [{ object: r.object, appSpec: controllerComparison(r) ?? app.resource.object.spec }] : [];
    });
  await resolveJqExpressions(
    objects,
    [...applications(repo).map((a) => a.resource.object.spec), ...repo.resources.flatMap((r) => controllerComparison(r) ?? [])],
    argocdSettings(repo.resources, repo)?.data,
  );
}

/**
 * The named Applications rendered with the cluster's built-in API versions alone, no CRD and nothing declared: what
 * a chart that can read the API versions makes when it sees none of the repository's. The rendered diff compares it
 * with the full render, to tell a chart whose output depends on the API versions from one whose does not.
 */
export async function renderWithBuiltinApis(tree: RenderedTree, names: readonly string[], env?: NodeJS.ProcessEnv): Promise<SourceRender[]> {
  const builtin = tree.layer.builtinApiVersions();
  // From the rendered tree: an Application a render makes is among those it can name.
  const { renders } = await renderRepo(tree.repo, { builtinApiVersions: builtin, env, apps: names, onlyApiVersions: builtin });
  return renders;
}

/** Renders the named Applications' sources only: what npm run bootstrap applies before Argo CD exists (the CNI). */
export async function renderApplications(loaded: LoadedTree, names: readonly string[], env?: NodeJS.ProcessEnv): Promise<SourceRender[]> {
  const { renders } = await renderRepo(loaded.plain, { builtinApiVersions: loaded.layer.builtinApiVersions(), env, apps: names });
  return renders;
}
