/** Mutations for alertmanager-config-loads: the values' Alertmanager configuration given what v0.34.0's Load refuses. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const VALUES = 'monitoring/kube-prometheus-stack/values.yaml';
const CHECK = 'alertmanager-config-loads';

export const alertmanagerConfigMutations: Mutation[] = [
  {
    check: CHECK,
    why: 'a route names receiver chat-app-b, which no receiver is: Alertmanager refuses the whole configuration',
    mutate: swap(VALUES, '        - receiver: chat-app-a\n', '        - receiver: chat-app-b\n'),
    at: 'receiver: chat-app-b',
  },
  {
    check: CHECK,
    why: "the root route's group_wait misspelt: UnmarshalStrict refuses a field the route does not have",
    mutate: swap(VALUES, '      group_wait: 30s\n', '      group_wiat: 30s\n'),
    at: 'group_wiat: 30s',
  },
  {
    check: CHECK,
    why: 'group_interval set to 0s: a route refuses a zero interval',
    mutate: swap(VALUES, '      group_interval: 5m\n', '      group_interval: 0s\n'),
    // A struct's own check is placed on the struct: Alertmanager's error names no field.
    at: '    route:',
  },
  {
    check: CHECK,
    why: "the watchdog's webhook given max_alerts: -1: the field is an unsigned integer, and the configuration is refused",
    mutate: swap(
      VALUES,
      '            send_resolved: false\n            http_config:\n',
      '            send_resolved: false\n            max_alerts: -1\n            http_config:\n',
    ),
    at: 'max_alerts: -1',
  },
  {
    check: CHECK,
    why: "app-a's route matcher with its closing quote lost: the classic parser refuses the line, the operator refuses the configuration",
    mutate: swap(VALUES, `matchers: ['namespace="app-a"']`, `matchers: ['namespace="app-a']`),
    at: `matchers: ['namespace="app-a']`,
  },
  {
    check: CHECK,
    why: "a last route that drops info alerts, its regex's group left open: NewMatcher compiles it, Go cannot, and the configuration is refused",
    mutate: swap(
      VALUES,
      `          matchers: ['severity="critical"']\n`,
      `          matchers: ['severity="critical"']\n        - receiver: "null"\n          matchers: ['severity=~"info|(none"']\n`,
    ),
    at: `matchers: ['severity=~"info|(none"']`,
  },
];
