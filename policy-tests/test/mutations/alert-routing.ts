/** Broken copies of the real repository for the checks of policy-tests/checks/alert-routing/: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { KPS, CHAT, EVENTS, inFile, receiverFieldLine, swap } from './edits.ts';

const PAYLOADS = 'monitoring/kube-prometheus-stack/payloads/';
const SENDERS = `${PAYLOADS}senders.yaml`;
const NAS = `${PAYLOADS}nas-notification.json`;
const HYPERVISOR = `${PAYLOADS}hypervisor-notification.json`;

export const alertRoutingMutations: Mutation[] = [
  {
    check: 'alert-routing',
    why: 'a critical alert whose labels were dropped in an edit: with no severity, Alertmanager sends it where a warning goes, to no one',
    mutate: swap(
      'monitoring/alert-rules/workloads.yaml',
      '          labels:\n            severity: critical\n          annotations:\n            summary: Deployment',
      '          annotations:\n            summary: Deployment',
    ),
    at: '- alert: DeploymentUnavailable',
  },
  {
    check: 'alert-routing',
    why: 'an alert meant to page written with a misspelt severity: Alertmanager sends it where a warning goes, to no one',
    mutate: (c) =>
      c.edit('monitoring/alert-rules/platform-health.yaml', 0, (d) => d.setIn(['spec', 'groups', 0, 'rules', 11, 'labels', 'severity'], 'critcal')),
    at: 'severity: critcal',
  },
  {
    check: 'alert-routing',
    why: "the app-a gateway's stale-post warning with its namespace misspelt (apq-a): Alertmanager routes it as any other namespace's warning, to no one, and the gateway's silence goes unseen",
    mutate: (c) => c.edit('monitoring/alert-rules/app-a.yaml', 0, (d) => d.setIn(['spec', 'groups', 0, 'rules', 2, 'labels', 'namespace'], 'apq-a')),
    at: 'namespace: apq-a',
  },
  {
    check: 'alert-routing',
    why: "the first inhibit rule's equal namespace misspelt (namepsace): both alerts lack the label, so a critical alert in one namespace mutes the warnings of that name in every other",
    mutate: swap(KPS, '        equal: [namespace, alertname]\n      - source_matchers', '        equal: [namepsace, alertname]\n      - source_matchers'),
    at: 'equal: [namepsace, alertname]',
  },
  {
    check: 'alert-routing',
    why: 'the root route groups by namspace: no alert carries it, and the alerts of every namespace go out in one notification',
    mutate: swap(KPS, '      group_by: [alertname, namespace]\n', '      group_by: [alertname, namspace]\n'),
    at: 'group_by: [alertname, namspace]',
  },
  {
    check: 'alert-routing',
    why: "the first inhibit rule's source written severity = critcal: it matches no alert, and no critical alert mutes its warnings",
    mutate: swap(KPS, "      - source_matchers: ['severity = critical']\n", "      - source_matchers: ['severity = critcal']\n"),
    at: "source_matchers: ['severity = critcal']",
  },
  {
    check: 'alert-routing',
    why: "the second inhibit rule's target written on severitz: no alert carries it, so the rule matches no target and a warning never mutes its info alerts",
    mutate: swap(KPS, "        target_matchers: ['severity = info']\n", "        target_matchers: ['severitz = info']\n"),
    at: "target_matchers: ['severitz = info']",
  },
  {
    check: 'alert-routing',
    why: "the second inhibit rule's source written in Alertmanager's older map form on severitz: no alert carries it, so no warning ever mutes its info alerts",
    mutate: swap(KPS, "      - source_matchers: ['severity = warning']\n", '      - source_match: {severitz: warning}\n'),
    at: 'source_match: {severitz: warning}',
  },
  {
    check: 'alert-routing',
    why: "app-a's route matching on namesapce: no alert carries it, so the route takes none of app-a's alerts and they go to no one",
    mutate: swap(KPS, `matchers: ['namespace="app-a"']`, `matchers: ['namesapce="app-a"']`),
    at: `matchers: ['namesapce="app-a"']`,
  },
  {
    check: 'alert-routing',
    why: 'critical alerts without resolved messages',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...CHAT, 'send_resolved'], false)),
    at: receiverFieldLine('chat', 'send_resolved'),
  },
  {
    check: 'alert-routing',
    why: 'the event route sends resolved messages',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...EVENTS, 'send_resolved'], true)),
    at: receiverFieldLine('chat-events', 'send_resolved'),
  },
  {
    check: 'alert-routing',
    why: 'warnings routed to chat',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'config', 'route', 'routes', 3, 'matchers'], d.createNode(['severity=~"critical|warning"']))),
    at: '- receiver: chat\n',
  },
  {
    check: 'alert-routing',
    why: 'the event receiver lost its Slack settings: the hypervisor and the NAS route to it by name, and nothing posts their events',
    mutate: (c) => c.edit(KPS, 0, (d) => d.deleteIn(['alertmanager', 'config', 'receivers', 3, 'slack_configs'])),
    at: '- receiver: chat-events\n',
  },
  {
    check: 'alert-routing',
    why: 'the critical route is gone: critical alerts fall to the root route\'s "null" receiver, and never reach chat',
    mutate: (c) => c.edit(KPS, 0, (d) => d.deleteIn(['alertmanager', 'config', 'route', 'routes', 3])),
    at: inFile(KPS, '    route:'),
  },
  {
    check: 'alert-routing',
    why: 'an inhibit rule mutes warnings and critical alerts while a severity "none" alert fires: the Watchdog is one, and fires for good',
    mutate: swap(
      KPS,
      '    inhibit_rules:\n',
      `    inhibit_rules:\n      - source_matchers: ['severity="none"']\n        target_matchers: ['severity=~"warning|critical"']\n`,
    ),
    at: `- source_matchers: ['severity="none"']`,
  },
  {
    check: 'alert-routing',
    why: "the chart's InfoInhibitor rule put back: InfoInhibitor fires in app-a whenever its only alerts are info, and mutes them, where A14 sends them to chat",
    mutate: swap(
      KPS,
      '    inhibit_rules:\n',
      `    inhibit_rules:\n      - source_matchers: ['alertname = InfoInhibitor']\n        target_matchers: ['severity = info']\n        equal: [namespace]\n`,
    ),
    at: `- source_matchers: ['alertname = InfoInhibitor']`,
  },
  {
    check: 'alert-chat-text',
    why: "a critical alert without its summary: chat prints each alert's summary, and its message would say nothing",
    mutate: (c) => c.edit('monitoring/alert-rules/media.yaml', 0, (d) => d.deleteIn(['spec', 'groups', 0, 'rules', 1, 'annotations'])),
    at: '- alert: MediaRootFolderLow',
  },
  {
    check: 'alert-chat-text',
    why: "the event route posts with Alertmanager's own Slack text, which is empty: the NAS's words never reach chat",
    mutate: (c) => c.edit(KPS, 0, (d) => d.deleteIn([...EVENTS, 'text'])),
    at: receiverFieldLine('chat-events', 'api_url_file'),
  },
  {
    check: 'alert-chat-text',
    why: "the critical route prints the group's common summary, which is empty when two alerts differ",
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...CHAT, 'text'], '{{ .CommonAnnotations.summary }}')),
    at: receiverFieldLine('chat', 'text:'),
  },
  {
    check: 'alert-webhooks',
    why: 'the NAS pushes its events as warnings',
    mutate: swap(NAS, '"severity": "critical"', '"severity": "warning"'),
    at: '"severity"',
    fix: `write each payload in ${PAYLOADS} as a JSON array of postable alerts with the labels and summary A9 gives, each text the hypervisor fills in as {{ escape <name> }}`,
  },
  {
    check: 'alert-webhooks',
    why: "the hypervisor's payload lost its namespace, so its errors would miss the event route",
    mutate: swap(HYPERVISOR, '      "namespace": "hypervisor",\n', ''),
    at: '"labels"',
  },
  {
    check: 'alert-webhooks',
    why: "the hypervisor's report goes into the body unescaped, so its first newline makes the body no JSON",
    mutate: swap(HYPERVISOR, '{{ escape message }}', '{{ message }}'),
    at: '"description"',
    fix: `write each payload in ${PAYLOADS} as a JSON array of postable alerts with the labels and summary A9 gives, each text the hypervisor fills in as {{ escape <name> }}`,
  },
  {
    check: 'alert-webhooks',
    why: "the hypervisor's node label reads a name no notification has, so it renders empty",
    mutate: swap(HYPERVISOR, '{{ escape fields.hostname }}', '{{ node }}'),
    at: '"node"',
  },
  {
    check: 'alert-webhooks',
    why: "the NAS's events no longer carry their text in a label, so a second event within minutes is taken for the first",
    mutate: swap(NAS, '"node": "nas",\n      "event": "@@TEXT@@"', '"node": "nas"'),
    at: '"labels"',
  },
  {
    check: 'alert-webhooks',
    why: 'the NAS pushes one alert instead of the array Alertmanager takes',
    mutate: (c) => c.write(NAS, JSON.stringify((JSON.parse(c.read(NAS)) as unknown[])[0], null, 2)),
    at: () => ({ file: NAS, line: 1 }),
  },
  {
    check: 'alert-webhooks',
    why: "the NAS posts to Alertmanager's removed v1 API",
    mutate: swap(SENDERS, 'url: http://alertmanager.lan.example.net/api/v2/alerts', 'url: http://alertmanager.lan.example.net/api/v1/alerts'),
    at: '/api/v1/alerts',
    fix: `record each sender in ${SENDERS} (url http(s)://<host>/api/v2/alerts, contentType application/json, payload, minimumLevel)`,
  },
  {
    check: 'alert-webhooks',
    why: 'the NAS pushes errors only, where A9 says Warning and above',
    mutate: swap(SENDERS, 'minimumLevel: warning', 'minimumLevel: error'),
    at: inFile(SENDERS, 'minimumLevel: error'),
  },
  {
    check: 'alert-webhooks',
    why: 'the backup server is no longer recorded as a sender',
    mutate: (c) => c.write(SENDERS, c.read(SENDERS).replace(/  - name: backup-server\n(    .*\n)+/, '')),
    at: 'senders:',
    fix: `record each sender in ${SENDERS} (url http(s)://<host>/api/v2/alerts, contentType application/json, payload, minimumLevel)`,
  },
  {
    check: 'alert-webhooks',
    why: 'Alertmanager has no Ingress, so nothing outside the cluster reaches it',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'ingress', 'enabled'], false)),
    at: inFile(KPS, '  ingress:'),
    fix: "serve the senders' host with alertmanager.ingress (ingressClassName private-gateway, pathType Prefix, paths [/api/v2/alerts] alone)",
  },
  {
    check: 'alert-webhooks',
    why: "the senders post to a host Alertmanager's Ingress does not serve",
    mutate: (c) => c.write(SENDERS, c.read(SENDERS).replaceAll('alertmanager.lan.example.net', 'am.lan.example.net')),
    at: inFile(KPS, '  ingress:'),
  },
  {
    check: 'alert-webhooks',
    why: "Alertmanager's Ingress routes everything, the silences API included, to every device on the LAN",
    mutate: (c) => c.write(KPS, c.read(KPS).replace('paths: [/api/v2/alerts]', 'paths: [/]')),
    at: inFile(KPS, 'paths: [/]'),
  },
  {
    check: 'alertmanager-secret-files',
    why: 'the chat receiver reads a key its Secret does not have',
    mutate: (c) => c.write(KPS, c.read(KPS).replace('secrets/alertmanager-chat-webhook/url', 'secrets/alertmanager-chat-webhook/webhook-url')),
    at: 'alertmanager-chat-webhook/webhook-url',
  },
  {
    check: 'alertmanager-secret-files',
    why: "the chat webhook's Secret is no longer mounted into Alertmanager",
    mutate: swap(KPS, '      - alertmanager-chat-webhook\n', ''),
    at: 'api_url_file:',
  },
];
