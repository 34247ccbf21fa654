/**
 * The tags of one image that a chart's workloads run, as the chart rendered them for one Application: which version
 * of a program a reference read for one version (Loki's, Tempo's structs) is about.
 */
import { dig, objects } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { imageParts, podSpecOf } from '../core/workloads.ts';

export function chartImageTags(resources: readonly Resource[], { app, chart, image }: { app: string; chart: string; image: string }): Set<string> {
  const tags = new Set<string>();
  for (const r of resources) {
    if (r.rendered?.app !== app || !r.rendered.source.startsWith(`chart ${chart} `)) continue;
    for (const c of objects(dig(podSpecOf(r)?.spec, ['containers']))) {
      const parts = typeof c.image === 'string' ? imageParts(c.image) : undefined;
      if (parts?.name.endsWith(image) && parts.tag) tags.add(parts.tag.replace(/^v/, ''));
    }
  }
  return tags;
}
