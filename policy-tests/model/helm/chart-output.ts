/**
 * What a chart rendered for a program that reads a file: the file a ConfigMap or Secret of the chart holds, the tags
 * of the program's image the chart's workloads run (which version of it a reference read for one version is about),
 * and where in the chart's values a path of the rendered file was written, so a finding lands on the line that wrote
 * it. The blackbox exporter's, Loki's, Tempo's and Alertmanager's checks read their files through here.
 */
import { parseDocument } from 'yaml';
import { dig, objects } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { secretEntries } from '../core/secrets.ts';
import { imageParts, podSpecOf } from '../core/workloads.ts';
import type { DataFile } from '../repository/data-file.ts';
import type { Repo } from '../repository/repo.ts';
import { applicationsByName } from '../argocd/argocd.ts';

export interface RenderedFile {
  text: string;
  /** Where in the object it is written. */
  path: string[];
}

/** The file `key` of a ConfigMap's data or a Secret's (its stringData over its data); undefined where it holds none. */
export function renderedFile(r: Resource, key: string): RenderedFile | undefined {
  if (r.kind === 'ConfigMap') {
    const text = dig(r.object, ['data', key]);
    return typeof text === 'string' ? { text, path: ['data', key] } : undefined;
  }
  const entry = r.kind === 'Secret' ? secretEntries(r.object).findLast((e) => e.key === key) : undefined;
  return entry && { text: entry.value, path: [entry.field, key] };
}

/** Whether a resource is one chart `chart` rendered. */
export const renderedByChart = (r: Resource, chart: string): boolean => r.rendered?.source.startsWith(`chart ${chart} `) === true;

/** The tags (without a `v`) of one image that a chart's workloads run for one Application. */
export function chartImageTags(resources: readonly Resource[], { app, chart, image }: { app: string; chart: string; image: string }): Set<string> {
  const tags = new Set<string>();
  for (const r of resources) {
    if (r.rendered?.app !== app || !renderedByChart(r, chart)) continue;
    for (const c of objects(dig(podSpecOf(r)?.spec, ['containers']))) {
      const parts = typeof c.image === 'string' ? imageParts(c.image) : undefined;
      if (parts?.name.endsWith(image) && parts.tag) tags.add(parts.tag.replace(/^v/, ''));
    }
  }
  return tags;
}

/**
 * The deepest place the values write a path of the rendered file: under each of `roots` (the values' places of the
 * file's part), as far along `rest` (the path within that part) as the values go; undefined where no root is written.
 */
export function deepestWritten(values: unknown, roots: readonly Path[], rest: Path): { path: Path; depth: number } | undefined {
  let best: { path: Path; depth: number } | undefined;
  for (const root of roots) {
    if (dig(values, root) === undefined) continue;
    let depth = 0;
    while (depth < rest.length && dig(values, [...root, ...rest.slice(0, depth + 1)]) !== undefined) depth++;
    if (!best || depth > best.depth) best = { path: [...root, ...rest.slice(0, depth)], depth };
  }
  return best;
}

/** Where a finding about a path of the rendered file stands: the values line that wrote it, or else the file in its object. */
export function placeInValues(
  file: { resource: Resource; path: string[] },
  values: { values: Record<string, unknown>; source: DataFile } | undefined,
  written: (path: Path) => { roots: readonly Path[]; rest: Path; minDepth?: number },
): (path: Path) => { data: DataFile; path: Path } | { resource: Resource; path: Path } {
  return (path) => {
    const { roots, rest, minDepth = 0 } = written(path);
    const at = values && path.length > 0 ? deepestWritten(values.values, roots, rest) : undefined;
    return at && at.depth >= minDepth ? { data: values!.source, path: at.path } : { resource: file.resource, path: file.path };
  };
}

/** A rendered file as a program's YAML parser reads it: the document, or the parser's first line (a duplicate key among them). */
export function parseRenderedFile(text: string): { doc: unknown } | { error: string } {
  const document = parseDocument(text, { uniqueKeys: true });
  const error = document.errors[0];
  return error ? { error: error.message.split('\n')[0] ?? '' } : { doc: document.toJS() as unknown };
}

/**
 * Why a reference read for one version of a program does not judge what a chart renders for an Application: the
 * chart's workloads run another version of its image (none at all judges: the render names no image of it).
 */
export function renderedVersionMiss(
  resources: readonly Resource[],
  o: { app: string; chart: string; image: string; program: string; version: string; refresh: string },
): string | undefined {
  const runs = [...chartImageTags(resources, o)];
  return runs.length > 0 && !runs.includes(o.version)
    ? `the chart runs ${o.program} ${runs.join(', ')}, the reference was read for ${o.version}: refresh it (${o.refresh})`
    : undefined;
}

/** Why a reference read for one chart version does not judge an Application's values offline: it deploys another. */
export function pinnedVersionMiss(repo: Repo, o: { app: string; chart: string; chartVersion: string; refresh: string }): string | undefined {
  const pinned = applicationsByName(repo)
    .get(o.app)
    ?.sources.find((s) => s.chart === o.chart)?.targetRevision;
  return pinned === o.chartVersion
    ? undefined
    : `Application ${o.app} deploys chart ${o.chart} ${pinned ?? '(no version)'}, the reference was read for ${o.chartVersion}: judged once the chart renders, or after a refresh (${o.refresh})`;
}
