/** Broken copies of the real repository for the checks of policy-tests/checks/monitoring/sources.ts, pve-trust.ts, unpoller-trust.ts, unpoller-config.ts and the log shippers' (alloy-config.ts, alloy-node.ts): each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { KPS, ALLOY, appendConfigMap, inFile, swap } from './edits.ts';
import { lineOf } from '../support/helpers.ts';

const PVE_DEPLOYMENT = 'monitoring/pve-exporter/deployment.yaml';
const PVE_MONITOR = 'monitoring/pve-exporter/servicemonitor.yaml';
const PVE_SECRET = 'monitoring/pve-exporter/externalsecret.yaml';
const UNPOLLER = 'monitoring/unpoller/deployment.yaml';
const UNPOLLER_PIN = /- name: UP_UNIFI_DEFAULT_SSL_CERT_PATH_0\n {14}value: \S+\n {12}/;

/** The pod-log source fed through a `discovery.relabel` of one rule (a label, an action and its regex as written). */
const relabelPods =
  (label: string, action: string, regex: string): Mutation['mutate'] =>
  (c) => {
    swap(ALLOY, 'targets    = discovery.kubernetes.pods.targets', 'targets    = discovery.relabel.pods.output')(c);
    swap(
      ALLOY,
      '      loki.write "default" {',
      `      discovery.relabel "pods" {\n        targets = discovery.kubernetes.pods.targets\n        rule {\n          source_labels = ["${label}"]\n          action        = "${action}"\n          regex         = "${regex}"\n        }\n      }\n      loki.write "default" {`,
    )(c);
  };

