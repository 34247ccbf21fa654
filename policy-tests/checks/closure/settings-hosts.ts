/**
 * The hosts an app's settings send it to (closure-service): each server's `hostname` or `host` in the settings the
 * scripts push (`apps/media/<app>/settings/`). An in-cluster address is closed with every other address; a host
 * of one label is looked up by the app's resolver in its own namespace first (`<name>.<namespace>.svc.cluster.local`),
 * so it is a Service there; a name under a zone the repository's Ingresses use is one an Ingress serves, or the lab's
 * DNS sends the app to a proxy that answers 404. The app starts with any of them and fails every call. An address,
 * a LAN machine of nodeNetwork's hosts, and a name elsewhere are not judged.
 */
import { isIP } from 'node:net';
import type { CheckContext } from '../../model/checks/kit.ts';
import type { DataFile } from '../../model/repository/repo.ts';
import type { Path } from '../../model/core/positions.ts';
import { isMap } from '../../model/core/dig.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import type { ServiceIndex } from '../../model/cluster/service-addresses.ts';
import { servedHosts, zoneOf } from '../../model/cluster/ingress-routes.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { WORKLOAD_KINDS } from '../../model/core/workloads.ts';

/** Every `hostname` or `host` string of a settings file, with its path. */
function hostsIn(value: unknown, path: Path = []): { host: string; path: Path }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => hostsIn(v, [...path, i]));
  if (!isMap(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    (k === 'hostname' || k === 'host') && typeof v === 'string' && v !== '' ? [{ host: v, path: [...path, k] }] : hostsIn(v, [...path, k]),
  );
}

/**
 * Each settings file's hosts, judged against what the view serves: the Ingresses' hosts and their zones and the LAN's
 * machines, read once for every file.
 */
export function settingsHostFindings(ctx: CheckContext, index: ServiceIndex, files: readonly DataFile[]): void {
  const served = servedHosts(ctx.resources);
  const zones = new Set([...served].filter((h) => h.includes('.')).map(zoneOf));
  const lan = new Set((ctx.repo.facts?.nodeNetwork?.hosts ?? []).map((h) => h.toLowerCase()));
  for (const data of files) fileHostFindings(ctx, { index, data, served, zones, lan });
}

function fileHostFindings(
  ctx: CheckContext,
  {
    index,
    data,
    served,
    zones,
    lan,
  }: { index: ServiceIndex; data: DataFile; served: ReadonlySet<string>; zones: ReadonlySet<string>; lan: ReadonlySet<string> },
): void {
  const app = isMap(data.data) ? data.data.app : undefined;
  const workload = ctx.resources.find((r) => (WORKLOAD_KINDS as readonly string[]).includes(r.kind) && r.name === app);
  const namespace = workload && namespaceOrDestination(ctx.repo, workload);
  for (const { host: written, path } of hostsIn(data.data)) {
    const host = written.toLowerCase().replace(/\.$/, '');
    if (isIP(host) !== 0 || lan.has(host) || served.has(host) || /\.svc(\.cluster\.local)?$/.test(host)) continue;
    if (!host.includes('.')) {
      if (namespace === undefined || index.named(namespace, host)) continue;
      const names = index.services.filter((s) => s.namespace === namespace).map((s) => s.name);
      ctx.fail(
        { data, path },
        `${data.file} sends ${String(app)} to ${written}, which its resolver looks up as a Service of ${namespace}, and there is none${didYouMean(host, names)}: every call fails`,
        'name the Service as <service>.<namespace>.svc, or a host an Ingress serves',
      );
    } else if (zones.has(zoneOf(host)))
      ctx.fail(
        { data, path },
        `${data.file} sends ${String(app)} to ${written}, a name of the lab's zone ${zoneOf(host)} no Ingress of the repository serves${didYouMean(host, served)}: the proxy answers 404, and every call fails`,
        'name a host an Ingress serves, or the Service as <service>.<namespace>.svc',
      );
  }
}
