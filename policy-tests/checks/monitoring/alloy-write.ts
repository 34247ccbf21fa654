/**
 * alloy-ships-logs: a log shipper's logs reach the log store. Each `loki.source.*` component of an Alloy configuration
 * hands its entries to the receivers its `forward_to` lists; `loki.process` and `loki.relabel` hand theirs on through
 * their own `forward_to`, and `loki.write` sends them to its endpoints. A source whose receivers lead to no
 * `loki.write` (an empty list, say) reads every log and sends it nowhere; Alloy loads it all the same. Each endpoint
 * of a `loki.write` a source reaches is a push API Loki serves: Loki v3.7 routes a push on `/loki/api/v1/push` and
 * `/api/prom/push` alone (pkg/loki/modules.go, gorilla/mux's exact paths), and any other path is a 404 for every batch;
 * a Loki of the cluster (a `.svc` host) speaks plain HTTP unless its server has a TLS configuration, so `https://` to
 * it fails every handshake. What is not worked out (a URL read at run time, a receiver of a declared component) is
 * said not judged.
 */
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { isTenantHeader, lokiRequiresTenant, lokiSchemeProblem, lokiServesTls } from '../../model/loki/config.ts';
import { attributeNamed, blocksNamed, parseAlloy, type AlloyExpr, type AlloyStatement } from '../../model/alloy/parser.ts';
import { chain, evaluate } from '../../model/alloy/evaluate.ts';
import { plainValue } from '../../model/alloy/evaluated.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { isServiceDomainHost } from '../../model/cluster/service-addresses.ts';
import { nodeId } from '../../model/alloy/references.ts';
import { alloyConfiguration } from './alloy-config.ts';

type Block = AlloyStatement & { kind: 'block' };

/** Loki's push routes (constants.PathLokiPush, PathPromPush at v3.7.6). */
const PUSH_PATHS = ['/loki/api/v1/push', '/api/prom/push'];
/** The components that take entries and hand them on through their own forward_to. */
const RELAYS = ['loki.process', 'loki.relabel'];

/** The blocks a forward_to list names by their `receiver` export, and whether every item was followed. */
function receivers(body: readonly AlloyStatement[], list: AlloyExpr | undefined): { blocks: Block[]; unread: boolean } {
  const items = list?.kind === 'other' && list.shape && 'array' in list.shape ? list.parts : undefined;
  if (!items) return { blocks: [], unread: list !== undefined };
  const blocks: Block[] = [];
  let unread = false;
  for (const item of items) {
    const names = chain(item)?.names;
    const found =
      names && names.at(-1) === 'receiver' ? body.find((b): b is Block => b.kind === 'block' && nodeId(b) === names.slice(0, -1).join('.')) : undefined;
    if (found) blocks.push(found);
    else unread = true;
  }
  return { blocks, unread };
}

/** The loki.write blocks a source's entries reach, through relays; `unread` where a receiver is not followed. */
function writersOf(body: readonly AlloyStatement[], source: Block): { writers: Block[]; unread: boolean } {
  const writers = new Set<Block>();
  const seen = new Set<Block>([source]);
  let unread = false;
  const queue = [source];
  while (queue.length) {
    const from = queue.shift()!;
    const next = receivers(body, attributeNamed(from.body, 'forward_to')?.value);
    unread ||= next.unread;
    for (const b of next.blocks) {
      const name = b.name.join('.');
      if (name === 'loki.write') writers.add(b);
      else if (RELAYS.includes(name) && !seen.has(b)) {
        seen.add(b);
        queue.push(b);
      } else if (!RELAYS.includes(name)) unread = true;
    }
  }
  return { writers: [...writers], unread };
}

/** Why an endpoint URL is not a Loki push API the shipper can reach, or undefined. */
function endpointProblem(url: string, lokiTls: boolean | undefined): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // alloy-config-loads refuses a URL Alloy cannot parse
  }
  const inCluster = isServiceDomainHost(parsed.hostname);
  // Behind a proxy of its own (another host) Loki's route may sit under a prefix; the cluster's Loki serves it at the root.
  if (inCluster ? !PUSH_PATHS.includes(parsed.pathname) : !PUSH_PATHS.some((p) => parsed.pathname.endsWith(p)))
    return `its path ${parsed.pathname} is no push route of Loki's (${PUSH_PATHS.join(', ')}): every batch is answered 404`;
  return lokiSchemeProblem(parsed, lokiTls);
}

/**
 * Whether an endpoint sends the tenant a multi-tenant Loki needs: its `tenant_id`, or an X-Scope-OrgID among its
 * `headers`; undefined where a `stage.tenant` of the configuration may set it per entry, or its headers are not worked out.
 */
function sendsTenant(endpoint: Block, scope: Parameters<typeof evaluate>[1], text: string): boolean | undefined {
  if (attributeNamed(endpoint.body, 'tenant_id')) return true;
  const headers = attributeNamed(endpoint.body, 'headers');
  const value = headers ? plainValue(evaluate(headers.value, scope)) : {};
  if (value !== null && typeof value === 'object' && Object.keys(value).some(isTenantHeader)) return true;
  return text.includes('stage.tenant') || value === undefined || typeof value !== 'object' ? undefined : false;
}