export const monitoringSourcesMutations: Mutation[] = [
  {
    check: 'pve-audit-token',
    why: 'no host reports the cluster-wide view',
    mutate: (c) => c.edit('monitoring/pve-exporter/servicemonitor.yaml', 0, (d) => d.setIn(['spec', 'endpoints', 0, 'params', 'cluster'], d.createNode(['0']))),
    at: '  endpoints:',
  },
  {
    check: 'pve-audit-token',
    why: "the second host's scrape asks for module defualt: the exporter answers 400 (Module not found in config), and pve2's metrics stop",
    mutate: (c) =>
      c.write(
        'monitoring/pve-exporter/servicemonitor.yaml',
        c
          .read('monitoring/pve-exporter/servicemonitor.yaml')
          .replace('        target: [pve2.lan]\n', '        target: [pve2.lan]\n        module: [defualt]\n'),
      ),
    at: 'module: [defualt]',
  },
  {
    check: 'pve-audit-token',
    why: "pve.yml's module renamed lab while no scrape names a module: each asks for default, which pve.yml no longer has, and every host's metrics stop",
    mutate: (c) =>
      c.write(
        'monitoring/pve-exporter/externalsecret.yaml',
        c.read('monitoring/pve-exporter/externalsecret.yaml').replace('          default:\n', '          lab:\n'),
      ),
    at: (c) => ({ file: 'monitoring/pve-exporter/servicemonitor.yaml', line: lineOf(c, 'monitoring/pve-exporter/servicemonitor.yaml', 'target: [pve1.lan]') }),
  },
  {
    check: 'pve-audit-token',
    why: 'a password instead of the token',
    mutate: (c) =>
      c.write(
        'monitoring/pve-exporter/externalsecret.yaml',
        c.read('monitoring/pve-exporter/externalsecret.yaml').replace('token_name: monitoring', 'password: "{{ .token }}"'),
      ),
    at: 'pve.yml: |',
  },
  {
    check: 'pve-audit-token',
    why: 'the user is an administrator',
    mutate: (c) =>
      c.write(
        'monitoring/pve-exporter/facts/pve-access.yaml',
        c.read('monitoring/pve-exporter/facts/pve-access.yaml').replace('role: PVEAuditor', 'role: Administrator'),
      ),
    at: () => 1,
  },
  {
    check: 'pve-exporter-trust',
    why: "the exporter is not given the hosts' cluster CA, so it checks pve1.lan against the public roots alone",
    mutate: (c) => c.write(PVE_DEPLOYMENT, c.read(PVE_DEPLOYMENT).replace(/ {10}env:\n(.*\n){3}/, '')),
    at: inFile(PVE_MONITOR, 'target: [pve1.lan]'),
  },
  {
    check: 'pve-exporter-trust',
    why: 'the exporter verifies nothing and hands its token to whatever answers',
    mutate: (c) => c.write(PVE_SECRET, c.read(PVE_SECRET).replace('verify_ssl: true', 'verify_ssl: false')),
    at: 'pve.yml: |',
  },
  {
    check: 'pve-exporter-trust',
    why: "REQUESTS_CA_BUNDLE names a file of the image, which holds no hypervisor cluster's CA",
    mutate: (c) =>
      c.write(PVE_DEPLOYMENT, c.read(PVE_DEPLOYMENT).replace('value: /etc/pve-exporter/pve-root-ca.pem', 'value: /etc/ssl/certs/ca-certificates.crt')),
    at: 'value: /etc/ssl/certs/ca-certificates.crt',
  },
  {
    check: 'unpoller-source',
    why: 'the gateway scraped every minute',
    mutate: (c) => c.edit('monitoring/unpoller/deployment.yaml', 2, (d) => d.setIn(['spec', 'endpoints', 0, 'interval'], '60s')),
    at: 'interval: 60s',
  },
  {
    check: 'unpoller-source',
    why: 'the system log pushed every 5 minutes',
    mutate: (c) => c.write('monitoring/unpoller/deployment.yaml', c.read('monitoring/unpoller/deployment.yaml').replace('value: 1m', 'value: 5m')),
    at: '- name: UP_LOKI_INTERVAL',
  },
  {
    check: 'unpoller-source',
    why: 'the password committed in the manifest',
    mutate: (c) =>
      c.write(
        'monitoring/unpoller/deployment.yaml',
        c
          .read('monitoring/unpoller/deployment.yaml')
          .replace(
            /- name: UP_UNIFI_DEFAULT_PASS\n              valueFrom:\n                secretKeyRef:\n                  name: unpoller\n                  key: password/,
            '- name: UP_UNIFI_DEFAULT_PASS\n              value: hunter2',
          ),
      ),
    at: '- name: UP_UNIFI_DEFAULT_PASS',
  },
  {
    check: 'unpoller-trust',
    why: "the gateway's certificate no longer pinned: unpoller checks none, and hands the password to whatever answers",
    mutate: (c) => c.write(UNPOLLER, c.read(UNPOLLER).replace(UNPOLLER_PIN, '')),
    at: 'value: https://gateway.lan',
  },
  {
    check: 'unpoller-trust',
    why: 'verify_ssl instead of the pin: no public CA certifies gateway.lan, so every poll fails',
    mutate: (c) => c.write(UNPOLLER, c.read(UNPOLLER).replace(UNPOLLER_PIN, '- name: UP_UNIFI_DEFAULT_VERIFY_SSL\n              value: "true"\n            ')),
    at: 'value: https://gateway.lan',
  },
  {
    check: 'unpoller-trust',
    why: "the pin names a file of the image, which holds no gateway's certificate",
    mutate: (c) => c.write(UNPOLLER, c.read(UNPOLLER).replace('value: /etc/unpoller/gateway/certificate.pem', 'value: /etc/ssl/certs/gateway.pem')),
    at: 'value: /etc/ssl/certs/gateway.pem',
  },
  {
    check: 'unpoller-trust',
    why: 'the login over plain HTTP',
    mutate: (c) => c.write(UNPOLLER, c.read(UNPOLLER).replace('value: https://gateway.lan', 'value: http://gateway.lan')),
    at: 'value: http://gateway.lan',
  },
  {
    check: 'unpoller-config-loads',
    why: 'the InfluxDB output disabled with "yes", which strconv.ParseBool refuses: unpoller exits at start',
    mutate: swap(UNPOLLER, /(name: UP_INFLUXDB_DISABLE\n {14}value: )"true"/, '$1"yes"'),
    at: inFile(UNPOLLER, 'value: "yes"'),
  },
  {
    check: 'unpoller-config-loads',
    why: 'debugging turned on "yes" by a ConfigMap the container takes through envFrom: the kubelet sets UP_POLLER_DEBUG from its key, strconv.ParseBool refuses it, and unpoller exits at start',
    mutate: (c) => {
      swap(UNPOLLER, '          env:\n', '          envFrom:\n            - configMapRef:\n                name: unpoller-settings\n          env:\n')(c);
      appendConfigMap(UNPOLLER, { name: 'unpoller-settings', namespace: 'monitoring', data: { UP_POLLER_DEBUG: 'yes' } })(c);
    },
    at: inFile(UNPOLLER, '- configMapRef:'),
  },
  {
    check: 'unpoller-config-loads',
    why: 'the pin moved to item 1 of the list: cnfg reads items from _0 up and never reads it, so the password goes unpinned',
    mutate: swap(UNPOLLER, 'name: UP_UNIFI_DEFAULT_SSL_CERT_PATH_0', 'name: UP_UNIFI_DEFAULT_SSL_CERT_PATH_1'),
    at: inFile(UNPOLLER, 'name: UP_UNIFI_DEFAULT_SSL_CERT_PATH_1'),
  },
  {
    check: 'unpoller-config-loads',
    why: 'the metrics listener named in lower case: cnfg reads the upper-case name alone, and the setting does nothing',
    mutate: swap(UNPOLLER, 'name: UP_PROMETHEUS_HTTP_LISTEN', 'name: up_prometheus_http_listen'),
    at: inFile(UNPOLLER, 'name: up_prometheus_http_listen'),
  },
  {
    check: 'grafana-admin-from-store',
    why: 'the admin password left to the subchart (randAlphaNum)',
    mutate: (c) => c.edit(KPS, 0, (d) => d.deleteIn(['grafana', 'admin'])),
    at: 'grafana:',
  },
  {
    check: 'grafana-admin-from-store',
    why: 'the admin Secret written by no ExternalSecret',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['grafana', 'admin', 'existingSecret'], 'grafana-login')),
    at: 'existingSecret:',
  },
];

