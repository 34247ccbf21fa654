/**
 * The public sites the public-sites Probe and the external watchdog watch (A4, A18): each is a host and path a public
 * Ingress serves, or one the facts list as served elsewhere. A watched site nothing serves fails every probe:
 * PublicSiteDown (critical) for good, and the watchdog's DOWN, for a typo.
 */
import { dig, list } from '../../model/core/dig.ts';
import { ingressPathMatches, ingressRoutes, PUBLIC_GATEWAY } from '../../model/cluster/ingress-routes.ts';
import { WRANGLER_FILE, workerSites } from '../../model/monitoring/watchdog-worker.ts';
import type { Path } from '../../model/core/positions.ts';
import type { DataFile } from '../../model/repository/repo.ts';
import type { FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';

const ELSEWHERE_FILE = 'monitoring/blackbox-exporter/facts/sites-elsewhere.yaml';

type Route = { host: string; path: string; pathType: string };

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
    description: `Every public site the public-sites Probe and the external watchdog watch is a host and path a public Ingress serves, or a host ${ELSEWHERE_FILE} lists with its reason; otherwise it fails every probe and PublicSiteDown fires for good (A4, A18).`,
    invariants: ['A4', 'A18'],
    remediation: `watch the host a public Ingress (class ${PUBLIC_GATEWAY}) serves, or list a site served outside the cluster in ${ELSEWHERE_FILE} with the reason`,
    reads: { kinds: ['Probe', 'Ingress'], files: [WRANGLER_FILE, ELSEWHERE_FILE] },
    exemptible: false,
    run(ctx) {
      const facts = ctx.repo.dataFiles.get(ELSEWHERE_FILE);
      const { hosts: listed, problem } = elsewhere(facts);
      if (problem) ctx.fail({ file: ELSEWHERE_FILE }, problem);
      const served: Route[] = ctx.resources
        .filter((r) => r.kind === 'Ingress' && dig(r.object, ['spec', 'ingressClassName']) === PUBLIC_GATEWAY)
        .flatMap((r) => ingressRoutes(r).map((route) => ({ host: route.host ?? '', path: route.path, pathType: route.pathType })));
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
        if (!served.some((route) => routes(route, parsed)))
          ctx.fail(
            place,
            `${who} watches ${url}, but no public Ingress (class ${PUBLIC_GATEWAY}) serves ${parsed.hostname}${parsed.pathname} and ${ELSEWHERE_FILE} does not list it: every probe fails, and PublicSiteDown fires for good`,
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
