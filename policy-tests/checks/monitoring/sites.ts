/**
 * The public sites the public-sites Probe and the external watchdog watch (A4, A18): each is a host and path a public
 * Ingress serves, or one the facts list as served elsewhere. A watched site nothing serves fails every probe:
 * PublicSiteDown (critical) for good, and the watchdog's DOWN, for a typo. Where the route sends the request, path as
 * it came, to a Service whose containers run an image that answers only the paths its facts list (`servedPaths`), the
 * path is one of them: any other is a 404, and the site is down to both watchers for good.
 */
import { dig, list } from '../../model/core/dig.ts';
import { ingressPathMatches, ingressRoutes, PUBLIC_GATEWAY, servicePort } from '../../model/cluster/ingress-routes.ts';
import { WRANGLER_FILE, workerSites } from '../../model/monitoring/watchdog-worker.ts';
import type { Path } from '../../model/core/positions.ts';
import type { DataFile } from '../../model/repository/repo.ts';
import type { FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { scalarText } from '../../model/core/text.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { ingressKeepsPath } from '../../model/traefik/path-rewrites.ts';
import { serviceIndex } from '../../model/cluster/service-addresses.ts';
import { containersBehind } from '../../model/prometheus-operator/scrape-targets.ts';
import { WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import { IMAGE_FACTS_GLOB, imageKey, repoImageNeeds } from '../../model/repository/image-facts.ts';

const ELSEWHERE_FILE = 'monitoring/blackbox-exporter/facts/sites-elsewhere.yaml';

type Route = { host: string; path: string; pathType: string; served: () => ServedPaths | undefined };

/** The paths the images behind a route answer, and which image says so; undefined where any of them answers any path. */
type ServedPaths = { paths: string[]; image: string; file: string };

/** The paths every container behind the route's Service port answers, where each runs an image whose facts list them. */
function servedBehind(
  repo: Repo,
  resources: readonly Resource[],
  ingress: Resource,
  backend: { name: string; port: { name?: string; number?: number } },
): ServedPaths | undefined {
  const namespace = namespaceOrDestination(repo, ingress) ?? '';
  const service = serviceIndex(repo, resources).named(namespace, backend.name);
  const entry = service && servicePort(service, backend.port);
  if (!service || !entry || !ingressKeepsPath(repo, ingress, resources)) return undefined;
  const { needs } = repoImageNeeds(repo);
  const behind = containersBehind(repo, service, scalarText(entry.name ?? entry.port), namespace).map(({ c }) => scalarText(c.container.image ?? ''));
  const facts = behind.map((image) => ({ image, need: needs.get(imageKey(image)) }));
  const first = facts[0];
  if (!first?.need?.servedPaths || facts.some((f) => !f.need?.servedPaths)) return undefined;
  return { paths: first.need.servedPaths, image: first.image, file: first.need.file };
}

/** Whether a route of an Ingress serves the URL. */
const routes = (route: Route, url: URL) => route.host === url.hostname && ingressPathMatches(route.path, route.pathType, url.pathname);

/** The hosts the facts list as served elsewhere, or why the file cannot be read. */
function elsewhere(file: DataFile | undefined): { hosts: Map<string, number>; problem?: string } {
  if (!file) return { hosts: new Map(), problem: `${ELSEWHERE_FILE} is missing` };
  const list = file.data;
  if (
    !Array.isArray(list) ||
    !list.every((e: { host?: unknown; reason?: unknown }) => typeof e?.host === 'string' && typeof e?.reason === 'string' && e.reason.trim())
  )
    return { hosts: new Map(), problem: `${ELSEWHERE_FILE} must be a YAML list of {host, reason}` };
  return { hosts: new Map(list.map((e: { host: string }, i) => [e.host, i])) };
}

export const siteChecks: PolicyCheck[] = [
  {
    id: 'public-sites-served',
    description: `Every public site the public-sites Probe and the external watchdog watch is a host and path a public Ingress serves, or a host ${ELSEWHERE_FILE} lists with its reason, and a path the program behind the route answers where its image facts list them (servedPaths) and no middleware rewrites it; otherwise it fails every probe and PublicSiteDown fires for good (A4, A18).`,
    invariants: ['A4', 'A18'],
    remediation: `watch the host a public Ingress (class ${PUBLIC_GATEWAY}) serves, or list a site served outside the cluster in ${ELSEWHERE_FILE} with the reason`,
    reads: { kinds: ['Probe', 'Ingress', 'Service', 'Middleware', ...WORKLOAD_KINDS], files: [WRANGLER_FILE, ELSEWHERE_FILE, IMAGE_FACTS_GLOB] },
    exemptible: false,
    run(ctx) {
      const facts = ctx.repo.dataFiles.get(ELSEWHERE_FILE);
      const { hosts: listed, problem } = elsewhere(facts);
      if (problem) ctx.fail({ file: ELSEWHERE_FILE }, problem);
      const served: Route[] = ctx.resources
        .filter((r) => r.kind === 'Ingress' && dig(r.object, ['spec', 'ingressClassName']) === PUBLIC_GATEWAY)
        .flatMap((r) =>
          ingressRoutes(r).map((route) => ({
            host: route.host ?? '',
            path: route.path,
            pathType: route.pathType,
            served: () => (route.service ? servedBehind(ctx.repo, ctx.resources, r, route.service) : undefined),
          })),
        );
      const watched: { url: string; place: FailurePlace; who: string }[] = [];
      for (const probe of ctx.resources.filter((r) => r.kind === 'Probe' && r.name === 'public-sites'))
        (list(dig(probe.object, ['spec', 'targets', 'staticConfig', 'static'])) as string[]).forEach((url, i) =>
          watched.push({ url, place: { resource: probe, path: ['spec', 'targets', 'staticConfig', 'static', i] }, who: 'Probe public-sites' }),
        );
      const worker = workerSites(ctx.repo);
      if (worker) for (const url of worker.urls) watched.push({ url, place: { data: worker.file, path: worker.path }, who: 'the watchdog' });
      const used = new Set<string>();
      for (const { url, place, who } of watched) {
        const parsed = URL.canParse(url) ? new URL(url) : undefined;
        if (!parsed) {
          ctx.fail(place, `${who} watches ${JSON.stringify(url)}, which is not a URL`);
          continue;
        }
        used.add(parsed.hostname);
        if (listed.has(parsed.hostname)) continue;
        const route = served.find((r) => routes(r, parsed));
        if (!route)
          ctx.fail(
            place,
            `${who} watches ${url}, but no public Ingress (class ${PUBLIC_GATEWAY}) serves ${parsed.hostname}${parsed.pathname} and ${ELSEWHERE_FILE} does not list it: every probe fails, and PublicSiteDown fires for good`,
          );
        const answers = route?.served();
        if (answers && !answers.paths.includes(parsed.pathname))
          ctx.fail(
            place,
            `${who} watches ${url}, and ${answers.image} behind it answers no ${parsed.pathname} (its servedPaths in ${answers.file}): the answer is a 404, every probe fails, and PublicSiteDown fires for good`,
            `watch ${answers.paths.filter((p) => !p.includes('metrics')).join(' or ')}`,
          );
      }
      // The facts stay true: a listed host that nothing watches, or that an Ingress here serves, is stale.
      for (const [host, i] of listed) {
        const at: Path = [i, 'host'];
        if (!used.has(host)) ctx.fail({ data: facts!, path: at }, `${host} is listed as served elsewhere, but nothing watches it`);
        else if (served.some((r) => r.host === host))
          ctx.fail({ data: facts!, path: at }, `${host} is listed as served elsewhere, but a public Ingress here serves it`);
      }
    },
  },
];
