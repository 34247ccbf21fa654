/**
 * Mutations for monitoring-loki-config: Loki's values given what Loki 3.7.6 refuses to load (yaml.v2's
 * UnmarshalStrict into its config structs), offline, on the blocks the values write into Loki's file as they are.
 */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

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
];
