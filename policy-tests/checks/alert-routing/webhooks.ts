/**
 * The webhooks from outside the cluster (A9): the NAS, the hypervisor and its backup server reach Alertmanager
 * through the LAN's gateway, with bodies that, once each sender fills them in, carry the labels and summary the
 * event route expects.
 */
import { parseErrorLine } from '../../model/core/findings.ts';
import { alertmanagerConfigs, expectedReceiver, route } from '../../model/monitoring/alertmanager.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { ALERTS_API_PATH, PAYLOADS_DIR, postableAlerts, SENDERS_FILE, webhookSenders, type WebhookSender } from '../../model/monitoring/webhook-senders.ts';
import { fillBody, type BodyFiller } from '../../model/monitoring/webhook-bodies.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { dig } from '../../model/core/dig.ts';
import { ingressPathMatches, ingressRoutes, servicePort, LAN_GATEWAY } from '../../model/cluster/ingress-routes.ts';
import type { Path } from '../../model/core/positions.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { DataFile } from '../../model/repository/repo.ts';

/**
 * What each sender must push (A9; the spec's Events table: both critical, both on the event route), and how it fills
 * its body in. The NAS pushes at Warning and above, the hypervisor and its backup server on errors.
 */
interface ExpectedSender {
  labels: Readonly<Record<string, string>>;
  minimumLevel: string;
  filler: BodyFiller;
}
const HYPERVISOR: ExpectedSender = {
  labels: { alertname: 'HypervisorNotification', severity: 'critical', namespace: 'hypervisor' },
  minimumLevel: 'error',
  filler: 'proxmox-notify',
};
const SENDERS: Readonly<Record<string, ExpectedSender>> = {
  nas: { labels: { alertname: 'NasNotification', severity: 'critical', namespace: 'nas', node: 'nas' }, minimumLevel: 'warning', filler: 'dsm' },
  hypervisor: HYPERVISOR,
  'backup-server': HYPERVISOR,
};

/** A label that tells one event from the next, in each sender's own placeholders. */
const EVENT_LABEL: Readonly<Record<BodyFiller, string>> = { dsm: '"event": "@@TEXT@@"', 'proxmox-notify': '"event": "{{ timestamp }}"' };

const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** Alertmanager's silences, which the LAN must not reach. */
const SILENCES_API_PATH = '/api/v2/silences';

/** Whether a `Prefix` path routes the alerts API. */
const prefixCovers = (path: string) => ingressPathMatches(path, 'Prefix', ALERTS_API_PATH);

/** What mends each cause, printed with its finding (the remediation lists them all). */
const FIX = {
  sender: `record each sender in ${SENDERS_FILE} (url http(s)://<host>${ALERTS_API_PATH}, contentType application/json, payload, minimumLevel)`,
  body: `write each payload in ${PAYLOADS_DIR} as a JSON array of postable alerts with the labels and summary A9 gives, each text the hypervisor fills in as {{ escape <name> }}`,
  ingress: `serve the senders' host with alertmanager.ingress (ingressClassName ${LAN_GATEWAY}, pathType Prefix, paths [${ALERTS_API_PATH}] alone)`,
  dsmEscaping: "nothing in the repository settles it: send DSM's test message with a quote in its text, and see Alertmanager take it",
} as const;

/** What judging a sender needs: the check's context, the senders' file, and Alertmanager's configurations (read once). */
interface SenderContext {
  ctx: CheckContext;
  senders: DataFile;
  configs: ReturnType<typeof alertmanagerConfigs>;
}

/** The sender's entry: its URL (returned when Alertmanager takes pushes there), its content type and its level. */
function senderUrl({ ctx, senders }: SenderContext, sender: WebhookSender, minimumLevel: string): URL | undefined {
  const fail = (key: string, message: string) => ctx.fail({ data: senders, path: [...sender.at, key] }, message, FIX.sender);
  if (sender.contentType !== 'application/json')
    fail('contentType', `${sender.name} must send Content-Type application/json: Alertmanager refuses any other body`);
  if (sender.minimumLevel !== minimumLevel)
    fail('minimumLevel', `${sender.name} must push at ${minimumLevel} and above (A9), not ${JSON.stringify(sender.minimumLevel ?? '')}`);
  const url = URL.canParse(sender.url ?? '') ? new URL(sender.url!) : undefined;
  if (url && /^https?:$/.test(url.protocol) && url.pathname === ALERTS_API_PATH) return url;
  fail('url', `${sender.name} posts to ${JSON.stringify(sender.url ?? '')}; Alertmanager takes pushed alerts at http(s)://<host>${ALERTS_API_PATH}`);
  return undefined;
}

