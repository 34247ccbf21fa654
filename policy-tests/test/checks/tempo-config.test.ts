/** monitoring-tempo-config on a broken copy of the real repository, offline; what Tempo takes passes, and a key the manifest's struct does not list but Tempo has elsewhere is said not judged. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { receiverRefusals, silentReceivers } from '../../model/tempo/receivers.ts';
import { extraArgWords, readTempoFlags } from '../../model/tempo/flags.ts';
import { TEMPO_REFERENCE, tempoFields } from '../../model/tempo/config.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
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

describe("Tempo 2.10.8's command line, as Go's flag package reads it on the flags the reference lists", () => {
  const flags = tempoFields(parse(readFileSync(join(REPO_ROOT, TEMPO_REFERENCE), 'utf8')) as unknown);
  const read = (...extra: string[]) => {
    if ('problem' in flags || !flags.flags) throw new Error('the reference holds no flags');
    return readTempoFlags(['-config.file=/conf/tempo.yaml', '-mem-ballast-size-mbs=1024', ...extra], flags.flags).problem;
  };

  it("takes the chart's flags, the configuration's own, and typed values as Go reads them", () => {
    expect(read()).toBeUndefined();
    expect(read('-target=all', '--log.level=debug', '-multitenancy.enabled', '-shutdown-delay=30s', '-server.http-listen-port=0x0c80')).toBeUndefined();
    expect(read('-memberlist.host-port', 'tempo-gossip:7946', '-config.expand-env=true')).toBeUndefined();
    // The first word that is no flag ends the flags: what follows is an argument Tempo never reads.
    expect(read('all', '-nothing')).toBeUndefined();
  });

  it('refuses a flag its flag set does not hold, a value its type refuses, a missing value, and the words that end it', () => {
    expect(read('-versoin')).toEqual({ index: 2, message: 'flag provided but not defined: -versoin (did you mean "-version"?)', exit: 2 });
    expect(read('-internal-server.enable=true')).toMatchObject({ message: 'flag provided but not defined: -internal-server.enable', exit: 2 });
    expect(read('-distributer.foo=1')).toMatchObject({ message: 'flag provided but not defined: -distributer.foo (did you mean "-distributor.foo"?)' });
    expect(read('-shutdown-delay=30')).toMatchObject({ message: 'invalid value "30" for flag -shutdown-delay: parse error', exit: 2 });
    expect(read('-server.http-listen-port=1e+06')).toMatchObject({ message: 'invalid value "1e+06" for flag -server.http-listen-port: parse error' });
    expect(read('-multitenancy.enabled=yes')).toMatchObject({ exit: 2 });
    expect(read('-target')).toMatchObject({ message: 'flag needs an argument: -target', exit: 2 });
    expect(read('-help')).toMatchObject({ message: "-help prints Tempo's usage", exit: 0 });
    expect(read('-version')).toMatchObject({ message: '-version makes Tempo print its version and exit 0, so it never serves', exit: 0 });
    expect(read('-config.verify=true')).toMatchObject({ index: 2, exit: 0 });
    expect(read('-config.verify=false')).toBeUndefined();
  });

  it("says a flag under a module's prefix that the reference does not list not judged", () => {
    expect(read('-querier.frontend-address=tempo:9095')).toEqual({
      index: 2,
      unjudged:
        "-querier.frontend-address is no flag the reference names, and Tempo's querier module registers flags under querier. that the gate does not list: not judged",
    });
  });

  it("writes the values' extraArgs as the chart's template does: by key, -key=value, a falsy value alone, numbers as Helm prints them", () => {
    expect(extraArgWords({ target: 'all', 'config.expand-env': true, b: false, a: 1000000, c: '' })).toEqual([
      { key: 'a', word: '-a=1e+06' },
      { key: 'b', word: '-b' },
      { key: 'c', word: '-c' },
      { key: 'config.expand-env', word: '-config.expand-env=true' },
      { key: 'target', word: '-target=all' },
    ]);
    expect(extraArgWords(['-x'])).toEqual([]);
  });
});
