/**
 * Where Loki's configuration is, and which Loki reads it: the `config.yaml` of the ConfigMap (or Secret,
 * `loki.configStorageType: Secret`) the loki chart renders, which its pods read with `-config.file` and
 * `-config.expand-env=true`; the Loki image the chart runs; and, offline, the values the chart's `loki.config`
 * template writes into it as they are (18.x: `loki.<block>` under the same name, three renamed, `loki.structuredConfig`
 * merged over all of it).
 */
import { dig, isMap } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import type { Resource } from '../core/manifest.ts';
import { parseRenderedFile, renderedByChart, renderedFile, type RenderedFile } from '../helm/chart-output.ts';
import { chartValues } from '../helm/chart-values.ts';
import { perKey } from '../core/per-object.ts';
import { scalarText } from '../core/text.ts';
import { workloadContainers, type ContainerRef, type PodSpecRef } from '../core/workloads.ts';
import { imageKey } from '../repository/image-facts.ts';
import { isServiceDomainHost } from '../cluster/service-addresses.ts';
import type { DataFile } from '../repository/data-file.ts';
import type { Repo } from '../repository/repo.ts';
import { referenceFile } from '../helm/reference-file.ts';
import type { GoStruct } from '../yaml/go-decode.ts';
import { referenceCatalog, referenceTypes, runtimeConfigType } from './reference.ts';
import { lokiFlags, type LokiFlags } from './flags.ts';

export const LOKI_CHART = 'loki';
export const LOKI_IMAGE = 'grafana/loki';
export const LOKI_CONFIG_KEY = 'config.yaml';
export const LOKI_RUNTIME_KEY = 'runtime-config.yaml';
export const LOKI_REFERENCE = 'monitoring/loki/facts/config-reference.yaml';

/** The values keys the chart's `loki.config` template writes under another name. */
const RENAMED: Readonly<Record<string, string>> = { commonConfig: 'common', schemaConfig: 'schema_config', memberlistConfig: 'memberlist' };
/** The values keys it writes under their own name, as they are (`tpl` or `toYaml` of the whole block). */
const PASSED = new Set([
  'server',
  'pattern_ingester',
  'ingester',
  'ingester_client',
  'block_builder',
  'limits_config',
  'query_range',
  'storage_config',
  'query_scheduler',
  'compactor',
  'compactor_grpc_client',
  'analytics',
  'querier',
  'index_gateway',
  'frontend',
  'frontend_worker',
  'distributor',
  'bloom_build',
  'bloom_gateway',
  'operational_config',
]);

/** Where under the values a block of Loki's file is written: `loki.structuredConfig.<block>` first, then `loki.<key>`. */
export function valuesRootsOf(block: string): Path[] {
  const key = Object.entries(RENAMED).find(([, to]) => to === block)?.[0] ?? (PASSED.has(block) ? block : undefined);
  return [['loki', 'structuredConfig', block], ...(key ? [['loki', key]] : [])];
}

/** The parts of Loki's file the values write as they are, each with where in the values it is. */
export function valuesConfigParts(values: Record<string, unknown>): { block: string; path: Path; value: unknown }[] {
  const loki = dig(values, ['loki']);
  if (!isMap(loki)) return [];
  const parts: { block: string; path: Path; value: unknown }[] = [];
  for (const [key, value] of Object.entries(loki)) {
    const block = RENAMED[key] ?? (PASSED.has(key) ? key : undefined);
    if (block !== undefined && value !== null) parts.push({ block, path: ['loki', key], value });
  }
  const structured = dig(loki, ['structuredConfig']);
  if (isMap(structured)) for (const [block, value] of Object.entries(structured)) parts.push({ block, path: ['loki', 'structuredConfig', block], value });
  return parts;
}

/**
 * A file a ConfigMap or Secret the loki chart rendered holds (a Secret's stringData wins over its data): its
 * config.yaml, or its runtime-config.yaml (the ConfigMap `<release>-runtime`, from `loki.runtimeConfig`).
 */
export const lokiFile = (r: Resource, key: typeof LOKI_CONFIG_KEY | typeof LOKI_RUNTIME_KEY = LOKI_CONFIG_KEY): RenderedFile | undefined =>
  renderedByChart(r, LOKI_CHART) ? renderedFile(r, key) : undefined;

export const lokiConfigFile = (r: Resource): RenderedFile | undefined => lokiFile(r, LOKI_CONFIG_KEY);

/** A rendered Loki file parsed once per text: the config check and the readers of its TLS read the same document. */
export const parseLokiFile: (text: string) => ReturnType<typeof parseRenderedFile> = perKey(16, parseRenderedFile);

export type LokiReference =
  | { ok: true; data: DataFile; version: string; chartVersion: string; type: GoStruct; runtime: GoStruct; flags: LokiFlags | undefined }
  | { ok: false; data: DataFile; problem: string };

