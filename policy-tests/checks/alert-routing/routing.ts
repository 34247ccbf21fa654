/**
 * What reaches chat (A12-A15): critical alerts with their resolved messages, the hypervisor's and the NAS's events
 * one-shot, app-a's alerts at every severity, and nothing else; and every message with the alerts' own words. Each
 * alert is followed through the routing tree to what its receivers post: a receiver's name says nothing.
 */
import {
  ALERTMANAGER_CHART,
  alertmanagerConfigs,
  CONFIG_PATH,
  EVENT_SEVERITIES,
  EVENTS_ROWS,
  inhibits,
  judgedAlertmanagerConfigs,
  route,
  sendsToChat,
  wantedDelivery,
  type AmConfig,
  type AmReceiver,
} from '../../model/monitoring/alertmanager.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { renderedByChart } from '../../model/helm/chart-output.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { alertRules, ruleEntries } from '../../model/monitoring/prometheus-rules.ts';
import type { Path } from '../../model/core/positions.ts';
import { dig, obj, objects, str } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { alertmanagerConfigProblems } from '../../model/alertmanager/config.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import { clusterNamespaces } from '../../model/cluster/providers.ts';
import { labelSlips } from './label-slips.ts';

const routePath = (path: number[]): Path => ['route', ...path.flatMap((i) => ['routes', i])];

/** The PrometheusRules' alert names, those a chart renders among them (kube-prometheus-stack's InfoInhibitor). */
const renderedAlertNames = (resources: readonly Resource[]): Set<string> => new Set(ruleEntries(resources).map(({ rule }) => scalarText(rule.alert ?? '')));

/**
 * The alerts that fire whenever `target` does, or always, and so inhibit it for good where a rule's source matches
 * them: the Watchdog (always); kube-prometheus-stack's InfoInhibitor, which fires in every namespace whose only firing
 * alerts are info (its rule: ALERTS{severity="info"} unless a warning or critical one), where a rule defines it.
 */
function standingSources(
  target: Record<string, string>,
  watchdog: readonly Record<string, string>[],
  infoInhibitor: boolean,
): { labels: Record<string, string>; why: string }[] {
  return [
    ...watchdog.map((labels) => ({ labels, why: 'the Watchdog, which always fires' })),
    ...(infoInhibitor && target.severity === 'info'
      ? [
          {
            labels: { alertname: 'InfoInhibitor', severity: 'none', namespace: target.namespace ?? '' },
            why: "InfoInhibitor, which fires in the alert's namespace whenever its only firing alerts are info",
          },
        ]
      : []),
  ];
}

/**
 * A severity the Events table does not route is a slip nobody sees: Alertmanager sends `critcal` where a warning goes
 * (the "null" receiver), and the critical alert it was meant to be never reaches chat. So does an alert with none
 * (its label dropped in an edit): each alert says its severity, `none` where it is meant to notify no one.
 */
function unroutedSeverities(ctx: CheckContext): void {
  eachOwnAlert(ctx, (r, rule, at) => {
    const severity = dig(rule, ['labels', 'severity']);
    if (severity === undefined) {
      ctx.fail(
        { resource: r, path: dig(rule, ['labels']) === undefined ? [...at, 'alert'] : [...at, 'labels'] },
        `${scalarText(rule.alert)} has no severity: Alertmanager sends it where a warning goes (the "null" receiver), and if it was meant for chat it never gets there; say its severity (${EVENT_SEVERITIES.join(', ')})`,
      );
      return;
    }
    if (EVENT_SEVERITIES.includes(scalarText(severity))) return;
    ctx.fail(
      { resource: r, path: [...at, 'labels', 'severity'] },
      `${scalarText(rule.alert)} has severity ${JSON.stringify(scalarText(severity))}, which the Events table does not route (${EVENT_SEVERITIES.join(', ')})${didYouMean(scalarText(severity), EVENT_SEVERITIES)}: Alertmanager sends it where a warning goes`,
    );
  });
}

/**
 * An alert's namespace label written in its rule says where the alert is about, and the routing tree sends app-a's
 * and the hypervisor's and NAS's by it: one that names no namespace the cluster has and no row of the Events table
 * (`apq-a`) is a slip Alertmanager routes as any other namespace's, a warning to the "null" receiver.
 */
function unknownNamespaces(ctx: CheckContext): void {
  const known = new Set([...clusterNamespaces(ctx), ...EVENTS_ROWS.flatMap((row) => (row.labels.namespace ? [row.labels.namespace] : []))]);
  eachOwnAlert(ctx, (r, rule, at) => {
    const namespace = dig(rule, ['labels', 'namespace']);
    // A templated label takes the series' own namespace, which is the cluster's.
    if (namespace === undefined || scalarText(namespace).includes('{{') || known.has(scalarText(namespace))) return;
    ctx.fail(
      { resource: r, path: [...at, 'labels', 'namespace'] },
      `${scalarText(rule.alert)} says namespace ${JSON.stringify(scalarText(namespace))}, which the cluster does not have and the Events table does not route${didYouMean(scalarText(namespace), known)}: Alertmanager routes it as any other namespace's alert, a warning to the "null" receiver`,
    );
  });
}

