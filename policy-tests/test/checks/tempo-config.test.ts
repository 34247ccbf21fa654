/** monitoring-tempo-config on a broken copy of the real repository, offline; what Tempo takes passes, and a key the manifest's struct does not list but Tempo has elsewhere is said not judged. */
import { receiverRefusals, silentReceivers } from '../../model/tempo/receivers.ts';
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import { tempoConfigMutations } from '../mutations/tempo-config.ts';

const VALUES = 'monitoring/tempo/values.yaml';
const CHECK = 'monitoring-tempo-config';

describeMutations('monitoring-tempo-config bites on a broken copy of the real repository, offline', tempoConfigMutations);

describe('monitoring-tempo-config', () => {
  it("passes the ingester's fields as Tempo's manifest lists them", async () => {
    const takes = swap(VALUES, '  retention: 24h\n', '  retention: 24h\n  ingester:\n    max_block_duration: 5m\n    trace_idle_period: 10s\n');
    expect(await onBrokenCopy(CHECK, takes)).toEqual({ failed: [], warned: [], notJudged: [] });
  });

  it("says a key the manifest's struct does not list, which another struct of Tempo's has, is not judged", async () => {
    const elsewhere = swap(VALUES, '  retention: 24h\n', '  retention: 24h\n  querier:\n    secondary_ingester_ring: ingester-b\n');
    const { failed, notJudged } = await onBrokenCopy(CHECK, elsewhere);
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([expect.stringContaining('querier.secondary_ingester_ring: a field the manifest does not list here')]);
  });
});

describe("Tempo 2.10.8's receivers, as the OpenTelemetry collector's config provider loads them", () => {
  it('refuses a receiver type Tempo makes no factory for, a protocol the OTLP or Jaeger receiver does not speak, and none at all', () => {
    expect(
      receiverRefusals({
        otlp: { protocols: { grpc: null, http: { endpoint: '0.0.0.0:4318' } } },
        'jaeger/lan': { protocols: { thrift_http: {} } },
        zipkin: {},
      }),
    ).toEqual([]);
    expect(receiverRefusals({ opencensus: {}, 'otpl/x': {}, otlp: { protocols: { htpt: {} } }, jaeger: { protocols: {} } })).toEqual([
      { path: ['opencensus'], message: 'unknown type: "opencensus" for id: "opencensus" (Tempo makes receivers of otlp, jaeger, zipkin, kafka)' },
      { path: ['otpl/x'], message: 'unknown type: "otpl" for id: "otpl/x" (Tempo makes receivers of otlp, jaeger, zipkin, kafka)' },
      { path: ['otlp', 'protocols', 'htpt'], message: "'protocols' has invalid keys: htpt (the otlp receiver speaks grpc, http)" },
    ]);
  });

  it('does not refuse a receiver left with no protocol (Tempo does not run the collector Validate), but says it takes no trace', () => {
    const none = { 'jaeger/lan': { protocols: {} }, otlp: { protocols: {} }, zipkin: { protocols: {} }, constructor: { protocols: {} } };
    expect(receiverRefusals(none)).toEqual([
      { path: ['constructor'], message: 'unknown type: "constructor" for id: "constructor" (Tempo makes receivers of otlp, jaeger, zipkin, kafka)' },
    ]);
    const silent = silentReceivers(none);
    expect(silent.map((r) => r.path.join('.'))).toEqual(['jaeger/lan.protocols', 'otlp.protocols']);
    expect(silent[0]!.message).toContain('the Jaeger receiver has no protocol, so it starts no server and takes no trace');
    expect(silent[1]!.message).toContain('"must specify at least one protocol when using the OTLP receiver"; Tempo does not run that check');
    expect(silentReceivers({ otlp: { protocols: { grpc: null } }, jaeger: {} })).toEqual([]);
  });

  it("refuses a key the OTLP receiver's grpc or http server does not have (the collector's structs at v0.150.0)", () => {
    const otlp = (grpc: Record<string, unknown>, http: Record<string, unknown>) => receiverRefusals({ otlp: { protocols: { grpc, http } } });
    expect(
      otlp(
        { endpoint: '0.0.0.0:4317', transport: 'tcp', tls: {}, max_recv_msg_size_mib: 16, keepalive: {}, include_metadata: true },
        { endpoint: '0.0.0.0:4318', cors: {}, traces_url_path: '/v1/traces', read_header_timeout: '5s', keep_alives_enabled: true },
      ),
    ).toEqual([]);
    expect(otlp({ endpiont: '0.0.0.0:4317' }, { endpoint: '0.0.0.0:4318', cros: {}, max_recv_msg_size_mib: 16 })).toEqual([
      {
        path: ['otlp', 'protocols', 'grpc', 'endpiont'],
        message: "'grpc' has invalid keys: endpiont (did you mean \"endpoint\"?) (the OTLP receiver's grpc server)",
      },
      { path: ['otlp', 'protocols', 'http', 'cros'], message: "'http' has invalid keys: cros (did you mean \"cors\"?) (the OTLP receiver's http server)" },
      {
        path: ['otlp', 'protocols', 'http', 'max_recv_msg_size_mib'],
        message: "'http' has invalid keys: max_recv_msg_size_mib (the OTLP receiver's http server)",
      },
    ]);
  });
});
