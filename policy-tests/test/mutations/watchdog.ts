/** Broken copies of the real repository for the checks of policy-tests/checks/watchdog.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { KPS, WRANGLER, WATCHDOG_ROUTE, WATCHDOG_HOOK } from './edits.ts';

const LIMITS = 'monitoring/watchdog/facts/limits.json';

export const watchdogMutations: Mutation[] = [
  {
    check: 'watchdog-wiring',
    why: "the worker's heartbeat path changed in its limits, and Alertmanager still posts to the old one",
    mutate: (c) => c.write(LIMITS, c.read(LIMITS).replace('"/heartbeat"', '"/beat"')),
    at: 'url: https://watchdog',
  },
  {
    check: 'watchdog-wiring',
    why: "the worker's limits lost their silence threshold",
    mutate: (c) => c.write(LIMITS, c.read(LIMITS).replace('"heartbeatSilenceMinutes": 15,', '')),
    at: '{',
  },
  {
    check: 'watchdog-wiring',
    why: 'the heartbeat goes to another host',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_HOOK, 'url'], 'https://old-watchdog.example.net/heartbeat')),
    at: 'old-watchdog',
    fix: 'route alertname="Watchdog" to a receiver whose webhook posts to https://<wrangler route>/heartbeat (the path in monitoring/watchdog/facts/limits.json)',
  },
  {
    check: 'watchdog-wiring',
    why: 'the worker moved but Alertmanager did not follow',
    mutate: (c) => c.write(WRANGLER, c.read(WRANGLER).replace('watchdog.homelab.example.net', 'wd.example.org')),
    at: 'url: https://watchdog',
  },
  {
    check: 'watchdog-wiring',
    why: 'heartbeats every 30 min, longer than the 15 min threshold',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_ROUTE, 'repeat_interval'], '30m')),
    at: 'repeat_interval: 30m',
    fix: "set the Watchdog route's repeat_interval to 5m",
  },
  { check: 'watchdog-wiring', why: 'the Watchdog route is gone', mutate: (c) => c.edit(KPS, 0, (d) => d.deleteIn(WATCHDOG_ROUTE)), at: '    route:' },
  {
    check: 'watchdog-wiring',
    why: 'the token is committed instead of mounted',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_HOOK, 'http_config', 'authorization'], d.createNode({ type: 'Bearer', credentials: 'hunter2' }))),
    at: 'http_config:',
    fix: 'give the webhook http_config.authorization.credentials_file under /etc/alertmanager/secrets/<secret>/, that secret listed in alertmanagerSpec.secrets and written by an ExternalSecret',
  },
  {
    check: 'watchdog-wiring',
    why: 'the worker no longer runs every minute',
    mutate: (c) => c.write(WRANGLER, c.read(WRANGLER).replace('crons = ["* * * * *"]', 'crons = ["*/10 * * * *"]')),
    at: 'crons =',
    fix: 'declare the worker\'s route and crons = ["* * * * *"] in monitoring/watchdog/wrangler.toml, and its limits in monitoring/watchdog/facts/limits.json',
  },
];