/** Each alert rule of the repository's own PrometheusRules (a chart's rules are its author's), with its path. */
function eachOwnAlert(ctx: CheckContext, body: (r: Resource, rule: Record<string, unknown>, at: Path) => void): void {
  for (const { resource, rule, path } of ruleEntries(ctx.resources)) if (!resource.rendered && rule.alert !== undefined) body(resource, rule, path);
}

export const routingCheck: PolicyCheck = {
  id: 'alert-routing',
  description:
    "Critical alerts reach chat with their resolved messages, the hypervisor/NAS events reach it without, app-a alerts reach it at every severity, and nothing else does: each alert rule and each row of the Events table followed through the routing tree of the configuration the cluster gets (the chart's rendered one, its defaults merged in, where it renders) to what its receivers post, and none muted for good by an inhibit rule whose source matches an alert that fires whenever it does (the Watchdog; kube-prometheus-stack's InfoInhibitor for info alerts); every alert rule of the repository has a severity the Events table routes (critical, warning, info; none), so a misspelt or dropped critical is not sent where a warning goes, and a namespace it writes is one the cluster has or the Events table routes, so a misspelt app-a is not either; and no inhibit rule holds its alerts to an equal label one slip from a label they carry (`namepsace`), which both lack and so always match, muting its targets in every namespace, no route groups by a label one slip from one they carry (`namspace`: one notification for every namespace), no inhibit rule's side matches a severity or alert name one slip from one they have, which matches no alert, and no route or inhibit rule side matches on a label one slip from one they carry (`severitz = info`), which every alert lacks, so it matches none of them, or all (A12-A15).",
  invariants: ['A12', 'A13', 'A14', 'A15'],
  remediation:
    'spell each alert\'s severity as the Events table does (critical, warning, info); route warnings to the "null" receiver, route critical, hypervisor/NAS and app-a alerts to receivers with slack_configs, set send_resolved: true on the critical receiver and false on the event receiver; keep the Watchdog (and, for alerts meant for chat, InfoInhibitor) out of the source of every inhibit rule',
  reads: { kinds: ['PrometheusRule', 'Secret', 'Application'], charts: [ALERTMANAGER_CHART], renders: true },
  exemptible: false,
  run(ctx) {
    // The configurations are parsed once, for the equal labels and the routing alike.
    const configs = judgedAlertmanagerConfigs(ctx.resources, ctx.repo);
    for (const judge of [unroutedSeverities, unknownNamespaces, labelSlips]) judge(ctx, configs);
    const rules = alertRules(ctx.repo);
    // No routing to read is a finding, never a pass.
    if (configs.length === 0)
      ctx.fail(
        { file: 'monitoring/README.md' },
        'no Application deploys the kube-prometheus-stack chart with values from this repo: there is no Alertmanager routing to check',
      );
    const watchdog = [
      ...rules.filter((r) => r.alert === 'Watchdog').map((r) => ({ alertname: r.alert, ...r.labels })),
      ...EVENTS_ROWS.map((row) => row.labels).filter((l) => l.alertname === 'Watchdog'),
    ];
    // Where the chart renders, its rules say; offline, its values do (general.rules.yaml: create, rules.general, disabled).
    const rendered = ctx.resources.some((r) => r.kind === 'PrometheusRule' && renderedByChart(r, ALERTMANAGER_CHART));
    const infoInhibitor = rendered
      ? renderedAlertNames(ctx.resources).has('InfoInhibitor')
      : chartValues(ctx.repo, ALERTMANAGER_CHART).some(
          (v) =>
            dig(v.values, ['defaultRules', 'create']) !== false &&
            dig(v.values, ['defaultRules', 'rules', 'general']) !== false &&
            dig(v.values, ['defaultRules', 'disabled', 'InfoInhibitor']) !== true,
        );
    const rows: Record<string, string>[] = [
      ...rules.map((rule) => ({ alertname: rule.alert, namespace: 'monitoring', ...rule.labels })),
      ...EVENTS_ROWS.map((row) => row.labels),
    ].filter((labels) => labels.alertname !== 'Watchdog');
    for (const { config: loaded, error, place } of configs) {
      // A configuration Alertmanager refuses never routes: alertmanager-config-loads names why, and the old one stays.
      if (error !== undefined || alertmanagerConfigProblems(loaded).length > 0) {
        ctx.notJudged(place([]), 'Alertmanager refuses this configuration (alertmanager-config-loads): where it would route each alert is not judged');
        continue;
      }
      const config = loaded as AmConfig;
      const said = new Set<string>();
      const fail = (path: Path, message: string) => {
        if (said.has(`${path.join('.')} ${message}`)) return;
        said.add(`${path.join('.')} ${message}`);
        ctx.fail(place(path), message);
      };
      const receivers = new Map(objects(config.receivers).map((r, i) => [scalarText(r.name ?? ''), { receiver: r as unknown as AmReceiver, index: i }]));
      for (const labels of rows) {
        const want = wantedDelivery(labels);
        const hits = route(config, labels);
        const toChat = hits.filter((hit) => sendsToChat(receivers.get(hit.receiver)?.receiver));
        const what = `${labels.alertname} (severity ${labels.severity ?? 'none'}, namespace ${labels.namespace})`;
        if (!want.chat) {
          for (const hit of toChat) fail(routePath(hit.path), `${what} would reach chat through receiver "${hit.receiver}"`);
          continue;
        }
        const sources = standingSources(labels, watchdog, infoInhibitor);
        const muting = objects(config.inhibit_rules)
          .map((rule, index) => ({ index, by: sources.find((s) => inhibits(rule, s.labels, labels)) }))
          .find((m) => m.by !== undefined);
        if (muting) {
          fail(
            ['inhibit_rules', muting.index],
            `${what} is muted for good by this inhibit rule: its source matches ${muting.by!.why}, so the alert never reaches chat (${want.invariant})`,
          );
          continue;
        }
        if (toChat.length === 0) {
          const hit = hits[0]!;
          fail(routePath(hit.path), `${what} reaches receiver "${hit.receiver}" through this route, which posts nowhere in chat (${want.invariant})`);
          continue;
        }
        if (want.resolved === undefined) continue;
        for (const hit of toChat) {
          const { receiver, index } = receivers.get(hit.receiver)!;
          (objects(receiver.slack_configs) as { send_resolved?: boolean }[]).forEach((slack, i) => {
            if (slack.send_resolved === want.resolved) return;
            fail(
              ['receivers', index, 'slack_configs', i, 'send_resolved'],
              want.resolved
                ? `critical alerts go to "${hit.receiver}" without send_resolved: true`
                : `the event route "${hit.receiver}" must not send resolved messages`,
            );
          });
        }
      }
    }
  },
};

