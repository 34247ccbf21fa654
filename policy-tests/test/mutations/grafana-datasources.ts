/** Mutations for grafana-datasources: the values' datasources given what Grafana's provisioning refuses at start. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const VALUES = 'monitoring/kube-prometheus-stack/values.yaml';

export const grafanaDatasourcesMutations: Mutation[] = [
  {
    check: 'grafana-datasources',
    why: 'Loki turned multi-tenant (auth_enabled) and both shippers given a tenant, the datasource none: Loki refuses every query of the logs 401 "no org id"',
    mutate: (c) => {
      swap('monitoring/loki/values.yaml', '  auth_enabled: false\n', '  auth_enabled: true\n')(c);
      for (const alloy of ['monitoring/alloy/values.yaml', 'monitoring/alloy-events/values.yaml'])
        swap(
          alloy,
          '          url = "http://loki.monitoring.svc:3100/loki/api/v1/push"\n',
          '          url = "http://loki.monitoring.svc:3100/loki/api/v1/push"\n          tenant_id = "homelab"\n',
        )(c);
    },
    at: 'url: http://loki.monitoring.svc:3100',
  },
  {
    check: 'grafana-datasources',
    why: "Loki's datasource given https while the cluster's Loki serves plain HTTP: every query of the logs fails the handshake",
    mutate: swap(VALUES, '      url: http://loki.monitoring.svc:3100', '      url: https://loki.monitoring.svc:3100'),
    at: 'url: https://loki.monitoring.svc:3100',
  },
  {
    check: 'grafana-datasources',
    why: "Loki marked isDefault beside the chart's Prometheus: two defaults in one organization, and Grafana does not start",
    mutate: swap(VALUES, '      type: loki\n', '      type: loki\n      isDefault: true\n'),
    at: '- name: Loki',
  },
  {
    check: 'grafana-datasources',
    why: "Tempo given Loki's uid: Grafana's provisioning fails on the second insert",
    mutate: swap(VALUES, '      uid: tempo\n', '      uid: loki\n'),
    at: '- name: Tempo',
  },
  {
    check: 'grafana-datasources',
    why: "Loki's url misspelt (urll): Grafana's YAML reading drops the key unread, provisions Loki with no URL, and every log query fails",
    mutate: swap(VALUES, '      url: http://loki.monitoring.svc:3100\n', '      urll: http://loki.monitoring.svc:3100\n'),
    at: '- name: Loki',
  },
  {
    check: 'grafana-datasources',
    why: "Loki's uid misspelt (uie): Grafana drops the key unread and makes Loki a uid of its own, so a dashboard or link that names uid loki finds no datasource",
    mutate: swap(VALUES, '      uid: loki\n', '      uie: loki\n'),
    at: 'uie: loki',
  },
  {
    check: 'grafana-datasources',
    why: "Tempo's datasource named by a list: Grafana reads its name as text, yaml.v3 refuses the file, and Grafana does not start",
    mutate: swap(VALUES, '    - name: Tempo\n', '    - name: [Tempo]\n'),
    at: 'name: [Tempo]',
  },
  {
    check: 'grafana-datasources',
    why: "Tempo's datasource dropped from the values: the traces the ingress sends are kept, and nobody can query them",
    mutate: swap(VALUES, '    - name: Tempo\n      uid: tempo\n      type: tempo\n      access: proxy\n      url: http://tempo.monitoring.svc:3200\n', ''),
    at: 'additionalDataSources:',
  },
];
