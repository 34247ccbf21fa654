/** Broken copies of the real repository for the watchdog wiring check. */
import type { RepoCopy } from './helpers.ts';

const KPS = 'monitoring/kube-prometheus-stack/values.yaml';
const WRANGLER = 'monitoring/watchdog/wrangler.toml';
const WATCHDOG_ROUTE = ['alertmanager', 'config', 'route', 'routes', 0];
const WATCHDOG_HOOK = ['alertmanager', 'config', 'receivers', 1, 'webhook_configs', 0];

/** Check id, what breaks, the mutation, and a needle on the line the finding must name. */
export const wiringMutations: [string, string, (c: RepoCopy) => void, string][] = [
  ['watchdog-wiring', 'the heartbeat goes to another host', (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_HOOK, 'url'], 'https://old-watchdog.example.net/heartbeat')), 'old-watchdog'],
  ['watchdog-wiring', 'the worker moved but Alertmanager did not follow', (c) => c.write(WRANGLER, c.read(WRANGLER).replace('watchdog.homelab.example.net', 'wd.example.org')), 'url: https://watchdog'],
  ['watchdog-wiring', 'heartbeats every 30 min, longer than the 15 min threshold', (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_ROUTE, 'repeat_interval'], '30m')), 'repeat_interval: 30m'],
  ['watchdog-wiring', 'the Watchdog route is gone', (c) => c.edit(KPS, 0, (d) => d.deleteIn(WATCHDOG_ROUTE)), '    route:'],
  ['watchdog-wiring', 'the token is committed instead of mounted', (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_HOOK, 'http_config', 'authorization'], d.createNode({ type: 'Bearer', credentials: 'hunter2' }))), 'http_config:'],
  ['watchdog-wiring', 'the worker no longer runs every minute', (c) => c.write(WRANGLER, c.read(WRANGLER).replace('crons = ["* * * * *"]', 'crons = ["*/10 * * * *"]')), 'crons ='],
];

const CHAT = ['alertmanager', 'config', 'receivers', 2, 'slack_configs', 0];
const EVENTS = ['alertmanager', 'config', 'receivers', 3, 'slack_configs', 0];

/** The line after `- name: <receiver>` that holds `field`. */
const lineIn = (receiver: string, field: string) => (c: RepoCopy): number => {
  const lines = c.read(KPS).split('\n');
  const start = lines.findIndex((l) => l.trim() === `- name: ${receiver}`);
  return start + 1 + lines.slice(start).findIndex((l) => l.includes(field));
};

export const routingMutations: [string, string, (c: RepoCopy) => void, string | ((c: RepoCopy) => number)][] = [
  ['alert-routing', 'critical alerts without resolved messages', (c) => c.edit(KPS, 0, (d) => d.setIn([...CHAT, 'send_resolved'], false)), lineIn('chat', 'send_resolved')],
  ['alert-routing', 'the event route sends resolved messages', (c) => c.edit(KPS, 0, (d) => d.setIn([...EVENTS, 'send_resolved'], true)), lineIn('chat-events', 'send_resolved')],
  ['alert-routing', 'warnings routed to chat', (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'config', 'route', 'routes', 3, 'matchers'], d.createNode(['severity=~"critical|warning"']))), '- receiver: chat\n'],
];
