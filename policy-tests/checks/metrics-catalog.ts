/**
 * The metrics catalog kept current (A17): each entry (monitoring/metrics-catalog/) matches the exporter version the
 * repository runs, and every monitor has an entry or a reasoned exemption, so the metrics checks judge what is scraped.
 */
import { metricsCatalog, MONITOR_KINDS, type CatalogEntry } from '../model/monitoring/metrics-catalog.ts';
import { monitorId, namespaceIn } from '../model/monitoring/scrape-jobs.ts';
import { applications } from '../model/argocd/argocd.ts';
import { imageParts, workloadContainers } from '../model/core/workloads.ts';
import { type PolicyCheck, type Area, type CheckContext, staticArea } from '../model/checks/kit.ts';
import { checkoutPathSet } from '../model/repository/repo.ts';
import { list, obj } from '../model/core/dig.ts';
import { didYouMean } from '../model/core/did-you-mean.ts';
import { scalarText } from '../model/core/text.ts';
import type { Resource } from '../model/core/manifest.ts';
import { perObject } from '../model/core/per-object.ts';
import { endpointPath } from '../model/prometheus-operator/scrape-targets.ts';

/**
 * The tag (without a leading `v`) of every `image` string a render's objects name: their containers', and a custom
 * resource's (Rook's CephCluster names Ceph's). Found once per render: every catalog entry asks of the same objects.
 */
const imageTagsOf = perObject((resources: readonly Resource[]): string[] => {
  const tags = new Set<string>();
  // A CRD's schema names `image` fields by the thousand and runs none: the charts' CRDs were most of the walk.
  const stack: unknown[] = resources.filter((r) => r.kind !== 'CustomResourceDefinition').map((r) => r.object);
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) for (const v of value) stack.push(v);
    else if (value && typeof value === 'object')
      for (const [key, v] of Object.entries(value)) {
        if (key !== 'image' || typeof v !== 'string') stack.push(v);
        else {
          const tag = imageParts(scalarText(v)).tag;
          if (tag !== undefined) tags.add(tag.replace(/^v/, ''));
        }
      }
  }
  return [...tags];
});

/** Whether a chart's rendered objects run an image tagged with the exporter version (`v` or not, a variant such as `-distroless` after it). */
function runsVersion(resources: readonly Resource[], version: string): boolean {
  const bare = version.replace(/^v/, '');
  return imageTagsOf(resources).some((tag) => tag === bare || tag.startsWith(`${bare}-`));
}

type Stale = (where: string) => void;

/**
 * An image pin: every plain workload that runs the image runs it at the entry's version. One that no workload runs,
 * plain or rendered, pins nothing (an exporter moved to another registry): the entry would never go stale.
 */
function imagePinned(ctx: CheckContext, entry: CatalogEntry, stale: Stale): void {
  const { image } = entry.pin;
  if (!image) return;
  let runs = false;
  for (const { resource, c } of workloadContainers(ctx.repo.resources)) {
    const { name, tag } = imageParts(scalarText(c.container.image ?? ''));
    if (name !== image) continue;
    runs = true;
    if (!resource.rendered && tag !== entry.version) stale(`${resource.file} runs ${image}:${tag}`);
  }
  if (runs) return;
  if (ctx.renders.every((r) => r.status === 'rendered')) stale(`no workload of the repository runs ${image}, the image its pin names`);
  else ctx.notJudged({ data: entry.data, path: ['pin', 'image'] }, `no plain workload runs ${image}: whether a chart does is judged once every chart renders`);
}

/** A chart pin: each Application that deploys the chart runs the entry's exporter version, and some Application deploys it. */
function chartPinned(ctx: CheckContext, entry: CatalogEntry, stale: Stale): void {
  const { chart, version } = entry.pin;
  if (!chart) return;
  let deployed = false;
  for (const app of applications(ctx.repo)) {
    for (const s of app.sources) {
      if (s.chart !== chart) continue;
      deployed = true;
      // A chart bump that runs the exporter version the entry was read from changes no metric: the entry stands.
      const rendered = ctx.renders.find((r) => r.app.name === app.name && r.source.chart === chart && r.status === 'rendered');
      const runs = rendered && runsVersion(rendered.resources, entry.version);
      if (runs) continue;
      // At the pinned chart, an entry whose exporter the render does not run was read for another release.
      if (s.targetRevision === version) {
        if (rendered)
          stale(
            `chart ${chart} ${version}, the version the entry pins, runs no image at ${entry.version} (Application ${app.name}): the entry was read for another release`,
          );
        continue;
      }
      if (!rendered)
        ctx.notJudged(
          { data: entry.data, path: ['pin', 'version'] },
          `Application ${app.name} deploys chart ${chart} ${s.targetRevision}, the entry was read for ${version}: whether the exporter changed is judged once the chart renders`,
        );
      else
        stale(
          `Application ${app.name} deploys chart ${chart} ${s.targetRevision}, which runs no image at ${entry.version}, the version the entry was read for`,
        );
    }
  }
  if (!deployed) stale(`no Application deploys chart ${chart}, the chart its pin names`);
}

/** A scrape's chart is one some Application deploys: where it is not rendered, the entry's job stands on its word. */
function scrapedCharts(ctx: CheckContext, entry: CatalogEntry, deployed: ReadonlySet<string>): void {
  list(obj(entry.data.data).scrape).forEach((scrape, i) => {
    const chart = obj(scrape).chart;
    if (typeof chart === 'string' && !deployed.has(chart))
      ctx.fail(
        { data: entry.data, path: ['scrape', i, 'chart'] },
        `no Application deploys chart ${chart}${didYouMean(chart, deployed)}: the job this scrape declares runs nowhere`,
      );
  });
}