/** The reference the repository keeps of Loki's structs, read once; undefined where it keeps none. */
export const lokiReference: (repo: Repo) => LokiReference | undefined = referenceFile(LOKI_REFERENCE, (doc: unknown) => {
  const read = referenceCatalog(doc);
  if ('problem' in read) return read;
  const type = referenceTypes(read.catalog);
  return { version: read.version, chartVersion: read.chartVersion, type, runtime: runtimeConfigType(type), flags: lokiFlags(doc) };
});

/**
 * Whether the cluster's Loki serves its HTTP API over TLS: its server's `http_tls_config` names a certificate
 * (dskit's server starts a TLS listener exactly when `cert_file` is set), read from the config.yaml the chart
 * rendered, else, offline, from the values that write the server block. Undefined where a rendered file does not parse.
 */
export function lokiServesTls(repo: Repo, resources: readonly Resource[]): boolean | undefined {
  const certOf = (server: unknown) => {
    const cert = dig(server, ['http_tls_config', 'cert_file']);
    return typeof cert === 'string' && cert.trim() !== '';
  };
  return lokiSetting(repo, resources, {
    rendered: (doc) => certOf(dig(doc, ['server'])),
    values: (values) => valuesConfigParts(values).some((part) => part.block === 'server' && certOf(part.value)),
    none: false,
  });
}

/** The header a multi-tenant Loki reads each request's tenant from (dskit's user.OrgIDHeaderName), matched case aside as HTTP does. */
export const LOKI_TENANT_HEADER = 'X-Scope-OrgID';
export const isTenantHeader = (name: string): boolean => name.trim().toLowerCase() === LOKI_TENANT_HEADER.toLowerCase();

/**
 * Whether the cluster's Loki runs multi-tenant: `auth_enabled`, true unless its config says false (Loki's flag
 * -auth.enabled defaults to true), so every push and query without a tenant (X-Scope-OrgID) is refused 401 "no org
 * id". Read from the rendered config.yaml, else offline from the values' `loki.auth_enabled` (the chart's default
 * true); undefined where a rendered file does not parse or no values say.
 */
export function lokiRequiresTenant(repo: Repo, resources: readonly Resource[]): boolean | undefined {
  return lokiSetting(repo, resources, {
    rendered: (doc) => dig(doc, ['auth_enabled']) !== false,
    values: (values) => {
      const set = dig(values, ['loki', 'auth_enabled']);
      return typeof set === 'boolean' ? set : undefined;
    },
  });
}

/** A setting of the cluster's Loki (the loki chart's): any of its rendered config.yaml files says it (undefined where one does not parse), else any of its values. */
function lokiSetting(
  repo: Repo,
  resources: readonly Resource[],
  read: { rendered: (doc: unknown) => boolean; values: (values: Record<string, unknown>) => boolean | undefined; none?: boolean },
): boolean | undefined {
  const rendered = resources.flatMap((r) => lokiConfigFile(r) ?? []);
  if (rendered.length > 0) {
    const parsed = rendered.map((file) => parseLokiFile(file.text));
    return parsed.some((p) => 'error' in p) ? undefined : parsed.some((p) => 'doc' in p && read.rendered(p.doc));
  }
  const said = chartValues(repo, LOKI_CHART).map((v) => read.values(v.values));
  return said.includes(true) ? true : said.includes(false) ? false : read.none;
}

/**
 * Why a client's URL for the cluster's Loki (a Service-domain host) speaks the other scheme than its server, or
 * undefined: TLS to a Loki that serves plain HTTP fails every handshake, and plain HTTP to one that takes TLS only is
 * answered 400 by Go's TLS server. Another host, or a Loki whose TLS is not known, is not said.
 */
export function lokiSchemeProblem(url: URL, lokiTls: boolean | undefined): string | undefined {
  if (!isServiceDomainHost(url.hostname)) return undefined;
  if (url.protocol === 'https:' && lokiTls === false)
    return "it speaks TLS to the cluster's Loki, which serves plain HTTP (its server has no TLS configuration): every handshake fails";
  if (url.protocol === 'http:' && lokiTls === true)
    return "it speaks plain HTTP to the cluster's Loki, whose server takes TLS only (its http_tls_config names a certificate): Go's TLS server answers every request 400";
  return undefined;
}

/** The Loki containers of the workloads the loki chart of Application `app` renders: what its config.yaml configures. */
export function lokiContainers(resources: readonly Resource[], app: string): { resource: Resource; pod: PodSpecRef; c: ContainerRef }[] {
  return [...workloadContainers(resources)].filter(
    ({ resource, c }) =>
      resource.rendered?.app === app && renderedByChart(resource, LOKI_CHART) && imageKey(scalarText(c.container.image ?? '')) === LOKI_IMAGE,
  );
}
