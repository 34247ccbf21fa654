/**
 * Mutations for monitoring-probe-module, with a stand-in for the blackbox exporter's chart: the real chart's name and
 * version, in a chart cache of its own and locked, rendering what the check reads as the real one does (the
 * exporter's ConfigMap, its blackbox.yaml the values' config over the chart's default module, and the Service the
 * Probes' prober names, an ExternalName, as the stand-in runs no exporter; the image's tag a data key).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { RepoCopy } from '../support/helpers.ts';
import type { Mutation, MutationSetup } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';
import { standInChart } from './render.ts';

const APP = 'monitoring/blackbox-exporter/application.yaml';
const VALUES = 'monitoring/blackbox-exporter/values.yaml';
const PROBES = 'monitoring/blackbox-exporter/probes.yaml';
const NAME = 'blackbox-exporter-prometheus-blackbox-exporter';

/** The chart's own default module (its values.yaml), which the repository's values override key by key. */
const CHART_DEFAULT_CONFIG = {
  modules: {
    http_2xx: { prober: 'http', timeout: '5s', http: { valid_http_versions: ['HTTP/1.1', 'HTTP/2.0'], follow_redirects: true, preferred_ip_protocol: 'ip4' } },
  },
};

/** The exporter version the copy's metrics catalog pins for the chart (its entry's file name). */
const exporterVersion = (copy: RepoCopy): string =>
  /^blackbox-exporter-(v[\d.]+)\.yaml$/.exec(
    readdirSync(join(copy.root, 'monitoring/metrics-catalog')).find((f) => f.startsWith('blackbox-exporter-')) ?? '',
  )?.[1] ?? '';

export function standInBlackbox(): MutationSetup {
  return standInChart({
    chart: 'prometheus-blackbox-exporter',
    repoURL: 'https://prometheus-community.github.io/helm-charts',
    app: APP,
    // Every key of the copy's values declared (helm-values-unused), the chart's default module under them.
    values: (copy) => ({ ...(parse(copy.read(VALUES)) as Record<string, unknown>), config: CHART_DEFAULT_CONFIG }),
    files: (copy) => ({
      // The exporter's image as a data key (metrics-catalog-current holds the catalog entry to what the render names).
      'templates/configmap.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${NAME}\n  namespace: {{ .Release.Namespace }}\ndata:\n  image: "quay.io/prometheus/blackbox-exporter:${exporterVersion(copy)}"\n  blackbox.yaml: |\n{{ toYaml .Values.config | indent 4 }}\n`,
      'templates/service.yaml': `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${NAME}\n  namespace: {{ .Release.Namespace }}\nspec:\n  type: ExternalName\n  externalName: blackbox.standin.invalid\n  ports:\n    - name: http\n      port: 9115\n      protocol: TCP\n`,
    }),
  });
}

export const internetModule = (to: string) => swap(PROBES, '  interval: 15s\n  module: http_2xx\n', `  interval: 15s\n  module: ${to}\n`);

export const probeModuleMutations: Mutation[] = [
  {
    check: 'monitoring-probe-module',
    why: 'the internet Probe asks for http_3xx, a module the exporter is not configured with: 400 "Unknown module", and InternetDown never fires',
    mutate: internetModule('http_3xx'),
    at: 'module: http_3xx',
  },
  {
    check: 'monitoring-probe-module',
    why: "the values name their module icmp_ping (the chart's default http_2xx stays), and the internet Probe asks for icmp",
    mutate: (c) => {
      swap(VALUES, '  modules:\n    http_2xx:\n', '  modules:\n    icmp_ping:\n')(c);
      internetModule('icmp')(c);
    },
    at: 'module: icmp',
  },
];
