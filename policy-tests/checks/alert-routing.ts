/**
 * The alert path (A12-A15): only critical alerts (and every app-a alert)
 * reach chat; critical alerts send resolved messages; the event route for
 * the hypervisor and the NAS is one-shot.
 */
import { alertmanagerConfigs, CONFIG_PATH, route, sendsToChat, type AmRoute } from '../model/monitoring/alertmanager.ts';
import { alertRules } from '../model/monitoring/prometheus-rules.ts';
import type { Path } from '../model/core/positions.ts';
import { type PolicyCheck, type Area, staticArea } from '../model/checks/kit.ts';

const routePath = (path: number[]): Path => [...CONFIG_PATH, 'route', ...path.flatMap((i) => ['routes', i])];

function childRoutes(root: AmRoute): { route: AmRoute; path: number[] }[] {
  const out: { route: AmRoute; path: number[] }[] = [];
  const walk = (node: AmRoute, path: number[]) =>
    (node.routes ?? []).forEach((child, i) => {
      out.push({ route: child, path: [...path, i] });
      walk(child, [...path, i]);
    });
  walk(root, []);
  return out;
}

export const alertRoutingChecks: PolicyCheck[] = [
  {
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
          const matchers = (r.matchers ?? []).join(' ');
          const slack = target.receiver.slack_configs ?? [];
          const at = (i: number): Path => [...CONFIG_PATH, 'receivers', target.index, 'slack_configs', i, 'send_resolved'];
          if (/severity\s*=\s*"?critical/.test(matchers))
            slack.forEach((s, i) => s.send_resolved !== true && fail(at(i), `critical alerts go to "${r.receiver}" without send_resolved: true`));
          if (/namespace\s*=~?\s*"?[^"]*(hypervisor|nas)/.test(matchers))
            slack.forEach((s, i) => s.send_resolved !== false && fail(at(i), `the event route "${r.receiver}" must not send resolved messages`));
        }
      }
    },
  },
];

export const alertRoutingArea: Area = staticArea('alert-routing', alertRoutingChecks);
