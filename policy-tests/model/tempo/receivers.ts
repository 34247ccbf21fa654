/**
 * What Tempo 2.10.8's distributor makes of its `receivers` (modules/distributor/receiver/shim.go, read from source):
 * it hands the map to the OpenTelemetry collector's config provider (v0.150.0) as the receivers of one pipeline, with
 * the factories of jaeger, zipkin, otlp and kafka alone. The collector refuses a receiver whose type (the ID before a
 * `/`) no factory has, and decodes each receiver's map into its factory's struct with mapstructure's ErrorUnused: a
 * key no field has is refused (`has invalid keys`), and an OTLP or Jaeger receiver must keep one protocol. Tempo
 * then exits at start. The protocols of the two receivers the chart configures are held here; their servers' own
 * settings, zipkin's and kafka's are not.
 */
import { isMap } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';

/** The receiver factories Tempo 2.10.8 makes, and the protocols of those whose protocols are held. */
const RECEIVERS: Readonly<Record<string, readonly string[] | undefined>> = {
  // otlpreceiver.Protocols: grpc (configgrpc.ServerConfig), http (HTTPConfig).
  otlp: ['grpc', 'http'],
  // jaegerreceiver.Protocols: grpc, thrift_http, thrift_binary and thrift_compact (UDP).
  jaeger: ['grpc', 'thrift_http', 'thrift_binary', 'thrift_compact'],
  zipkin: undefined,
  kafka: undefined,
};

/** component.ID's type: a letter, then up to 62 letters, digits or underscores. */
const TYPE = /^[a-zA-Z][0-9a-zA-Z_]{0,62}$/;

/** Each refusal of the collector's config provider for `receivers` (the `distributor.receivers` of Tempo's file), at its path under it. */
export function receiverRefusals(receivers: unknown): { path: Path; message: string }[] {
  if (!isMap(receivers)) return [];
  const out: { path: Path; message: string }[] = [];
  for (const [id, config] of Object.entries(receivers)) {
    const type = id.split('/')[0]!;
    if (!TYPE.test(type) || !(type in RECEIVERS)) {
      out.push({ path: [id], message: `unknown type: "${type}" for id: "${id}" (Tempo makes receivers of ${Object.keys(RECEIVERS).join(', ')})` });
      continue;
    }
    const protocols = RECEIVERS[type];
    if (!protocols || !isMap(config)) continue;
    const given = config.protocols;
    if (!isMap(given)) continue;
    const invalid = Object.keys(given).filter((p) => !protocols.includes(p));
    for (const p of invalid)
      out.push({ path: [id, 'protocols', p], message: `'protocols' has invalid keys: ${p} (the ${type} receiver speaks ${protocols.join(', ')})` });
    if (invalid.length === 0 && Object.keys(given).length === 0)
      out.push({ path: [id, 'protocols'], message: `must specify at least one protocol when using the ${type === 'otlp' ? 'OTLP' : 'Jaeger'} receiver` });
  }
  return out;
}