/**
 * Each endpoint of a monitor whose entries say where its metrics come from (`path`) that scrapes another path: the
 * operator makes it a job all the same, and what it collects from that target is none of the metrics the entries
 * name, which that target then never gives (an empty path is /metrics, as the operator leaves it to Prometheus).
 */
function uncoveredEndpoints(ctx: CheckContext, monitor: Resource, paths: ReadonlySet<string>): void {
  const field = monitor.kind === 'PodMonitor' ? 'podMetricsEndpoints' : 'endpoints';
  list(obj(monitor.object.spec)[field]).forEach((e, i) => {
    const path = endpointPath(obj(e));
    if (paths.has(path)) return;
    ctx.fail(
      { resource: monitor, path: ['spec', field, i, obj(e).path === undefined ? 'port' : 'path'] },
      `${monitor.kind} ${monitor.name}'s endpoint ${i} scrapes ${path}, and the metrics catalog says its metrics come from ${[...paths].join(', ')}${didYouMean(path, paths)}: that target's metrics are never scraped, and every rule and panel that reads them sees nothing of it`,
    );
  });
}

export const metricsCatalogCheck: PolicyCheck = {
  id: 'metrics-catalog-current',
  description:
    "Each metrics-catalog entry is well formed (its keys, metric and label names, pin, source files and scrapes, each as the checks read it), names its exporter, version and source, and matches the version the repository pins (a Renovate bump makes it stale), which the repository still runs (a pin on an image no workload runs, a chart no Application deploys or a file that is gone pins nothing, and the entry would never go stale); every monitor has an entry or a reasoned exemption (plain monitors always, a chart's when it renders), and every endpoint of a monitor whose entry says which path serves its metrics scrapes that path (an empty path is /metrics), or that target's metrics are never scraped (A17).",
  invariants: ['A17'],
  remediation:
    'refresh the entry: npm run metrics:catalog -- --refresh <exporter> --version <pinned>; add an entry for a new monitor (monitoring/README.md, "The metrics catalog")',
  reads: {
    kinds: ['*'],
    everyKind: 'the exporters and monitors the catalog pins are found among every rendered resource',
    files: ['monitoring/metrics-catalog/*'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const catalog = metricsCatalog(ctx.repo);
    for (const p of catalog.problems) ctx.fail({ data: p.data, path: p.path }, p.message);
    const deployed = new Set(applications(ctx.repo).flatMap((app) => app.sources.flatMap((s) => (s.chart === undefined ? [] : [s.chart]))));
    for (const entry of catalog.entries) {
      const stale = (where: string) =>
        ctx.fail(
          { data: entry.data, path: ['version'] },
          `catalog entry ${entry.exporter} ${entry.version} is stale: ${where}; refresh it with npm run metrics:catalog -- --refresh ${entry.exporter}`,
        );
      imagePinned(ctx, entry, stale);
      chartPinned(ctx, entry, stale);
      scrapedCharts(ctx, entry, deployed);
      if (entry.codeDrift) stale(entry.codeDrift);
      const { file, contains } = entry.pin;
      if (file && contains !== undefined) {
        const text = ctx.repo.parsed.find((p) => p.file === file)?.text;
        // A pin on a file that is gone never goes stale by its text: the entry would stand for good.
        if (text === undefined && !checkoutPathSet(ctx.repo).has(file)) stale(`${file}, where the entry's pin is, is gone`);
        else if (text !== undefined && !text.includes(contains)) stale(`${file} no longer pins ${contains}`);
      }
    }
    // Plain monitors always; a chart's monitors when the chart rendered (not rendered: not judged, and counted by the gate).
    const exempt = new Map(catalog.monitorExemptions.map((x) => [x.monitor, x]));
    const namespaceOf = namespaceIn(ctx.repo);
    const monitors = ctx.repo.resources.filter((r) => (MONITOR_KINDS as readonly string[]).includes(r.kind));
    for (const r of monitors) {
      const id = monitorId(r, namespaceOf);
      const paths = catalog.coveredPaths.get(id);
      if (paths && paths !== 'any' && !exempt.has(id)) uncoveredEndpoints(ctx, r, paths);
      if (catalog.coveredMonitors.has(id) || exempt.has(id)) continue;
      const how = r.rendered ? `chart scrape with renders: ${id}` : `scrape: monitor: ${id}`;
      ctx.fail(
        { resource: r, path: ['metadata', 'name'] },
        `${id} scrapes something no metrics-catalog entry describes; add one (its ${how}) or an exemption with its reason`,
      );
    }
    // A stale monitor exemption can only be told apart from an unrendered chart's monitor when everything rendered.
    if (catalog.exemptionsFile && ctx.renders.every((r) => r.status === 'rendered')) {
      const present = new Set(monitors.map((r) => monitorId(r, namespaceOf)));
      for (const x of catalog.monitorExemptions) {
        if (!present.has(x.monitor))
          ctx.fail(
            { data: catalog.exemptionsFile, path: [x.index, 'monitor'] },
            `exemption for ${x.monitor} matches no monitor of the rendered repository; remove it`,
          );
      }
    }
  },
};

/** The catalog's own area, reported right after the metrics checks that read it. */
export const metricsCatalogArea: Area = staticArea('metrics-catalog', [metricsCatalogCheck]);