/** A Slack text that prints every alert's own summary: a range over the alerts that reads each one's summary. */
const EACH_ALERT = /\{\{-?\s*range\s+(\$\w+\s*:=\s*)?\.Alerts(\.Firing)?\s*-?\}\}/;
const SUMMARY = /\.Annotations\.summary\b|index\s+\.Annotations\s+"summary"/;

/** Each alert rule of the repository that the Events table sends to chat has a summary for its message to print. */
function unsummarized(ctx: CheckContext): void {
  eachOwnAlert(ctx, (r, rule, at) => {
    if (rule.alert === 'Watchdog') return;
    const labels = Object.fromEntries(Object.entries(obj(rule.labels)).map(([k, v]) => [k, scalarText(v)]));
    if (!wantedDelivery({ alertname: scalarText(rule.alert), namespace: 'monitoring', ...labels }).chat) return;
    const summary = dig(rule, ['annotations', 'summary']);
    if (typeof summary === 'string' && summary.trim() !== '') return;
    ctx.fail(
      { resource: r, path: [...at, rule.annotations === undefined || rule.annotations === null ? 'alert' : 'annotations'] },
      `${scalarText(rule.alert)} reaches chat with ${summary === undefined || summary === null ? 'no summary annotation' : 'a summary that is no text'}: chat prints each alert's summary, so its message would say nothing`,
    );
  });
}

export const chatTextCheck: PolicyCheck = {
  id: 'alert-chat-text',
  description:
    "Every chat message carries each alert's own words: every slack_configs entry sets a text that ranges over .Alerts and prints .Annotations.summary, and every alert rule of the repository that reaches chat has a summary to print. Alertmanager's own Slack text is empty, so chat would show an alert's name and labels, and never what the NAS, the hypervisor or the rule said (A9, A12-A14).",
  invariants: ['A9', 'A12', 'A13', 'A14'],
  remediation: `set text: '{{ range .Alerts }}{{ .Annotations.summary }}{{ "\\n" }}{{ end }}' on the slack_configs entry, and give each alert that reaches chat a summary annotation`,
  reads: { kinds: ['PrometheusRule'], charts: ['kube-prometheus-stack'] },
  exemptible: false,
  run(ctx) {
    unsummarized(ctx);
    for (const { file, config, source } of alertmanagerConfigs(ctx.repo)) {
      objects(config.receivers).forEach((receiver, i) =>
        (objects(receiver.slack_configs) as { text?: unknown }[]).forEach((slack, j) => {
          const at: Path = [...CONFIG_PATH, 'receivers', i, 'slack_configs', j];
          if (typeof slack.text === 'string' && EACH_ALERT.test(slack.text) && SUMMARY.test(slack.text)) return;
          const { line, col } = source.positions.at(slack.text === undefined ? at : [...at, 'text'], 'key');
          ctx.fail(
            { file, line, col },
            slack.text === undefined
              ? `receiver "${str(receiver.name)}" posts to chat with Alertmanager's own Slack text, which is empty: its messages never say what happened`
              : `receiver "${str(receiver.name)}"'s text does not print each alert's summary ({{ range .Alerts }}...{{ .Annotations.summary }}...{{ end }})`,
          );
        }),
      );
    }
  },
};
