/** The render stage: the repository as Argo CD applies it, at the version asked for, and what could not be rendered. */
import type { Finding } from '../../model/core/findings.ts';
import { findingAt, type ParsedFile } from '../../model/core/manifest.ts';
import type { Repo } from '../../model/repository/repo.ts';
import type { SourceRender } from '../../model/argocd/rendered.ts';
import { unrenderedSources } from '../../render/render.ts';
import { applicationSetProblems } from '../../model/appset/outcomes.ts';
import { renderTree, type LoadedTree } from '../pipeline.ts';
import type { NotRendered } from '../result.ts';
import type { GateOptions, KubernetesVersion } from '../options.ts';
import type { SchemaLayer } from '../../schema/schema-layer.ts';

/** The repository as Argo CD applies it (or its files alone), after the render stage: what the later stages judge. */
export interface Tree {
  repo: Repo;
  parsed: readonly ParsedFile[];
  /** The schema layer the tree was loaded with (the repository's CRDs are added to it by the schema stage). */
  layer: SchemaLayer;
  renders: readonly SourceRender[];
  /** A source that failed to render, or (with requireRendered) could not be: findings on its Application. */
  renderFindings: Finding[];
  notRendered: NotRendered[];
  /** Whether the checks run: they judge the rendered repository, so not on the files alone. */
  checked: boolean;
  tools?: string;
}

/**
 * The render stage. With --no-render, the files alone: every source that needs a tool is listed as not rendered,
 * never failed on output it did not build, and the checks, which judge the rendered repository, do not run.
 * Otherwise the repository as Argo CD applies it, rendered at the version asked for.
 */
export async function renderStage(loaded: LoadedTree, options: GateOptions): Promise<Tree> {
  const asked = options.kubernetesVersion;
  const notRendered: NotRendered[] = [];
  const requireRendered = options.requireRendered ?? false;
  if (options.render === false) {
    const plain = withVersion(loaded.plain, asked);
    const skipped = unrenderedSources(
      plain,
      'not rendered: --no-render runs neither Helm, kustomize nor jsonnet, and the policy layer, which judges the rendered repository, did not run',
    );
    const renderFindings = renderProblems(skipped, requireRendered, notRendered);
    // The checks, which would say what became of an ApplicationSet, do not run: each one the gate could not expand, or
    // Argo CD fails, is listed as not rendered, never passed over.
    for (const { resource, message } of applicationSetProblems(plain)) {
      const at = findingAt(resource, ['spec', 'generators'], { check: 'not-rendered', message, fix: '' });
      notRendered.push({ file: at.file, line: at.line, col: at.col, app: `ApplicationSet ${resource.name}`, source: 'generators', message });
      if (requireRendered) renderFindings.push({ ...at, fix: 'run npm run validate without --no-render' });
    }
    return { repo: plain, parsed: plain.parsed, layer: loaded.layer, renders: [], renderFindings, notRendered, checked: false };
  }
  const rendered = await renderTree(loaded, options.env, asked?.version);
  // --kubernetes-version is the cluster's version for every layer: the checks read it from the facts.
  const repo = withVersion(rendered.repo, asked);
  const renderFindings = renderProblems(rendered.renders, requireRendered, notRendered);
  return { repo, parsed: rendered.parsed, layer: loaded.layer, renders: rendered.renders, renderFindings, notRendered, checked: true, tools: rendered.tools };
}

/** The repository as judged at another Kubernetes version (x.y.z), or as it is. */
function withVersion(repo: Repo, asked: KubernetesVersion | undefined): Repo {
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
