/**
 * What reaches chat (A12-A15): only critical alerts (and every app-a alert), critical alerts with their resolved
 * messages, the hypervisor's and the NAS's events one-shot, and every message with the alerts' own words.
 */
import { alertmanagerConfigs, CONFIG_PATH, route, routeMatchers, sendsToChat, type AmRoute } from '../../model/monitoring/alertmanager.ts';
import { matcherMatches } from '../../model/alertmanager/matchers.ts';
import { alertRules } from '../../model/monitoring/prometheus-rules.ts';
import type { Path } from '../../model/core/positions.ts';
import { objects, str } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

const routePath = (path: number[]): Path => [...CONFIG_PATH, 'route', ...path.flatMap((i) => ['routes', i])];

function childRoutes(root: AmRoute): { route: AmRoute; path: number[] }[] {
  const out: { route: AmRoute; path: number[] }[] = [];
  const walk = (node: AmRoute, path: number[]) =>
    (objects(node.routes) as AmRoute[]).forEach((child, i) => {
      out.push({ route: child, path: [...path, i] });
      walk(child, [...path, i]);
    });
  walk(root, []);
  return out;
}

export const routingCheck: PolicyCheck = {
  id: 'alert-routing',
  description: 'Only critical alerts and app-a alerts reach chat; critical routes send resolved messages; the hypervisor/NAS event route does not (A12-A15).',
  invariants: ['A12', 'A13', 'A14', 'A15'],
  remediation: 'route warnings to the "null" receiver, set send_resolved: true on the critical receiver and false on the event receiver',
  reads: { kinds: ['PrometheusRule'], charts: ['kube-prometheus-stack'] },
  exemptible: false,
  run(ctx) {
    const rules = alertRules(ctx.repo);
    const configs = alertmanagerConfigs(ctx.repo);
    // No routing to read is a finding, never a pass.
    if (configs.length === 0)
      ctx.fail(
        { file: 'monitoring/README.md' },
        'no Application deploys the kube-prometheus-stack chart with values from this repo: there is no Alertmanager routing to check',
      );
    for (const { file, config, source } of configs) {
      const fail = (path: Path, message: string) => {
        const { line, col } = source.positions.at(path, 'key');
        ctx.fail({ file: file, line, col }, message);
      };
      const receivers = new Map(config.receivers.map((r, i) => [r.name, { receiver: r, index: i }]));
      for (const rule of rules) {
        const labels: Record<string, string> = { alertname: rule.alert, namespace: 'monitoring', ...rule.labels };
        if (labels.severity === 'critical' || labels.namespace === 'app-a' || labels.alertname === 'Watchdog') continue;
        for (const hit of route(config, labels)) {
          if (sendsToChat(receivers.get(hit.receiver)?.receiver))
            fail(routePath(hit.path), `${rule.alert} (severity ${labels.severity}) would reach chat through receiver "${hit.receiver}"`);
        }
      }
      for (const { route: r } of childRoutes(config.route)) {
        const target = r.receiver ? receivers.get(r.receiver) : undefined;
        if (!target) continue;
        // A route selects critical alerts, or the events, where one of its matchers on that label takes that value.
        const selects = (label: string, values: string[]) => (routeMatchers(r) ?? []).some((m) => m.name === label && values.some((v) => matcherMatches(m, v)));
        const slack = objects(target.receiver.slack_configs) as { send_resolved?: boolean }[];
        const at = (i: number): Path => [...CONFIG_PATH, 'receivers', target.index, 'slack_configs', i, 'send_resolved'];
        if (selects('severity', ['critical']))
          slack.forEach((s, i) => s.send_resolved !== true && fail(at(i), `critical alerts go to "${r.receiver}" without send_resolved: true`));
        if (selects('namespace', ['hypervisor', 'nas']))
          slack.forEach((s, i) => s.send_resolved !== false && fail(at(i), `the event route "${r.receiver}" must not send resolved messages`));
      }
    }
  },
};

/** A Slack text that prints every alert's own summary: a range over the alerts that reads each one's summary. */
const EACH_ALERT = /\{\{-?\s*range\s+(\$\w+\s*:=\s*)?\.Alerts(\.Firing)?\s*-?\}\}/;
const SUMMARY = /\.Annotations\.summary\b|index\s+\.Annotations\s+"summary"/;

export const chatTextCheck: PolicyCheck = {
  id: 'alert-chat-text',
  description:
    "Every chat message carries each alert's own words: every slack_configs entry sets a text that ranges over .Alerts and prints .Annotations.summary. Alertmanager's own Slack text is empty, so chat would show an alert's name and labels, and never what the NAS, the hypervisor or the rule said (A9, A12-A14).",
  invariants: ['A9', 'A12', 'A13', 'A14'],
  remediation: `set text: '{{ range .Alerts }}{{ .Annotations.summary }}{{ "\\n" }}{{ end }}' on the slack_configs entry`,
  reads: { charts: ['kube-prometheus-stack'] },
  exemptible: false,
  run(ctx) {
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