function judge(ctx: CheckContext, v: ChartValues, loki: { tls: boolean | undefined; tenants: boolean | undefined }): void {
  const lokiTls = loki.tls;
  const configuration = alloyConfiguration(ctx, v);
  if (!configuration) return;
  const { body, errors } = parseAlloy(configuration.text);
  if (errors.length > 0) return;
  const scope = { nodeValue: () => undefined, ...(configuration.host ? { host: configuration.host } : {}) };
  const judged = new Set<Block>();
  for (const source of body.filter((b): b is Block => b.kind === 'block' && b.name.join('.').startsWith('loki.source.'))) {
    // Without forward_to Alloy refuses the file (a required argument): alloy-config-loads says so.
    if (!attributeNamed(source.body, 'forward_to')) continue;
    const where = `${source.name.join('.')} "${source.label}" (${v.appName})`;
    const { writers, unread } = writersOf(body, source);
    if (writers.length === 0) {
      if (unread) ctx.notJudged(configuration.place(source.line), `${where} hands its entries to receivers the gate does not follow to a loki.write`);
      else ctx.fail(configuration.place(source.line), `${where} hands its entries to no loki.write: it reads every log and sends it nowhere`);
      continue;
    }
    for (const writer of writers.filter((w) => !judged.has(w))) {
      judged.add(writer);
      for (const endpoint of blocksNamed(writer.body, 'endpoint')) {
        const url = attributeNamed(endpoint.body, 'url');
        const text = url ? plainValue(evaluate(url.value, scope)) : undefined;
        if (typeof text !== 'string') {
          ctx.notJudged(
            configuration.place(url?.line ?? endpoint.line),
            `loki.write "${writer.label}" (${v.appName}) sends to a URL the gate does not work out`,
          );
          continue;
        }
        const problem = endpointProblem(text, lokiTls);
        const inCluster = URL.canParse(text) && isServiceDomainHost(new URL(text).hostname);
        if (!problem && lokiTls === undefined && inCluster)
          ctx.notJudged(
            configuration.place(url!.line),
            `loki.write "${writer.label}" (${v.appName}) sends to ${text}, and the cluster's Loki config does not parse: whether it takes TLS is not judged`,
          );
        if (problem)
          ctx.fail(
            configuration.place(url!.line),
            `loki.write "${writer.label}" (${v.appName}) sends to ${text}, and ${problem}: no log reaches the log store`,
          );
        else if (loki.tenants && inCluster) {
          const tenant = sendsTenant(endpoint, scope, configuration.text);
          if (tenant === undefined)
            ctx.notJudged(
              configuration.place(endpoint.line),
              `loki.write "${writer.label}" (${v.appName}): whether it sends the multi-tenant Loki a tenant is not worked out`,
            );
          else if (!tenant)
            ctx.fail(
              configuration.place(endpoint.line),
              `loki.write "${writer.label}" (${v.appName}) sends to ${text} with no tenant (tenant_id, or an X-Scope-OrgID header), and the cluster's Loki runs multi-tenant (auth_enabled, its default): it refuses every push 401 "no org id", and no log reaches the log store`,
            );
        }
      }
    }
  }
}

export const alloyWriteCheck: PolicyCheck = {
  id: 'alloy-ships-logs',
  description:
    "Each log source of an Alloy configuration the log shippers run (loki.source.*) hands its entries, through loki.process and loki.relabel, to a loki.write, and each endpoint of it is a push route Loki serves (/loki/api/v1/push or /api/prom/push; Loki v3.7 answers any other path 404), over plain HTTP to the cluster's Loki unless its server takes TLS, and then over https (its server's http_tls_config names a certificate, as its rendered config.yaml says, else its values), with a tenant (tenant_id, or an X-Scope-OrgID header) where that Loki runs multi-tenant (auth_enabled, Loki's default; one a stage.tenant may set is not judged); otherwise Alloy loads and runs, and no log reaches the log store. What is not worked out is said not judged (A2).",
  invariants: ['A2'],
  remediation: 'forward each source to loki.write.<label>.receiver, and send to http://loki.<namespace>.svc:3100/loki/api/v1/push',
  reads: { kinds: withKeyProviders('Application', 'ConfigMap', 'DaemonSet', 'Deployment', 'StatefulSet'), charts: ['alloy', 'loki'], renders: true },
  exemptible: false,
  run(ctx) {
    // Whether the cluster's Loki takes TLS, from its rendered config.yaml, else its values (undefined: a file that does not parse, loki-config's to say).
    const loki = { tls: lokiServesTls(ctx.repo, ctx.resources), tenants: lokiRequiresTenant(ctx.repo, ctx.resources) };
    for (const v of chartValues(ctx.repo, 'alloy')) judge(ctx, v, loki);
  },
};
