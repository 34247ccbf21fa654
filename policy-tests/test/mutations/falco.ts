/** Broken copies of the real repository for the checks of policy-tests/checks/falco/: each fails exactly its check, at its line. */
import { isSeq } from 'yaml';
import { lineOf } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { readFileSync } from 'node:fs';
import { type RepoCopy } from '../support/helpers.ts';
import { after, configMapText, dropAlternatives, editTuning, inFile, swap, TUNING, FALCO_VALUES, SIDEKICK_VALUES, EGRESS } from './edits.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/falco/${name}`, import.meta.url), 'utf8');

/** Appends a fixture's items to the real tuning file inside its ConfigMap. */
const appendTuning = (c: RepoCopy, text: string): void => editTuning(c, (rules) => `${rules}\n${text}`);

/**
 * Rook's CSI image set as its chart renders it (rook-ceph v1.20.6), written as a plain manifest the Ceph cluster's
 * directory source applies: offline no chart is rendered, so this is how a copy shows the gate what the operator starts.
 */
/** falco-sensor's mend for its plugins, the one its plugin findings name. */
const PLUGIN_FIX =
  'load only the container plugin (collectors.containerEngine on, pluginRef ghcr.io/falcosecurity/plugins/plugin/container:<0.4.0 or later>, collectors.kubernetes off, nothing in falco.load_plugins or falco.plugins)';

const FALCOCTL_FIX =
  'enable falcoctl artifact install and follow, with refs ["falco-rules:5"], follow.every: 168h, and allowedTypes rulesfile and plugin alone';