/** One payload as one way of filling it in sends it, with every sender that sends it so. */
interface SentBody {
  sender: WebhookSender;
  expected: ExpectedSender;
  names: string[];
}

/**
 * The body the senders push, as they fill the payload in: a postable JSON array, each alert with the labels and
 * summary A9 gives, routed to the event receiver.
 */
function checkPayload({ ctx, senders, configs }: SenderContext, { sender, expected, names }: SentBody): void {
  const who = names.join(', ');
  const payload = sender.payload ? ctx.repo.dataFiles.get(`${PAYLOADS_DIR}${sender.payload}`) : undefined;
  if (!payload)
    return ctx.fail(
      { data: senders, path: [...sender.at, 'payload'] },
      `${who}'s payload ${JSON.stringify(sender.payload ?? '')} is not a file in ${PAYLOADS_DIR}`,
      FIX.sender,
    );
  const failBody = (path: Path, message: string) => ctx.fail({ data: payload, path }, message, FIX.body);
  const refused = (path: Path, why: string) => failBody(path, `${payload.file} ${why}: Alertmanager refuses the body (HTTP 400)`);
  if (payload.errors[0]) return refused([], `is not JSON: ${parseErrorLine(payload.file, payload.errors[0])}`);
  const filled = fillBody(payload.data, expected.filler);
  for (const p of filled.problems)
    failBody(p.path, `${who} ${names.length > 1 ? 'fill' : 'fills'} in ${JSON.stringify(dig(payload.data, p.path))}, which ${p.why}`);
  // Once per body, not per sample event: the second filling below only compares labels.
  for (const n of filled.notJudged) ctx.notJudged({ data: payload, path: n.path }, `${who}: ${n.why}`, FIX.dsmEscaping);
  if (filled.data === undefined) return;
  const { alerts, problems } = postableAlerts(filled.data);
  for (const p of problems) refused(p.path, p.why);
  // An alert is its label set: a second event with the first one's labels only updates it, and chat never hears of it.
  const next = postableAlerts(fillBody(payload.data, expected.filler, 1).data).alerts;
  for (const alert of alerts) {
    if (next.some((other) => other.at[0] === alert.at[0] && sameLabels(other.labels, alert.labels)))
      failBody(
        [...alert.at, 'labels'],
        `${who} ${names.length > 1 ? 'give' : 'gives'} two different events the same labels, so Alertmanager takes the second for an update of the first and never sends it (A13: each event goes to chat): add a label that carries the event, such as ${EVENT_LABEL[expected.filler]}`,
      );
    for (const [key, value] of Object.entries(expected.labels))
      if (alert.labels[key] !== value) failBody([...alert.at, 'labels', ...(key in alert.labels ? [key] : [])], `${who}'s alerts carry ${key}="${value}" (A9)`);
    if (!alert.annotations.summary) failBody([...alert.at, 'annotations'], `${who}'s alerts carry a summary annotation (A9)`);
    for (const { config } of configs) {
      const want = expectedReceiver(alert.labels);
      const got = route(config, alert.labels).map((hit) => hit.receiver);
      if (!got.includes(want)) failBody([...alert.at, 'labels'], `Alertmanager routes ${who}'s alerts to ${got.join(', ')}, not ${want}`);
    }
  }
}

/** The values' Ingress for Alertmanager serves `url` on the LAN gateway; else where and why not. */
function ingressProblem(values: Record<string, unknown>, url: URL): { path: Path; why: string } | undefined {
  const ingress = dig(values, ['alertmanager', 'ingress']) as
    | { enabled?: unknown; ingressClassName?: unknown; hosts?: unknown; paths?: unknown; pathType?: unknown }
    | undefined;
  const at: Path = ingress ? ['alertmanager', 'ingress'] : ['alertmanager'];
  if (ingress?.enabled !== true) return { path: at, why: 'Alertmanager has no Ingress (alertmanager.ingress.enabled)' };
  if (ingress.ingressClassName !== LAN_GATEWAY) return { path: at, why: `its Ingress is not of class ${LAN_GATEWAY}, the LAN's proxy` };
  if (!Array.isArray(ingress.hosts) || !ingress.hosts.includes(url.hostname)) return { path: at, why: `its Ingress does not serve ${url.hostname}` };
  const paths = Array.isArray(ingress.paths) ? ingress.paths : [dig(values, ['alertmanager', 'alertmanagerSpec', 'routePrefix']) ?? '/'];
  if (ingress.pathType !== 'Prefix' || !paths.some((p) => typeof p === 'string' && prefixCovers(p)))
    return { path: at, why: `its Ingress has no pathType Prefix path that covers ${ALERTS_API_PATH}` };
  // The Ingress exists for the pushes alone: the silences API on the LAN would let any device there silence the Watchdog.
  if (paths.some((p) => typeof p === 'string' && ingressPathMatches(p, 'Prefix', SILENCES_API_PATH)))
    return {
      path: [...at, 'paths'],
      why: `its Ingress also routes ${SILENCES_API_PATH} and the UI, so any device on the LAN can silence alerts, the Watchdog's heartbeat among them: route ${ALERTS_API_PATH} alone`,
    };
  return undefined;
}

