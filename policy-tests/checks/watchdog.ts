/**
 * The alert path's own alarm (A11, A18): Alertmanager's Watchdog route feeds
 * the external watchdog worker, often enough for its silence threshold.
 */
import { chartValues } from '../model/helm/chart-values.ts';
import { dig, list, objects } from '../model/core/dig.ts';
import { durationMs } from '../model/core/time.ts';
import type { Path } from '../model/core/positions.ts';
import { writtenByExternalSecret } from '../model/cluster/external-secrets.ts';
import { LIMITS_FILE, WRANGLER_FILE } from '../model/monitoring/watchdog-worker.ts';
import { type PolicyCheck, type Area, staticArea } from '../model/checks/kit.ts';

interface Limits {
  silenceMs: number;
  periodMs: number;
  path: string;
}

/** The worker's limits, or why they cannot be read. */
function limitsOf(data: unknown): Limits | string {
  const minutes = (key: string) => {
    const v = dig(data, [key]);
    return typeof v === 'number' && v > 0 ? v * 60_000 : undefined;
  };
  const silenceMs = minutes('heartbeatSilenceMinutes');
  const periodMs = minutes('heartbeatPeriodMinutes');
  const path = dig(data, ['heartbeatPath']);
  if (silenceMs === undefined || periodMs === undefined || typeof path !== 'string' || !path.startsWith('/'))
    return `${LIMITS_FILE} must give heartbeatSilenceMinutes and heartbeatPeriodMinutes (positive numbers) and heartbeatPath (starting with /)`;
  return { silenceMs, periodMs, path };
}

interface Route {
  receiver?: string;
  matchers?: unknown;
  match?: unknown;
  repeat_interval?: string;
}

/** Whether a route matches the Watchdog alert, read whatever its fields hold (a pull request may write anything there). */
export function isWatchdogRoute(route: Route): boolean {
  return (
    dig(route.match, ['alertname']) === 'Watchdog' || list(route.matchers).some((m) => typeof m === 'string' && /^alertname\s*=\s*"?Watchdog"?$/.test(m.trim()))
  );
}

/** What mends each cause, printed with its finding (the remediation lists them all). */
const FIX = {
  worker: `declare the worker's route and crons = ["* * * * *"] in ${WRANGLER_FILE}, and its limits in ${LIMITS_FILE}`,
  route: `route alertname="Watchdog" to a receiver whose webhook posts to https://<wrangler route>/heartbeat (the path in ${LIMITS_FILE})`,
  repeat: "set the Watchdog route's repeat_interval to 5m",
  token:
    'give the webhook http_config.authorization.credentials_file under /etc/alertmanager/secrets/<secret>/, that secret listed in alertmanagerSpec.secrets and written by an ExternalSecret',
} as const;

export const watchdogChecks: PolicyCheck[] = [
  {
    id: 'watchdog-wiring',
    description:
      "Alertmanager's Watchdog route posts to the external worker's heartbeat URL every 5 min, well under its 15 min threshold, with the token from a mounted ExternalSecret (A11, A18).",
    invariants: ['A11', 'A18', 'A19'],
    remediation: Object.values(FIX).join('; '),
    reads: { kinds: ['Application', 'ExternalSecret'], files: [WRANGLER_FILE, LIMITS_FILE], charts: ['kube-prometheus-stack'] },
    exemptible: false,
    run(ctx) {
      const limits = limitsOf(ctx.repo.dataFiles.get(LIMITS_FILE)?.data);
      if (typeof limits === 'string') {
        ctx.fail({ file: LIMITS_FILE }, limits, FIX.worker);
        return;
      }
      const wrangler = ctx.repo.dataFiles.get(WRANGLER_FILE);
      const routes = objects(dig(wrangler?.data, ['routes'])) as { pattern?: string }[];
      const host = routes.map((r) => r.pattern?.replace(/\/\*$/, '')).find(Boolean);
      if (!wrangler || !host) {
        ctx.fail(
          { file: wrangler ? WRANGLER_FILE : 'monitoring/README.md' },
          `${WRANGLER_FILE} declares no route, so nothing says where heartbeats go`,
          FIX.worker,
        );
        return;
      }
      const crons = dig(wrangler.data, ['triggers', 'crons']);
      if (!Array.isArray(crons) || !crons.includes('* * * * *')) {
        const { line, col } = wrangler.positions.at(['triggers', 'crons'], 'key');
        ctx.fail({ file: WRANGLER_FILE, line, col }, 'the worker must run every minute (crons = ["* * * * *"])', FIX.worker);
      }
      const expected = `https://${host}${limits.path}`;
      const stacks = chartValues(ctx.repo, 'kube-prometheus-stack');
      if (stacks.length === 0) ctx.fail({ file: WRANGLER_FILE }, 'no kube-prometheus-stack Application: nothing sends the heartbeat', FIX.route);
      for (const { file, values, source } of stacks) {
        const fail = (path: Path, message: string, fix: string = FIX.route) => {
          const { line, col } = source.positions.at(path, 'key');
          ctx.fail({ file: file, line, col }, message, fix);
        };
        const config = ['alertmanager', 'config'];
        const childRoutes = objects(dig(values, [...config, 'route', 'routes'])) as Route[];
        const index = childRoutes.findIndex(isWatchdogRoute);
        if (index === -1) {
          fail([...config, 'route'], 'no route for alertname="Watchdog": the heartbeat never leaves the cluster');
          continue;
        }
        const route = childRoutes[index]!;
        const repeat = durationMs(route.repeat_interval);
        if (repeat !== limits.periodMs || repeat > limits.silenceMs / 2) {
          fail(
            [...config, 'route', 'routes', index, 'repeat_interval'],
            `Watchdog repeat_interval is ${route.repeat_interval ?? 'unset'}; it must be ${limits.periodMs / 60_000}m, well under the worker's ${limits.silenceMs / 60_000} min threshold`,
            FIX.repeat,
          );
        }
        const receivers = objects(dig(values, [...config, 'receivers'])) as {
          name?: string;
          webhook_configs?: { url?: string; http_config?: { authorization?: { credentials?: string; credentials_file?: string } } }[];
        }[];
        const rIndex = receivers.findIndex((r) => r.name === route.receiver);
        const hook = receivers[rIndex]?.webhook_configs?.[0];
        if (!hook) {
          fail([...config, 'route', 'routes', index, 'receiver'], `receiver "${route.receiver}" has no webhook`);
          continue;
        }
        const at: Path = [...config, 'receivers', rIndex, 'webhook_configs', 0];
        if (hook.url !== expected) fail([...at, 'url'], `the heartbeat goes to ${hook.url ?? 'nowhere'}, but the worker answers at ${expected}`);
        const auth = hook.http_config?.authorization;
        if (auth?.credentials)
          fail([...at, 'http_config'], 'the heartbeat token is committed in values; use credentials_file from a mounted secret', FIX.token);
        const secret = /^\/etc\/alertmanager\/secrets\/([^/]+)\//.exec(auth?.credentials_file ?? '')?.[1];
        const mounted = list(dig(values, ['alertmanager', 'alertmanagerSpec', 'secrets'])) as string[];
        const fromExternalSecret = writtenByExternalSecret(ctx.repo, secret);
        if (!secret || !mounted.includes(secret) || !fromExternalSecret)
          fail(
            [...at, 'http_config'],
            `the heartbeat token must be a credentials_file under /etc/alertmanager/secrets/<secret>/, that secret listed in alertmanagerSpec.secrets and written by an ExternalSecret`,
            FIX.token,
          );
      }
    },
  },
];

export const watchdogArea: Area = staticArea('watchdog', watchdogChecks);
