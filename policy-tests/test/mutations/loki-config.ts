/**
 * Mutations for monitoring-loki-config: Loki's values given what Loki 3.7.6 refuses to load. The first list runs
 * offline (yaml.v2's UnmarshalStrict into its config structs, on the blocks the values write into Loki's file as they
 * are); the second with a stand-in of the loki chart, where Loki's checks of the whole decoded file run (the schema
 * periods, structured metadata, retention), which offline are said not judged.
 */
import { parse } from 'yaml';
import type { Mutation, MutationSetup } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';
import { standInChart } from './render.ts';

const VALUES = 'monitoring/loki/values.yaml';
const CHECK = 'monitoring-loki-config';

export const lokiConfigMutations: Mutation[] = [
  {
    check: CHECK,
    why: 'a compactor field misspelt (retention_delete_dela): the compactor block has no such field, and Loki exits at start',
    mutate: swap(VALUES, '    retention_enabled: true\n', '    retention_enabled: true\n    retention_delete_dela: 2h\n'),
    at: 'retention_delete_dela',
  },
  {
    check: CHECK,
    why: 'the line size limit written 256KiB: Loki reads its byte sizes with c2h5oh/datasize, which knows KB and K but not KiB',
    mutate: swap(VALUES, '  limits_config:\n', '  limits_config:\n    max_line_size: 256KiB\n'),
    at: 'max_line_size',
  },
  {
    check: CHECK,
    why: "the schema period's start written 2025-1-1: Loki reads a period's from as a 2006-01-02 date, and refuses the file",
    mutate: swap(VALUES, '      - from: "2025-01-01"\n', '      - from: "2025-1-1"\n'),
    at: 'from: "2025-1-1"',
  },
  {
    check: CHECK,
    why: 'structuredConfig writes a block Loki has none of (querier_config): the root struct refuses it by name',
    mutate: swap(VALUES, '  auth_enabled: false\n', '  auth_enabled: false\n  structuredConfig:\n    querier_config:\n      max_concurrent: 4\n'),
    at: 'querier_config',
  },
  {
    check: CHECK,
    why: "a tenant's override misspelt in the runtime file (max_line_sise): Loki decodes the overrides strictly too, and does not start",
    mutate: swap(VALUES, '  auth_enabled: false\n', '  auth_enabled: false\n  runtimeConfig:\n    overrides:\n      home:\n        max_line_sise: 1MB\n'),
    at: 'max_line_sise',
  },
  {
    check: CHECK,
    why: "the events' retention rule given priority high: StreamRetention's priority is an int, and yaml.v2 refuses the word",
    mutate: swap(VALUES, '        priority: 1\n', '        priority: high\n'),
    at: 'priority: high',
  },
  {
    check: CHECK,
    why: "the events' retention selector written without its braces: LogQL's ParseMatchers refuses it, and Limits.Validate stops Loki at start",
    mutate: swap(
      VALUES,
      `      - selector: '{job="integrations/kubernetes/eventhandler"}'\n`,
      `      - selector: 'job="integrations/kubernetes/eventhandler"'\n`,
    ),
    at: `selector: 'job="integrations/kubernetes/eventhandler"'`,
  },
  {
    check: CHECK,
    why: "an argument of the single binary misspelt (-config.expand-envv): Go's flag package refuses a flag Loki does not register, and Loki exits 2 at start",
    mutate: swap(VALUES, 'singleBinary:\n  replicas: 1\n', 'singleBinary:\n  extraArgs:\n    - -config.expand-envv=true\n  replicas: 1\n'),
    at: '-config.expand-envv=true',
  },
  {
    check: CHECK,
    why: 'the longest chunk age given as 2hours on the command line: the flag is a time.Duration, its parse refuses the word, and Loki exits 2',
    mutate: swap(
      VALUES,
      'singleBinary:\n  replicas: 1\n',
      'singleBinary:\n  extraArgs:\n    - -log.level=debug\n    - -ingester.max-chunk-age=2hours\n  replicas: 1\n',
    ),
    at: '-ingester.max-chunk-age=2hours',
  },
];

/**
 * A stand-in for the loki chart at the version the copy pins: its ConfigMap `loki` with the config.yaml the real
 * chart's `loki.config` template writes from the values this repository sets (auth, the common block with the chart's
 * path prefix and filesystem directories, the schema, limits and compactor), `loki.structuredConfig` merged over it,
 * and Loki's image as a data key (metrics-catalog-current holds the catalog entry to what the render names).
 */
export function standInLoki(): MutationSetup {
  return standInChart({
    chart: 'loki',
    repoURL: 'https://grafana-community.github.io/helm-charts',
    app: 'monitoring/loki/application.yaml',
    values: (copy) => {
      const values = parse(copy.read(VALUES)) as { loki?: Record<string, unknown> };
      return { ...values, loki: { structuredConfig: {}, ...values.loki } };
    },
    files: (copy) => ({
      'templates/configmap.yaml': [
        '{{- $common := merge (dict "path_prefix" "/var/loki" "storage" (dict "filesystem" (dict "chunks_directory" "/var/loki/chunks" "rules_directory" "/var/loki/rules"))) (.Values.loki.commonConfig | default dict) }}',
        '{{- $config := dict "auth_enabled" .Values.loki.auth_enabled "common" $common "schema_config" .Values.loki.schemaConfig "limits_config" .Values.loki.limits_config "compactor" .Values.loki.compactor }}',
        '{{- $config = mergeOverwrite $config (.Values.loki.structuredConfig | default dict) }}',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: loki',
        '  namespace: {{ .Release.Namespace }}',
        'data:',
        // The Loki the copy's reference was read for: the chart at this version runs it.
        `  image: "docker.io/grafana/loki:${String((parse(copy.read('monitoring/loki/facts/config-reference.yaml')) as { version: string }).version)}"`,
        '  config.yaml: |',
        '{{ toYaml $config | indent 4 }}',
        '',
      ].join('\n'),
    }),
  });
}

export const lokiRenderedMutations: Mutation[] = [
  {
    check: CHECK,
    why: "the TSDB index given a weekly period: Loki's schema check wants 24h for TSDB, and Loki does not start",
    mutate: swap(VALUES, '          period: 24h\n', '          period: 168h\n'),
    at: 'period: 168h',
  },
  {
    check: CHECK,
    why: 'the schema set back to v12 with structured metadata on (its default): Loki wants v13 for it in the period in force',
    mutate: swap(VALUES, '        schema: v13\n', '        schema: v12\n'),
    at: 'schema: v12',
  },
  {
    check: CHECK,
    why: 'retention on with the delete-request store emptied: the compactor refuses its config, and Loki does not start',
    mutate: swap(VALUES, '    delete_request_store: filesystem\n', '    delete_request_store: ""\n'),
    at: '  compactor:',
  },
  {
    check: CHECK,
    why: 'the delete-request store misspelt (fielsystem): the compactor makes no object client of that name, and Loki exits at start',
    mutate: swap(VALUES, '    delete_request_store: filesystem\n', '    delete_request_store: fielsystem\n'),
    at: 'delete_request_store: fielsystem',
  },
  {
    check: CHECK,
    why: 'a stream kept 12 hours by a retention_stream rule: Limits.Validate wants at least 24h, and Loki does not start',
    mutate: swap(VALUES, '        period: 720h\n', '        period: 720h\n      - selector: \'{job="debug"}\'\n        priority: 2\n        period: 12h\n'),
    at: 'period: 12h',
  },
];