/** Whether the rendered Ingresses route `url` to a Service of Alertmanager's pods, on a port the Service has. */
function renderedRoute(resources: readonly Resource[], url: URL): boolean {
  const services = resources.filter((r) => r.kind === 'Service' && dig(r.object, ['spec', 'selector', 'app.kubernetes.io/name']) === 'alertmanager');
  return resources.some(
    (r) =>
      r.kind === 'Ingress' &&
      dig(r.object, ['spec', 'ingressClassName']) === LAN_GATEWAY &&
      ingressRoutes(r).some(
        ({ host, path, pathType, service }) =>
          host === url.hostname &&
          pathType === 'Prefix' &&
          prefixCovers(path) &&
          services.some((s) => s.name === service?.name && s.namespace === r.namespace && servicePort(s, service.port)),
      ),
  );
}

export const webhookCheck: PolicyCheck = {
  id: 'alert-webhooks',
  description: `The NAS, the hypervisor and its backup server push to Alertmanager's ${ALERTS_API_PATH} through the LAN's gateway, as ${SENDERS_FILE} records, with JSON bodies that, as each sender fills them in, carry the labels and summary the event route expects and tell one event from the next (A9, A13).`,
  invariants: ['A9', 'A13'],
  remediation: [FIX.sender, FIX.body, FIX.ingress].join('; '),
  reads: { kinds: ['Ingress', 'Service'], files: [`${PAYLOADS_DIR}*`], charts: ['kube-prometheus-stack'], renders: true },
  exemptible: false,
  run(ctx) {
    const recorded = webhookSenders(ctx.repo);
    if (!recorded)
      return ctx.fail({ file: `${PAYLOADS_DIR}README.md` }, `${SENDERS_FILE} is missing: nothing records where the NAS and the hypervisor push`, FIX.sender);
    const names = new Set(recorded.senders.map((s) => s.name));
    for (const name of Object.keys(SENDERS).filter((n) => !names.has(n)))
      ctx.fail({ data: recorded.file, path: ['senders'] }, `no entry for ${name}, which A9 says pushes to Alertmanager`, FIX.sender);
    const env: SenderContext = { ctx, senders: recorded.file, configs: alertmanagerConfigs(ctx.repo) };
    // Each URL once, naming every sender that posts to it: they share Alertmanager's one address.
    const byUrl = new Map<string, { url: URL; names: string[] }>();
    // Each body once per way of filling it in: the hypervisor and its backup server send one template alike.
    const bodies = new Map<string, SentBody>();
    for (const sender of recorded.senders) {
      const expected = SENDERS[sender.name];
      if (!expected) {
        ctx.fail(
          { data: recorded.file, path: [...sender.at, 'name'] },
          `unknown sender "${sender.name}": A9 names ${Object.keys(SENDERS).join(', ')}`,
          FIX.sender,
        );
        continue;
      }
      const key = JSON.stringify([sender.payload, expected]);
      bodies.set(key, { sender, expected, names: [...(bodies.get(key)?.names ?? []), sender.name] });
      const url = senderUrl(env, sender, expected.minimumLevel);
      if (url) byUrl.set(url.href, { url, names: [...(byUrl.get(url.href)?.names ?? []), sender.name] });
    }
    for (const body of bodies.values()) checkPayload(env, body);
    const render = ctx.renders.find((r) => r.source.chart === 'kube-prometheus-stack');
    const stacks = chartValues(ctx.repo, 'kube-prometheus-stack');
    for (const { url, names } of byUrl.values()) {
      const who = `${names.join(', ')} ${names.length > 1 ? 'post' : 'posts'} to ${url.href}`;
      for (const { values, source } of stacks) {
        const problem = ingressProblem(values, url);
        if (problem) ctx.fail({ data: source, path: problem.path }, `${who}, but ${problem.why}`, FIX.ingress);
      }
      // Not rendered (no chart in the cache): the summary counts the source as not judged, and the values speak above.
      if (render?.status === 'rendered' && !renderedRoute(ctx.resources, url))
        ctx.fail(
          { resource: render.app.resource, path: [...render.source.at, 'chart'] },
          `${who}, but no rendered Ingress of class ${LAN_GATEWAY} routes it to Alertmanager's Service`,
          FIX.ingress,
        );
    }
  },
};