/** The log and trace shippers': Alloy's configurations and the nodes each tails, the events shipped once, the proxies' traces. */
export const shipperMutations: Mutation[] = [
  {
    check: 'alloy-ships-logs',
    why: "the store's push path written /api/v1/push, Prometheus' habit: Loki answers 404 to every batch, and Alloy runs on without a word",
    mutate: swap(ALLOY, '          url = "http://loki.monitoring.svc:3100/loki/api/v1/push"', '          url = "http://loki.monitoring.svc:3100/api/v1/push"'),
    at: inFile(ALLOY, 'url = "http://loki.monitoring.svc:3100/api/v1/push"'),
  },
  {
    check: 'alloy-ships-logs',
    why: 'Loki turned multi-tenant (auth_enabled) and Grafana\'s datasource given the tenant header, the shippers no tenant: Loki refuses every push 401 "no org id"',
    mutate: (c) => {
      swap('monitoring/loki/values.yaml', '  auth_enabled: false\n', '  auth_enabled: true\n')(c);
      swap(
        KPS,
        '      url: http://loki.monitoring.svc:3100\n',
        '      url: http://loki.monitoring.svc:3100\n      jsonData:\n        httpHeaderName1: X-Scope-OrgID\n      secureJsonData:\n        httpHeaderValue1: homelab\n',
      )(c);
    },
    at: inFile(ALLOY, '        endpoint {'),
  },
  {
    check: 'alloy-ships-logs',
    why: "the pod log source forwarding to an empty list: Alloy reads every pod's log and sends it nowhere",
    mutate: swap(ALLOY, '        forward_to = [loki.write.default.receiver]', '        forward_to = []'),
    at: inFile(ALLOY, 'loki.source.kubernetes "pods"'),
  },
  {
    check: 'alloy-ships-logs',
    why: "the events shipper sending over https to the cluster's Loki, which serves plain HTTP: every handshake fails",
    mutate: swap(
      'monitoring/alloy-events/values.yaml',
      '          url = "http://loki.monitoring.svc:3100',
      '          url = "https://loki.monitoring.svc:3100',
    ),
    at: inFile('monitoring/alloy-events/values.yaml', 'url = "https://loki'),
  },
  {
    check: 'alloy-ships-logs',
    why: "Loki's server given a certificate (http_tls_config), and Grafana's datasource moved to https with it: it takes TLS only, and both shippers still push over plain HTTP, which Go's TLS server answers 400",
    mutate: (c) => {
      swap(
        'monitoring/loki/values.yaml',
        '  auth_enabled: false\n',
        '  auth_enabled: false\n  server:\n    http_tls_config:\n      cert_file: /tls/tls.crt\n      key_file: /tls/tls.key\n',
      )(c);
      swap(KPS, '      url: http://loki.monitoring.svc:3100', '      url: https://loki.monitoring.svc:3100')(c);
    },
    at: inFile(ALLOY, 'url = "http://loki.monitoring.svc:3100'),
  },
  {
    check: 'alloy-config-loads',
    why: "the store's endpoint given uri for url: Alloy's decoder refuses the attribute and misses the one it requires, and no pod log reaches the log store",
    mutate: swap(ALLOY, '          url = "http://loki.monitoring.svc:3100', '          uri = "http://loki.monitoring.svc:3100'),
    at: inFile(ALLOY, 'uri = "http://loki.monitoring.svc:3100'),
  },
  {
    check: 'alloy-config-loads',
    why: "the store's batch wait given \"5\", meant as seconds: Alloy's decoder reads a duration through Go's ParseDuration, which takes none without its unit, and no pod log reaches the log store",
    mutate: swap(
      ALLOY,
      '          url = "http://loki.monitoring.svc:3100/loki/api/v1/push"\n',
      '          url = "http://loki.monitoring.svc:3100/loki/api/v1/push"\n          batch_wait = "5"\n',
    ),
    at: inFile(ALLOY, 'batch_wait = "5"'),
  },
  {
    check: 'alloy-config-loads',
    why: 'the events source left without forward_to, which its arguments require: Alloy refuses the file, and no orchestrator event is shipped',
    mutate: swap('monitoring/alloy-events/values.yaml', '        forward_to = [loki.write.default.receiver]\n', ''),
    at: inFile('monitoring/alloy-events/values.yaml', 'loki.source.kubernetes_events "events" {'),
  },
  {
    check: 'events-shipped-once',
    why: 'the events source back in the per-node DaemonSet',
    mutate: (c) =>
      c.edit(ALLOY, 0, (d) =>
        d.setIn(
          ['alloy', 'configMap', 'content'],
          `${String(d.getIn(['alloy', 'configMap', 'content']))}loki.source.kubernetes_events "events" {\n  forward_to = [loki.write.default.receiver]\n}\n`,
        ),
      ),
    at: 'content: |',
  },
  {
    check: 'alloy-config-loads',
    why: "a second receiver added to the pod-log source's list, the line before it left without its comma: Alloy's parser refuses the file, the shippers do not start on it, and no pod log reaches the log store",
    mutate: swap(
      ALLOY,
      '        forward_to = [loki.write.default.receiver]\n',
      '        forward_to = [\n          loki.write.default.receiver\n          loki.write.backup.receiver,\n        ]\n',
    ),
    at: inFile(ALLOY, '          loki.write.default.receiver'),
  },
  {
    check: 'alloy-config-loads',
    why: 'the events shipper given a top-level attribute, as a values file would set it: Alloy reads only blocks there (unrecognized attribute), and no orchestrator event is shipped',
    mutate: (c) =>
      c.edit('monitoring/alloy-events/values.yaml', 0, (d) =>
        d.setIn(['alloy', 'configMap', 'content'], `log_level = "warn"\n${String(d.getIn(['alloy', 'configMap', 'content']))}`),
      ),
    at: inFile('monitoring/alloy-events/values.yaml', 'log_level = "warn"'),
  },
  {
    check: 'alloy-config-loads',
    why: 'the pod-log source misspelt (loki.source.kubernete): Alloy cannot find the definition of that component, refuses the file, and no pod log reaches the log store',
    mutate: swap(ALLOY, '      loki.source.kubernetes "pods" {\n', '      loki.source.kubernete "pods" {\n'),
    at: inFile(ALLOY, 'loki.source.kubernete "pods"'),
  },
  {
    check: 'alloy-config-loads',
    why: 'a secret filter added before the store, a component Alloy 1.18 ships as experimental while the chart runs it at generally-available: Alloy refuses the file',
    mutate: swap(
      ALLOY,
      '      loki.write "default" {\n',
      '      loki.secretfilter "redact" {\n        forward_to = [loki.write.default.receiver]\n      }\n      loki.write "default" {\n',
    ),
    at: inFile(ALLOY, 'loki.secretfilter "redact"'),
  },
  {
    check: 'alloy-config-loads',
    why: "the events source forwarding to a store by a misspelt label (defualt): Alloy's loader finds no such component, refuses the file, and no orchestrator event is shipped",
    mutate: swap('monitoring/alloy-events/values.yaml', 'forward_to = [loki.write.default.receiver]', 'forward_to = [loki.write.defualt.receiver]'),
    at: inFile('monitoring/alloy-events/values.yaml', 'loki.write.defualt.receiver'),
  },
  {
    check: 'alloy-config-loads',
    why: 'a second store block under the same label: Alloy refuses the block already declared',
    mutate: swap(ALLOY, '      loki.write "default" {\n', '      loki.write "default" {\n      }\n      loki.write "default" {\n'),
    at: (c) => ({ file: ALLOY, line: c.read(ALLOY).split('\n').lastIndexOf('      loki.write "default" {') + 1 }),
  },
  {
    check: 'alloy-config-loads',
    why: "the events source forwarding to the store's receiver without the list around it: the vm decodes a capsule into no list, Alloy refuses the file, and no orchestrator event is shipped",
    mutate: swap('monitoring/alloy-events/values.yaml', 'forward_to = [loki.write.default.receiver]', 'forward_to = loki.write.default.receiver'),
    at: inFile('monitoring/alloy-events/values.yaml', 'forward_to = loki.write.default.receiver'),
  },
  {
    check: 'alloy-config-loads',
    why: 'the events source given log_format "text": its own Validate takes logfmt or json alone, Alloy refuses the file, and no orchestrator event is shipped',
    mutate: swap(
      'monitoring/alloy-events/values.yaml',
      '        job_name   = "integrations/kubernetes/eventhandler"\n',
      '        job_name   = "integrations/kubernetes/eventhandler"\n        log_format = "text"\n',
    ),
    at: inFile('monitoring/alloy-events/values.yaml', 'loki.source.kubernetes_events "events" {'),
  },
  {
    check: 'alloy-config-loads',
    why: "the store's URL with its port mistyped (31OO): the endpoint's own Validate reads it through Go's url.Parse, which refuses the port, and no pod log reaches the log store",
    mutate: swap(ALLOY, 'url = "http://loki.monitoring.svc:3100/', 'url = "http://loki.monitoring.svc:31OO/'),
    at: inFile(ALLOY, '        endpoint {'),
  },
  {
    check: 'alloy-tails-its-node',
    why: "the pod-log discovery's node selector dropped, clustering off: every node's agent tails every pod of the cluster",
    mutate: swap(
      ALLOY,
      '        selectors {\n          role  = "pod"\n          field = "spec.nodeName=" + coalesce(sys.env("HOSTNAME"), constants.hostname)\n        }\n',
      '',
    ),
    at: inFile(ALLOY, 'discovery.kubernetes "pods" {'),
  },
  {
    check: 'alloy-tails-its-node',
    why: "the node selector moved into a relabelling that keeps one fixed node's pods: the agents on the other nodes ship none of theirs",
    mutate: (c) => {
      swap(ALLOY, /        selectors \{\n[^}]*\}\n/, '')(c);
      relabelPods('__meta_kubernetes_pod_node_name', 'keep', 'talos-w1')(c);
    },
    at: inFile(ALLOY, 'regex         = "talos-w1"'),
  },
  {
    check: 'alloy-tails-its-node',
    why: "a label selector beside the node selector, to skip the log store's own pods, its value set left open: the API server refuses every list of pods (labels.Parse), and no pod's log is shipped",
    mutate: swap(ALLOY, '          role  = "pod"\n', '          role  = "pod"\n          label = "app.kubernetes.io/name notin (loki"\n'),
    at: inFile(ALLOY, 'label = "app.kubernetes.io/name notin (loki"'),
  },
  {
    check: 'alloy-config-loads',
    why: "a relabelling that drops the system namespaces' pods, its regex's group left open: Go's regexp refuses `^(?s:kube-(system|public)$`, Alloy loads no configuration, and no pod log is shipped",
    mutate: relabelPods('__meta_kubernetes_namespace', 'drop', 'kube-(system|public'),
    at: inFile(ALLOY, 'regex         = "kube-(system|public"'),
  },
  {
    check: 'events-shipped-once',
    why: 'the events Deployment scaled to two replicas',
    mutate: (c) => c.edit('monitoring/alloy-events/values.yaml', 0, (d) => d.setIn(['controller', 'replicas'], 2)),
    at: 'replicas:',
  },
  {
    check: 'ingress-traces',
    why: 'the private proxy stops sending traces',
    mutate: (c) => c.edit('apps/platform/ingress-private/values.yaml', 0, (d) => d.setIn(['tracing', 'otlp', 'enabled'], false)),
    at: 'tracing:',
  },
  {
    check: 'ingress-traces',
    why: 'the public proxy sends traces to the wrong port',
    mutate: (c) => c.edit('apps/platform/ingress-public/values.yaml', 0, (d) => d.setIn(['tracing', 'otlp', 'grpc', 'endpoint'], 'tempo.monitoring.svc:4318')),
    at: 'endpoint:',
  },
  {
    check: 'ingress-traces',
    why: "Tempo's OTLP gRPC endpoint dropped: the collector's default since v0.116 is localhost:4317, so Tempo listens inside its own pod, and no proxy's trace reaches it",
    mutate: swap('monitoring/tempo/values.yaml', '        grpc:\n          endpoint: 0.0.0.0:4317\n', '        grpc: {}\n'),
    at: 'grpc: {}',
  },
  {
    check: 'ingress-traces',
    why: "the public proxy's insecure turned off: Traefik's exporter then speaks TLS to Tempo's plain gRPC receiver, every export fails the handshake, and no trace reaches the store (misspelt, insceure is a flag Traefik refuses: closure-traefik-flags)",
    mutate: swap('apps/platform/ingress-public/values.yaml', '      insecure: true\n', '      insecure: false\n'),
    at: (c) => ({ file: 'apps/platform/ingress-public/values.yaml', line: lineOf(c, 'apps/platform/ingress-public/values.yaml', '    grpc:') }),
  },
];
