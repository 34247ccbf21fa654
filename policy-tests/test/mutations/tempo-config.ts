/** Mutations for monitoring-tempo-config: Tempo's values given a key Tempo 2.10.8 has no field for, a protocol its receivers do not speak, or a flag it does not take, offline. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const VALUES = 'monitoring/tempo/values.yaml';
const CHECK = 'monitoring-tempo-config';

export const tempoConfigMutations: Mutation[] = [
  {
    check: CHECK,
    why: 'the ingester given max_block_duraton (a misspelt max_block_duration): UnmarshalStrict refuses it and Tempo exits at start',
    mutate: swap(VALUES, '  retention: 24h\n', '  retention: 24h\n  ingester:\n    max_block_duraton: 5m\n'),
    at: 'max_block_duraton',
  },
  {
    check: CHECK,
    why: "the query frontend's settings written under a key of no Tempo struct (search_defaults)",
    mutate: swap(VALUES, '  retention: 24h\n', '  retention: 24h\n  queryFrontend:\n    search_defaults:\n      limit: 50\n'),
    at: 'search_defaults',
  },
  {
    check: CHECK,
    why: "the OTLP receiver's HTTP protocol written htpt: the collector's OTLP receiver has no such protocol, and Tempo exits at start",
    mutate: swap(VALUES, '        http:\n          endpoint: 0.0.0.0:4318', '        htpt:\n          endpoint: 0.0.0.0:4318'),
    at: 'htpt:',
  },
  {
    check: CHECK,
    why: "the OTLP receiver's gRPC server given endpiont (a misspelt endpoint): configgrpc.ServerConfig has no such key, the collector refuses it, and Tempo exits at start",
    mutate: swap(VALUES, '        grpc:\n          endpoint: 0.0.0.0:4317', '        grpc:\n          endpiont: 0.0.0.0:4317'),
    at: 'endpiont:',
  },
  {
    check: CHECK,
    why: 'Tempo given -shutdown-delay=30 in extraArgs: a duration flag reads no bare number, the flag package stops Tempo with exit 2 at every start',
    mutate: swap(VALUES, '  retention: 24h\n', '  retention: 24h\n  extraArgs:\n    shutdown-delay: 30\n'),
    at: 'shutdown-delay: 30',
  },
  {
    check: CHECK,
    why: 'Tempo given -distributer.log-received-spans.enabled (a slip of the distributor module): its flag set holds no such flag, exit 2',
    mutate: swap(VALUES, '  retention: 24h\n', '  retention: 24h\n  extraArgs:\n    distributer.log-received-spans.enabled: true\n'),
    at: 'distributer.log-received-spans.enabled',
  },
];
