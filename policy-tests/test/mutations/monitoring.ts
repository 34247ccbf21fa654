/** Broken copies of the real repository for the checks of policy-tests/checks/monitoring/monitoring.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { KPS, LOKI, TEMPO, PROBES, SNMP, DASHBOARD, WRANGLER, after, inFile, swap } from './edits.ts';

const SITES_ELSEWHERE = 'monitoring/blackbox-exporter/facts/sites-elsewhere.yaml';
const PVE_MONITOR = 'monitoring/pve-exporter/servicemonitor.yaml';
const SONARR_EXPORTER = 'apps/media/sonarr/exporter.yaml';

export const monitoringMutations: Mutation[] = [
  {
    check: 'monitoring-accepted',
    why: "the hypervisor exporter's cluster-wide view takes over a minute, so its scrape timeout is raised to 90s while its interval stays 60s: the operator refuses the ServiceMonitor (scrapeTimeout greater than scrapeInterval) and skips it whole, and no hypervisor is scraped",
    mutate: swap(
      PVE_MONITOR,
      '      interval: 60s\n      params:\n        target: [pve1.lan]\n',
      '      interval: 60s\n      scrapeTimeout: 90s\n      params:\n        target: [pve1.lan]\n',
    ),
    at: inFile(PVE_MONITOR, 'scrapeTimeout: 90s'),
  },
  {
    check: 'monitoring-accepted',
    why: "the TV manager's exporter keeps only its queue and episode series, by a regex missing its closing parenthesis: Prometheus's relabelling cannot compile it, the operator refuses the ServiceMonitor, and none of the TV manager's metrics are scraped",
    mutate: swap(
      SONARR_EXPORTER,
      '          replacement: exportarr-sonarr\n',
      "          replacement: exportarr-sonarr\n      metricRelabelings:\n        - sourceLabels: [__name__]\n          regex: 'sonarr_(queue|episode.*'\n          action: keep\n",
    ),
    at: inFile(SONARR_EXPORTER, "regex: 'sonarr_(queue|episode.*'"),
  },
  {
    check: 'monitoring-accepted',
    why: "the public sites' Probe loses its prober (the exporter's address): the operator reads an empty prober URL, refuses the Probe as an invalid host, and skips it whole, so no public site is probed and their alerts never fire",
    mutate: swap(PROBES, /(name: public-sites[\s\S]*?)  prober:\n    url: [^\n]*\n/, '$1'),
    // The finding is at the Probe's spec, the nearest node to the prober it lacks.
    at: (c) => {
      const lines = c.read(PROBES).split('\n');
      return {
        file: PROBES,
        line:
          lines.indexOf(
            'spec:',
            lines.findIndex((l) => l.includes('name: public-sites')),
          ) + 1,
      };
    },
  },
  {
    check: 'monitoring-scraped-once',
    why: "the TV manager's exporter monitor selects every exporter of the namespace (its app's label dropped): the other managers' exporters are scraped twice, once under job exportarr-sonarr, and their alerts fire as the TV manager's",
    mutate: swap(
      SONARR_EXPORTER,
      '      app.kubernetes.io/name: sonarr\n      app.kubernetes.io/component: exporter\n',
      '      app.kubernetes.io/component: exporter\n',
    ),
    at: after(SONARR_EXPORTER, 'kind: ServiceMonitor', '- port: metrics'),
  },
  {
    check: 'monitoring-scraped-once',
    why: "the indexer's exporter monitor loses its endpoint's port: the operator then keeps every port of the VPN pod's exporter Service, and the torrent client's exporter is scraped a second time, as exportarr-prowlarr",
    mutate: swap('apps/media/gluetun/exporters.yaml', '    - port: metrics-prowl\n      interval: 60s\n', '    - interval: 60s\n'),
    at: inFile('apps/media/gluetun/exporters.yaml', '- port: metrics-qbt'),
  },
  {
    check: 'alerts-reach-alertmanager',
    why: "the alert noise turned off at the source with the chart's disableAlerting: Prometheus still evaluates every rule, but sends no alert anywhere, Watchdog included",
    mutate: swap(KPS, '    retention: 7d\n', '    retention: 7d\n    disableAlerting: true\n'),
    at: inFile(KPS, 'disableAlerting: true'),
  },
  {
    check: 'alerts-reach-alertmanager',
    why: "the stack's Prometheus pointed at the status API's Service, in the mistaken belief that it relays alerts: its pods are no Alertmanager's, and every alert posted there is refused",
    mutate: swap(
      KPS,
      '    retention: 7d\n',
      '    retention: 7d\n    alertingEndpoints:\n      - name: portfolio-api\n        namespace: portfolio\n        port: http\n',
    ),
    at: inFile(KPS, 'name: portfolio-api'),
  },
  {
    check: 'monitoring-loaded',
    why: "the stack's Prometheus back at the chart's rule selector (release: kube-prometheus-stack): the repository's alert rules carry no such label, so none of them is ever loaded",
    mutate: swap(KPS, '    ruleSelectorNilUsesHelmValues: false\n', ''),
    at: inFile('monitoring/alert-rules/watchdog.yaml', 'name: watchdog'),
  },
  {
    check: 'monitoring-loaded',
    why: "the backup server's exporter added as a ScrapeConfig (with its catalog exemption) without the release label the stack's Prometheus selects ScrapeConfigs by: the chart's scrapeConfigSelectorNilUsesHelmValues was never set false, so it is never scraped",
    mutate: (c) => {
      c.write(
        PVE_MONITOR,
        `${c.read(PVE_MONITOR)}---\napiVersion: monitoring.coreos.com/v1alpha1\nkind: ScrapeConfig\nmetadata:\n  name: pve-backup-server\n  namespace: monitoring\nspec:\n  staticConfigs:\n    - targets: [pbs.lan:9221]\n`,
      );
      const exemptions = 'monitoring/metrics-catalog/exemptions.yaml';
      c.write(
        exemptions,
        `${c.read(exemptions)}- monitor: ScrapeConfig/monitoring/pve-backup-server\n  reason: no rule or dashboard of this repository reads its job yet\n`,
      );
    },
    at: inFile(PVE_MONITOR, 'name: pve-backup-server'),
  },
  {
    check: 'monitoring-loaded',
    why: 'the Probes looked for only in namespaces labelled for them, and the monitoring namespace is not',
    mutate: swap(
      KPS,
      '    probeSelectorNilUsesHelmValues: false\n',
      '    probeSelectorNilUsesHelmValues: false\n    probeNamespaceSelector:\n      matchLabels:\n        monitoring.homelab-gitops/probes: "true"\n',
    ),
    at: inFile(PROBES, 'name: internet'),
  },
  {
    check: 'monitoring-control-plane',
    why: "the machine config patch without the scheduler's bind-address, as a fork's generated config has it: Talos binds the scheduler to 127.0.0.1, the stack's scrape never reaches it, and KubeSchedulerDown fires, critical, for good",
    mutate: swap('clusters/home/cluster-facts.yaml', '      scheduler:\n        extraArgs:\n          bind-address: 0.0.0.0\n', ''),
    at: inFile('clusters/home/cluster-facts.yaml', 'machineConfig: |'),
    fix: "bind them wider in the machine config (cluster.controllerManager.extraArgs.bind-address and cluster.scheduler.extraArgs.bind-address: 0.0.0.0) and say so in machineConfig in clusters/home/cluster-facts.yaml, or turn the chart's scrape of them off (kubeControllerManager.enabled, kubeScheduler.enabled: false)",
  },
  {
    check: 'monitoring-retention',
    why: 'metrics kept 14 days',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['prometheus', 'prometheusSpec', 'retention'], '14d')),
    at: 'retention: 14d',
  },
  {
    check: 'monitoring-retention',
    why: 'one Alertmanager replica',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'alertmanagerSpec', 'replicas'], 1)),
    at: 'replicas: 1',
  },
  {
    check: 'monitoring-retention',
    why: 'logs kept 14 days',
    mutate: (c) => c.edit(LOKI, 0, (d) => d.setIn(['loki', 'limits_config', 'retention_period'], '336h')),
    at: 'retention_period',
  },
  {
    check: 'monitoring-retention',
    why: 'events kept as long as logs',
    mutate: (c) => c.edit(LOKI, 0, (d) => d.deleteIn(['loki', 'limits_config', 'retention_stream'])),
    at: 'limits_config:',
  },
  {
    check: 'monitoring-retention',
    why: "the node shipper's pod-log source deleted: Alloy loads its discovery and its writer, and no pod log reaches Loki",
    mutate: swap(
      'monitoring/alloy/values.yaml',
      '      loki.source.kubernetes "pods" {\n        targets    = discovery.kubernetes.pods.targets\n        forward_to = [loki.write.default.receiver]\n      }\n',
      '',
    ),
    at: inFile('monitoring/alloy/values.yaml', '  configMap:'),
  },
  {
    check: 'monitoring-retention',
    why: 'traces kept 2 days',
    mutate: (c) => c.edit(TEMPO, 0, (d) => d.setIn(['tempo', 'retention'], '48h')),
    at: 'retention: 48h',
  },
  {
    check: 'monitoring-probes',
    why: 'the internet probed every 30 s',
    mutate: (c) => c.edit(PROBES, 0, (d) => d.setIn(['spec', 'interval'], '30s')),
    at: 'interval: 30s',
  },
  {
    check: 'monitoring-probes',
    why: 'a public site dropped from the probe',
    mutate: (c) => c.edit(PROBES, 1, (d) => d.deleteIn(['spec', 'targets', 'staticConfig', 'static', 4])),
    at: (c) => c.read(PROBES).split('\n').lastIndexOf('  targets:') + 1,
  },
  {
    check: 'snmp-v3-only',
    why: 'a v2c community added',
    mutate: (c) => c.edit(SNMP, 0, (d) => d.setIn(['config'], `${String(d.get('config'))}  legacy:\n    version: 2\n    community: public\n`)),
    at: 'config: |',
  },
  {
    check: 'dashboard-queries',
    why: "the NAS traffic panel's rate() written without its range: Prometheus refuses the query (rate takes a range vector), and Grafana shows the panel's error instead of the NAS's traffic",
    mutate: (c) =>
      c.write(
        DASHBOARD,
        c
          .read(DASHBOARD)
          .replace('rate(ifHCInOctets{job=\\"snmp-nas\\", ifName=\\"eth0\\"}[5m]) * 8', 'rate(ifHCInOctets{job=\\"snmp-nas\\", ifName=\\"eth0\\"}) * 8'),
      ),
    at: 'rate(ifHCInOctets{job=\\"snmp-nas\\", ifName=\\"eth0\\"}) * 8',
  },
  {
    check: 'dashboard-rows',
    why: 'the NAS row is renamed',
    mutate: (c) => c.write(DASHBOARD, c.read(DASHBOARD).replace('"title": "NAS"', '"title": "Storage"')),
    at: '"panels": [',
  },
  {
    check: 'dashboard-rows',
    why: 'a Hypervisor panel loses its query',
    mutate: (c) => c.write(DASHBOARD, c.read(DASHBOARD).replace('"title": "VMs stopped"', '"title": "VMs halted"')),
    at: '"title": "Hypervisor"',
  },
  {
    check: 'monitoring-retention',
    why: 'the log shipper starts keeping data',
    mutate: (c) => c.edit('monitoring/alloy/values.yaml', 0, (d) => d.setIn(['alloy', 'storagePath'], '/var/lib/alloy')),
    at: 'controller:',
  },
  {
    check: 'monitoring-retention',
    why: "the log shipper without the control-plane taint's toleration: the chart's default, so it runs on the three workers alone",
    mutate: (c) => c.edit('monitoring/alloy/values.yaml', 0, (d) => d.deleteIn(['controller', 'tolerations'])),
    at: 'controller:',
  },
  {
    check: 'snmp-v3-only',
    why: 'the NAS scrape asks for auth nas_3v, which the config does not define: the exporter answers every scrape 400 "Unknown auth"',
    mutate: swap(SNMP, '      auth: [nas_v3]\n', '      auth: [nas_3v]\n'),
    at: 'auth: [nas_3v]',
  },
  {
    check: 'snmp-v3-only',
    why: "the image's modules not loaded beside the chart's config file",
    mutate: (c) => c.edit(SNMP, 0, (d) => d.set('extraArgs', d.createNode(['--config.expand-environment-variables']))),
    at: 'extraArgs:',
  },
  {
    check: 'snmp-v3-only',
    why: 'the auth variables given by a key the chart never reads (envFromSecrets)',
    mutate: (c) => c.write(SNMP, c.read(SNMP).replace(/^envFrom:\n(  .*\n)+/m, 'envFromSecrets:\n  - name: snmp-exporter-nas\n')),
    at: 'config: |',
  },
  {
    check: 'snmp-v3-only',
    why: 'the Secret names the auth password SNMP_PASSWORD, a variable the auths never expand',
    mutate: swap('monitoring/snmp-exporter/externalsecret.yaml', 'secretKey: SNMP_AUTH_PASSWORD', 'secretKey: SNMP_PASSWORD'),
    at: 'config: |',
  },
  {
    check: 'snmp-v3-only',
    why: 'MD5 instead of SHA',
    mutate: (c) => c.edit(SNMP, 0, (d) => d.setIn(['config'], String(d.get('config')).replace('auth_protocol: SHA', 'auth_protocol: MD5'))),
    at: 'config: |',
  },
  {
    check: 'public-sites-served',
    why: "a public site probed under a host nothing serves (a typo of the request manager's)",
    mutate: swap(PROBES, 'https://requests.example.net/', 'https://request.example.net/'),
    at: 'request.example.net',
  },
  {
    check: 'public-sites-served',
    why: "the watchdog checks the API's health at a path its Ingress does not route",
    mutate: swap(WRANGLER, 'https://portfolio.example.net/api/health', 'https://portfolio.example.net/health'),
    at: inFile(WRANGLER, 'SITES ='),
  },
  {
    check: 'public-sites-served',
    why: "the watchdog checks the API's health at /api/helth: the Ingress routes it to the API, which answers a 404, and the watchdog reports the site down for good",
    mutate: swap(WRANGLER, 'https://portfolio.example.net/api/health', 'https://portfolio.example.net/api/helth'),
    at: inFile(WRANGLER, 'SITES ='),
    fix: 'watch /api/health or /api/v1 or /api/v1/openapi.json or /api/v1/profile or /api/v1/infra or /api/v1/blog',
  },
  {
    check: 'public-sites-served',
    why: 'a site listed as served elsewhere that nothing watches any more',
    mutate: (c) => c.write(SITES_ELSEWHERE, `${c.read(SITES_ELSEWHERE)}- host: old.example.net\n  reason: the old site\n`),
    at: 'host: old.example.net',
  },
];
