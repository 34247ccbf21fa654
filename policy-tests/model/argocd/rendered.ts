/**
 * What the render tier made of each Application source, as data for the
 * checks: the rendered resources, the values files used, the chart's
 * interface, and whether two renders of the same inputs agreed.
 */
import type { AppSource, ArgoApp } from './argocd.ts';
import { resourceKey, type ParsedFile, type Resource } from '../core/manifest.ts';
import type { DataFile, Repo } from '../repository/repo.ts';

/** One chart as the unused-values check reads it: its defaults, its templates, and its subcharts by values key. */
export interface ChartScope {
  name: string;
  defaults: Record<string, unknown>;
  /** Every template and helper of this chart (not its subcharts), joined. */
  templates: string;
  subcharts: Map<string, ChartScope>;
  /**
   * Whether the chart's output can depend on the API versions Helm is given (render/charts.ts,
   * mayReadApiVersions): set on the top chart; absent (a scope stored before it existed) counts as yes.
   */
  readsApiVersions?: boolean;
  /**
   * Whether two renders with the same inputs print the same, as the chart's templates show (render/chart-traits.ts,
   * mayPrintDifferently): then one print answers the determinism check. Absent counts as no.
   */
  repeatable?: boolean;
}

/** A rendered object whose two renders differ, and the template that made it. */
export interface Nondeterminism {
  kind: string;
  name: string;
  template?: string;
}

export type RenderStatus = 'rendered' | 'not-rendered' | 'failed';

export interface SourceRender {
  app: ArgoApp;
  source: AppSource;
  /** `chart falco 7.0.2 from https://...`, `chart at charts/x`, `kustomize apps/media/sonarr`. */
  label: string;
  status: RenderStatus;
  /** Why it was not rendered (and the command that fixes it), or the tool's error. */
  message?: string;
  resources: Resource[];
  /** Values files in the order Helm reads them. */
  values: DataFile[];
  chart?: ChartScope;
  nondeterministic: Nondeterminism[];
  /** Repository files a kustomize source consumed (resources, components, patches). */
  consumedFiles: string[];
  /**
   * What a rendered source is made of, as the render cache names it: each print's key (a digest of all its inputs)
   * and the chart interface's digest. A kept verdict (gate/verdict.ts) is keyed by them.
   */
  madeOf?: string[];
}

/**
 * The repository as Argo CD applies it: plain resources, except those a
 * kustomization consumes (kustomize's output stands in for them, keeping
 * their file and positions when it is the same object), plus every rendered
 * resource. Each parsed file keeps its loader findings.
 */
export function withRendered(repo: Repo, renders: readonly SourceRender[]): { repo: Repo; parsed: ParsedFile[] } {
  const rendered = renders.filter((r) => r.status === 'rendered');
  const consumed = new Set(rendered.flatMap((r) => r.consumedFiles));
  const key = (r: Pick<Resource, 'apiVersion' | 'kind' | 'name'>) => `${r.apiVersion}/${r.kind}/${r.name}`;
  const byFile = Map.groupBy(
    repo.resources.filter((r) => consumed.has(r.file)),
    (r) => r.file,
  );
  const standIns = new Map<string, Resource>();
  const extra: Resource[] = [];
  for (const source of rendered) {
    // The object it stands in for is one of this source's own inputs: two apps' builds may each hold an object of one
    // name (each media app's backup-target), and a finding on one app's must not land in the other's file.
    const inputs = new Map(source.consumedFiles.flatMap((file) => byFile.get(file) ?? []).map((r) => [key(r), r]));
    for (const resource of source.resources) {
      const input = inputs.get(key(resource));
      if (input && !standIns.has(resourceKey(input))) standIns.set(resourceKey(input), { ...input, object: resource.object, namespace: resource.namespace });
      else extra.push(resource);
    }
  }
  // What an ApplicationSet in a consumed file makes (renderedBy set) stays: only the file's own resources give way.
  const parsed: ParsedFile[] = repo.parsed.map((p) =>
    consumed.has(p.file) && p.renderedBy === undefined ? { ...p, resources: p.resources.flatMap((r) => standIns.get(resourceKey(r)) ?? []) } : p,
  );
  const byApp = Map.groupBy(extra, (r) => r.rendered!.app);
  for (const [app, resources] of byApp) parsed.push({ file: resources[0]!.file, resources, findings: [], text: '', renderedBy: app });
  return { repo: { ...repo, parsed, resources: parsed.flatMap((p) => p.resources) }, parsed };
}