const CSI_IMAGE_SET = 'apps/platform/rook-ceph-cluster/csi-image-set.yaml';
const csiImageSet = (provisioner: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: rook-csi-operator-image-set-configmap
  namespace: rook-ceph
data:
  provisioner: ${provisioner}
  attacher: registry.k8s.io/sig-storage/csi-attacher:v4.12.0
  resizer: registry.k8s.io/sig-storage/csi-resizer:v2.1.0
  snapshotter: registry.k8s.io/sig-storage/csi-snapshotter:v8.5.0
  registrar: registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.17.0
  plugin: quay.io/cephcsi/cephcsi:v3.17.0
`;

const fixtures: [string, string, string][] = [
  ['no-copied-redefine.yaml', 'falco-no-copied-rule', '- macro: container'],
  ['no-copied-renamed.yaml', 'falco-no-copied-rule', '- rule: Terminal shell in container (tuned)'],
  ['hooks-macro-append.yaml', 'falco-hooks-only', 'condition: or (proc.name = argocd-application-controller)'],
  ['hooks-list-replace.yaml', 'falco-hooks-only', 'items: replace'],
  ['hooks-rule-with-hook.yaml', 'falco-hooks-only', '- rule: Terminal shell in container'],
  ['hooks-rule-append-shape.yaml', 'falco-hooks-only', 'or proc.name = tcpdump'],
  ['hooks-legacy-append.yaml', 'falco-hooks-only', 'append: true'],
  ['hooks-non-hook-macro.yaml', 'falco-hooks-only', '- macro: spawned_process'],
  ['scoped-missing-path.yaml', 'falco-exemption-scoped', '- macro: user_known_stand_streams_redirect_activities'],
  ['scoped-generic-image.yaml', 'falco-exemption-scoped', 'docker.io/library/alpine'],
  ['scoped-list-append.yaml', 'falco-exemption-scoped', '- list: user_known_packet_socket_binaries'],
  ['boundary-disabled.yaml', 'falco-boundary-armed', 'enabled: false'],
  ['boundary-hook-image.yaml', 'falco-boundary-armed', '- list: allowed_container_images_loading_kernel_module'],
  ['syntax.yaml', 'falco-tuning-syntax', 'condition: (proc.name in (sonarr, radarr)'],
  // A field Falco 0.44.1 does not know: it refuses the rules file at start, and does not run.
  ['syntax-field.yaml', 'falco-tuning-syntax', 'condition: (proc.nmae in (sonarr, radarr))'],
  // An exception's field misspelt: Falco's collector finds no such filter field, refuses the rules file, and does not run.
  ['syntax-exception.yaml', 'falco-tuning-syntax', 'fields: [proc.pname, container.image.repositry]'],
  // A required engine version copied from a later rules release: the sensor's engine (0.62.0) is older, and Falco refuses the file.
  ['syntax-engine.yaml', 'falco-tuning-syntax', '- required_engine_version: 0.63.0'],
  // An item Falco writes into its rules' conditions unquoted: `(sd-pam)` breaks every condition that names the list.
  ['syntax-list.yaml', 'falco-tuning-syntax', 'items: [fish, "(sd-pam)"]'],
  // A container plugin later than the one the sensor's values load (0.7.1): Falco's check of the requirements stops it at start.
  ['syntax-plugin.yaml', 'falco-tuning-syntax', '- name: container'],
  ['reach-volume-path.yaml', 'falco-exemption-reachable', '# Every alternative of the real tuning kept'],
  ['reach-unread-process.yaml', 'falco-exemption-reachable', 'proc.name = openvpn'],
];

/** The fixtures as mutations: appended to the real tuning file, the finding within a few lines of the offending item. */
const fixtureMutations: Mutation[] = fixtures.map(([name, check, needle]) => ({
  check,
  why: `tuning fixture ${name}`,
  mutate: (c) => appendTuning(c, fixture(name)),
  at: (c) => ({ file: TUNING, line: lineOf(c, TUNING, needle), within: 4 }),
}));

const MEDIA_IMAGE_FACTS = 'apps/media/facts/images.yaml';
const GLUETUN = 'apps/media/gluetun/deployment.yaml';
/** The gluetun entry of the media image facts, given a `trips` entry that names `rule`. */
const gluetunTrips = (rule: string) =>
  swap(
    MEDIA_IMAGE_FACTS,
    '  - image: qmcgaw/gluetun\n',
    `  - image: qmcgaw/gluetun\n    trips:\n      - { rule: ${rule}, process: gluetun-entrypo, exe: /gluetun-entrypoint }\n`,
  );

export const falcoMutations: Mutation[] = [
  {
    check: 'falco-tuning-syntax',
    why: "the escape rule's priority misspelt (CRTICAL): Falco's reader knows none such, refuses the rules file, and Falco does not start",
    mutate: swap(TUNING, '      priority: CRITICAL\n', '      priority: CRTICAL\n'),
    at: inFile(TUNING, 'priority: CRTICAL'),
  },
  {
    check: 'falco-tuning-syntax',
    why: "the escape rule's output key misspelt (outptu): a rule that defines itself needs its output, and Falco refuses the rules file",
    mutate: swap(TUNING, '      output: Host namespace entry', '      outptu: Host namespace entry'),
    at: inFile(TUNING, '- rule: Homelab host namespace entry from a container'),
  },
  {
    check: 'falco-tuning-syntax',
    why: "the escape rule's tags written without their brackets: a scalar, where Falco's reader wants a sequence, and Falco refuses the rules file",
    mutate: swap(TUNING, 'tags: [container, host, mitre_privilege_escalation, T1611]', 'tags: container, host, mitre_privilege_escalation, T1611'),
    at: inFile(TUNING, 'tags: container, host'),
  },
  {
    check: 'falco-tuning-syntax',
    why: 'the escape rule names a macro that does not exist (spawned_proces): Undefined macro, and Falco refuses the rules file',
    mutate: swap(TUNING, 'spawned_process and container and proc.name = nsenter', 'spawned_proces and container and proc.name = nsenter'),
    at: after(TUNING, '- rule: Homelab host namespace entry', 'condition: >'),
  },
  {
    check: 'falco-exemption-reachable',
    why: 'Renovate moves Cleanuparr to 2.7.5, whose entrypoint no longer chowns /app, and the exemption of its binary stays: it exempts nothing',
    mutate: swap('apps/media/cleanuparr/deployment.yaml', 'cleanuparr/cleanuparr:2.4.6', 'cleanuparr/cleanuparr:2.7.5'),
    at: (c) => ({ file: TUNING, line: lineOf(c, TUNING, '- macro: known_drop_and_execute_activities') + 1 }),
  },
  {
    check: 'falco-known-noise-tuned',
    why: 'the VPN image is read to open a packet socket at start, and nothing tunes it: each restart posts to the chat channel',
    mutate: gluetunTrips('Packet socket created in container'),
    at: inFile(GLUETUN, 'image: docker.io/qmcgaw/gluetun:'),
  },
  {
    check: 'falco-known-noise-tuned',
    why: 'a later replacement of the hook drops an alternative: Falco holds the last one, so Cleanuparr is no longer exempted',
    mutate: (c) => appendTuning(c, fixture('noise-hook-replaced.yaml')),
    at: inFile('apps/media/cleanuparr/deployment.yaml', 'image: ghcr.io/cleanuparr/cleanuparr:'),
  },
  {
    check: 'falco-known-noise-tuned',
    why: "the backup image's kubectl is dropped from the API-server hook: every night's etcd backup posts its sentinel write to the chat channel",
    mutate: dropAlternatives('proc.name = kubectl'),
    at: inFile('apps/platform/backups/etcd-backup.yaml', 'image: ghcr.io/homelab-operator/homelab-backup:'),
  },
  {
    check: 'falco-known-noise-tuned',
    why: "the CSI provisioner, which Rook's CSI operator starts at run time from the chart's image set, is dropped from the API-server hook",
    mutate: (c) => {
      c.write(CSI_IMAGE_SET, csiImageSet('registry.k8s.io/sig-storage/csi-provisioner:v6.2.0'));
      dropAlternatives('proc.name = csi-provisioner')(c);
    },
    at: inFile(CSI_IMAGE_SET, 'provisioner:'),
  },
  {
    check: 'falco-known-noise-tuned',
    why: "the chart's image set names another provisioner image than the one the facts were read from: what they say it trips is about another image",
    mutate: (c) => c.write(CSI_IMAGE_SET, csiImageSet('registry.example.net/csi/csi-provisioner:v6.2.0')),
    at: inFile(CSI_IMAGE_SET, 'provisioner:'),
  },
  {
    check: 'falco-known-noise-tuned',
    why: 'an image fact names a rule the pinned ruleset does not have',
    mutate: gluetunTrips('Packet socket created in a container'),
    at: after(MEDIA_IMAGE_FACTS, 'image: qmcgaw/gluetun', 'Packet socket created in a container'),
  },
  {
    check: 'falco-boundary-armed',
    why: "the tuning policy drops the kernel module rule from its boundary rules: its hook could then exempt any image, and S10's guard on it is gone",
    mutate: swap('security/falco/facts/tuning-policy.yaml', '  - Linux Kernel Module Injection Detected\n', ''),
    at: inFile('security/falco/facts/tuning-policy.yaml', 'boundaryRules:'),
  },
  {
    check: 'falco-boundary-armed',
    why: "the escape rule given an exception for the kubectl image's nsenter: Falco loads it, and a container of that image enters the host's namespaces unseen",
    mutate: swap(
      TUNING,
      '      tags: [container, host, mitre_privilege_escalation, T1611]\n',
      '      tags: [container, host, mitre_privilege_escalation, T1611]\n      exceptions:\n        - name: debug_tools\n          fields: [container.image.repository, proc.pname]\n          values:\n            - [docker.io/bitnami/kubectl, bash]\n',
    ),
    at: inFile(TUNING, 'exceptions:'),
  },
  {
    check: 'falco-boundary-armed',
    why: 'the repo’s own escape rule is removed',
    mutate: (c) => editTuning(c, (rules) => rules.slice(0, rules.indexOf('# Container-escape coverage'))),
  },
  {
    check: 'falco-sensor',
    why: "the events posted to the forwarder's bare name, which resolves in the sensor's namespace, not the forwarder's",
    mutate: swap(FALCO_VALUES, 'url: http://falcosidekick.security.svc:2801/', 'url: http://falcosidekick:2801/'),
    at: inFile(FALCO_VALUES, 'url: http://falcosidekick:2801/'),
    fix: "set falco.json_output: true and falco.http_output.enabled: true, with falco.http_output.url the forwarder's in-cluster address (http://<service>.<namespace>.svc:<port>/)",
  },
  {
    check: 'falco-sensor',
    why: 'the driver is the legacy eBPF probe',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.setIn(['driver', 'kind'], 'ebpf')),
    at: 'kind: ebpf',
    fix: 'set driver.kind: modern_ebpf',
  },
  {
    check: 'falco-sensor',
    why: 'control-plane nodes are not tolerated',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.deleteIn(['tolerations'])),
    at: 'driver:',
    fix: 'tolerate node-role.kubernetes.io/control-plane, and leave nodeSelector and affinity empty',
  },
  {
    check: 'falco-sensor',
    why: 'a plugin (k8s audit) is loaded',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.setIn(['falco', 'load_plugins'], d.createNode(['k8saudit', 'json']))),
    at: 'load_plugins:',
  },
  {
    check: 'falco-sensor',
    why: 'a YAML merge key (<<) pins the sensor to one node: read literally it sets nothing, expanded (as Helm and Argo CD read it) it sets nodeSelector',
    mutate: (c) => c.write(FALCO_VALUES, `${c.read(FALCO_VALUES)}<<: {nodeSelector: {kubernetes.io/hostname: node-1}}\n`),
    at: '<<:',
  },
  {
    check: 'falco-sensor',
    why: "the Application's helm.valuesObject switches the driver to kmod over the values file: the checks read the values merged as Helm merges them, and point at the layer that set it",
    mutate: (c) =>
      c.edit('security/falco/application.yaml', 0, (d) => d.setIn(['spec', 'sources', 0, 'helm', 'valuesObject'], d.createNode({ driver: { kind: 'kmod' } }))),
    at: (c) => ({ file: 'security/falco/application.yaml', line: lineOf(c, 'security/falco/application.yaml', 'kind: kmod') }),
  },
  {
    check: 'falco-sensor',
    why: 'the container plugin the rules require is turned off',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.setIn(['collectors', 'containerEngine', 'enabled'], false)),
    at: (c) => lineOf(c, FALCO_VALUES, 'containerEngine:') + 1,
    fix: PLUGIN_FIX,
  },
  {
    check: 'falco-sensor',
    why: 'a container plugin older than falco-rules 5 requires',
    mutate: (c) =>
      c.edit(FALCO_VALUES, 0, (d) => d.setIn(['collectors', 'containerEngine', 'pluginRef'], 'ghcr.io/falcosecurity/plugins/plugin/container:0.3.6')),
    at: 'pluginRef:',
  },
  {
    check: 'falco-rules-source',
    why: 'falcoctl may install any artifact type',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.setIn(['falcoctl', 'config', 'artifact', 'allowedTypes'], d.createNode(['rulesfile', 'plugin', 'asset']))),
    at: 'allowedTypes:',
    fix: FALCOCTL_FIX,
  },
  {
    check: 'falco-sensor',
    why: 'metrics every 30 minutes',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.setIn(['metrics', 'interval'], '30m')),
    at: 'metrics:',
  },
  {
    check: 'falco-rules-source',
    why: 'rules followed daily',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.setIn(['falcoctl', 'config', 'artifact', 'follow', 'every'], '24h')),
    at: 'every: 24h',
    fix: FALCOCTL_FIX,
  },
  {
    check: 'falco-rules-source',
    why: 'an older ruleset',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.setIn(['falcoctl', 'config', 'artifact', 'install', 'refs'], d.createNode(['falco-rules:4']))),
    at: 'refs:',
  },
  {
    check: 'falcoctl-config-loads',
    why: 'resolveDeps written "no": falcoctl carries it into its --resolve-deps flag, strconv.ParseBool refuses the word, and the install init container exits, so Falco never starts',
    mutate: swap(FALCO_VALUES, '        resolveDeps: false\n', '        resolveDeps: "no"\n'),
    at: 'resolveDeps: "no"',
  },
  {
    check: 'falcoctl-config-loads',
    why: 'allowedTypes emptied: falcoctl reads an empty list, its --allowed-types flag refuses the empty text, and both falcoctl containers exit',
    mutate: swap(FALCO_VALUES, '      allowedTypes: [rulesfile, plugin]\n', '      allowedTypes: []\n'),
    at: 'allowedTypes: []',
  },
  {
    check: 'falcoctl-config-loads',
    why: 'rulesfile dropped from allowedTypes: the install pulls falco-rules, a rulesfile, and falcoctl refuses it ("type not permitted"), so the init container exits and Falco never starts',
    mutate: swap(FALCO_VALUES, '      allowedTypes: [rulesfile, plugin]\n', '      allowedTypes: [plugin]\n'),
    at: 'allowedTypes: [plugin]',
  },
  {
    check: 'falcoctl-config-loads',
    why: 'a cron written beside every: 168h: follow sets both flags from its configuration, cobra refuses --cron with --every, and the sidecar exits at start, so the sensor pod is never ready',
    mutate: swap(FALCO_VALUES, '        every: 168h\n', '        every: 168h\n        cron: "0 3 * * 1"\n'),
    at: 'cron: "0 3 * * 1"',
  },
  {
    check: 'falcoctl-config-loads',
    why: 'the follower told to start "later", a startup behaviour falcoctl does not know: the sidecar exits at start and the sensor pod is never ready',
    mutate: (c) => c.edit(FALCO_VALUES, 0, (d) => d.setIn(['falcoctl', 'config', 'artifact', 'follow', 'startupBehavior'], 'later')),
    at: 'startupBehavior: later',
  },
  {
    check: 'falcoctl-config-loads',
    why: 'the follow interval given by an envFrom ConfigMap as FALCOCTL_ARTIFACT_FOLLOW_EVERY "6", a duration without its unit: viper takes the variable over the file, the --every flag refuses it, and the sidecar exits at start',
    mutate: (c) => {
      c.write('security/falco/falcoctl-env.yaml', configMapText({ name: 'falcoctl-env', namespace: 'falco', data: { FALCOCTL_ARTIFACT_FOLLOW_EVERY: '6' } }));
      c.edit(FALCO_VALUES, 0, (d) => d.setIn(['falcoctl', 'artifact', 'follow', 'envFrom'], d.createNode([{ configMapRef: { name: 'falcoctl-env' } }])));
    },
    at: 'configMapRef',
  },
  {
    check: 'falco-rules-source',
    why: 'the tuning file loads before the upstream rules',
    mutate: (c) =>
      c.edit(FALCO_VALUES, 0, (d) =>
        d.setIn(['falco', 'rules_files'], d.createNode(['/etc/falco/homelab/homelab-tuning.yaml', '/etc/falco/falco_rules.yaml'])),
      ),
    at: 'rules_files:',
    fix: 'mount the tuning ConfigMap into the sensor and list its file after /etc/falco/falco_rules.yaml in falco.rules_files',
  },
  {
    check: 'falco-egress',
    why: 'port 80 opened to the forwarder',
    mutate: (c) =>
      c.edit(EGRESS, 0, (d) => {
        const egress = d.getIn(['spec', 'egress']);
        const forwarder = {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'security' } },
          podSelector: { matchLabels: { 'app.kubernetes.io/name': 'falcosidekick' } },
        };
        if (isSeq(egress)) egress.add(d.createNode({ to: [forwarder], ports: [{ port: 80, protocol: 'TCP' }] }));
      }),
    at: 'port: 80',
  },
  {
    check: 'falco-egress',
    why: 'no egress on 443 (the artifact hosts allowed on 8443 instead)',
    mutate: (c) => c.edit(EGRESS, 1, (d) => d.setIn(['spec', 'egress', 1, 'toPorts', 0, 'ports', 0, 'port'], '8443')),
    at: 'port: "8443"',
  },
  {
    check: 'falco-egress',
    why: '443 to any address, though the CNI enforces DNS names',
    mutate: (c) =>
      c.edit(EGRESS, 1, (d) => {
        const egress = d.getIn(['spec', 'egress']);
        if (isSeq(egress)) egress.add(d.createNode({ toEntities: ['world'], toPorts: [{ ports: [{ port: '443', protocol: 'TCP' }] }] }));
        d.setIn(
          ['metadata', 'annotations', 'gate.homelab-gitops/external-peers'],
          `${String(d.getIn(['metadata', 'annotations', 'gate.homelab-gitops/external-peers']))}world: any registry\n`,
        );
      }),
    at: (c) => ({ file: EGRESS, line: lineOf(c, EGRESS, 'toEntities'), within: 4 }),
  },
  { check: 'falco-forwarder', why: 'one replica', mutate: (c) => c.edit(SIDEKICK_VALUES, 0, (d) => d.setIn(['replicaCount'], 1)), at: 'replicaCount' },
  { check: 'falco-forwarder', why: 'the web UI on', mutate: (c) => c.edit(SIDEKICK_VALUES, 0, (d) => d.setIn(['webui', 'enabled'], true)), at: 'webui:' },
  {
    check: 'falco-forwarder',
    why: "the chat output format written All: falcosidekick compares it by exact text, and every message posts neither the event's text nor its fields",
    mutate: swap(SIDEKICK_VALUES, '    outputformat: all\n', '    outputformat: All\n'),
    at: inFile(SIDEKICK_VALUES, 'outputformat: All'),
  },
  {
    check: 'falco-forwarder',
    why: 'warnings and above only',
    mutate: (c) => c.edit(SIDEKICK_VALUES, 0, (d) => d.setIn(['config', 'slack', 'minimumpriority'], 'warning')),
    at: 'minimumpriority',
    fix: 'set replicaCount: 2, webui.enabled: false and config.slack.minimumpriority: notice, and no config.alertmanager.hostport',
  },
  {
    check: 'falco-forwarder',
    why: 'the webhook Secret names its key after the store, not the variable falcosidekick reads',
    mutate: (c) =>
      c.write(
        'security/falcosidekick/externalsecret.yaml',
        c.read('security/falcosidekick/externalsecret.yaml').replace('secretKey: SLACK_WEBHOOKURL', 'secretKey: url'),
      ),
    at: 'existingSecret',
    fix: 'take the chat webhook from config.existingSecret, a Secret an ExternalSecret writes with the key SLACK_WEBHOOKURL, and commit no config.slack.webhookurl',
  },
  {
    check: 'falco-forwarder',
    why: 'events routed through Alertmanager',
    mutate: (c) => c.edit(SIDEKICK_VALUES, 0, (d) => d.setIn(['config', 'alertmanager', 'hostport'], 'http://alertmanager.monitoring:9093')),
    at: 'hostport',
  },
];

/** The tuning fixtures, each appended to the real tuning file: what the rules files Falco loads may and may not say. */
export const falcoTuningMutations: Mutation[] = fixtureMutations;
