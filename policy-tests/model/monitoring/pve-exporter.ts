/**
 * The hypervisor exporter as the repository deploys it (monitoring/pve-exporter/): its ServiceMonitor's targets, the
 * pve.yml its ExternalSecret renders (handed to proxmoxer's ProxmoxAPI as it stands: user, token, `verify_ssl`),
 * and its container. proxmoxer talks to each host through Python's requests, which verifies a host's certificate
 * against `verify_ssl` when that is a CA file's path, else against the file `REQUESTS_CA_BUNDLE` (or
 * `CURL_CA_BUNDLE`) names, else against certifi's public roots; `verify_ssl: false` verifies nothing.
 */
import { parse } from 'yaml';
import { dig, obj, objects } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { scalarText } from '../core/text.ts';

export const PVE_CONFIG_KEY = 'pve.yml';
export const PVE_CONFIG_AT: Path = ['spec', 'target', 'template', 'data', PVE_CONFIG_KEY];

export interface PveExporter {
  monitor?: Resource;
  secret?: Resource;
  deployment?: Resource;
  /** pve.yml's modules by name (undefined when it is missing or does not parse): a scrape's `module` picks one. */
  modules?: Map<string, Record<string, unknown>>;
}

/** The module a scrape of /pve asks for (its `module` param's first value, werkzeug's args[key]), `default` where unset. */
export const pveModuleAsked = (params: Record<string, unknown> | undefined): string =>
  Array.isArray(params?.module) && params.module.length > 0 ? scalarText(params.module[0]) : 'default';

export function pveExporter(resources: readonly Resource[]): PveExporter {
  const named = (kind: string) => resources.find((r) => r.kind === kind && r.name === 'pve-exporter');
  const secret = named('ExternalSecret');
  let modules: Map<string, Record<string, unknown>> | undefined;
  try {
    const config = parse(scalarText(dig(secret?.object, PVE_CONFIG_AT) ?? '')) as unknown;
    // A module written as null is the empty one yaml's decode makes of it.
    if (config && typeof config === 'object') modules = new Map(Object.entries(config).map(([name, m]) => [name, obj(m)]));
  } catch {
    // left undefined: the checks say pve.yml does not parse
  }
  return { monitor: named('ServiceMonitor'), secret, deployment: named('Deployment'), ...(modules?.size ? { modules } : {}) };
}

/** The hosts the ServiceMonitor has the exporter scrape (its `target` params), each with where it stands. */
export function pveTargets(monitor: Resource): { host: string; at: Path }[] {
  const endpoints = objects(dig(monitor.object, ['spec', 'endpoints'])) as { params?: Record<string, unknown> }[];
  return endpoints.flatMap((e, i) => {
    const target = e.params?.target;
    const host = Array.isArray(target) ? target[0] : undefined;
    return typeof host === 'string' ? [{ host, at: ['spec', 'endpoints', i, 'params', 'target'] }] : [];
  });
}
