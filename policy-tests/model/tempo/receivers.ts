/**
 * What Tempo 2.10.8's distributor makes of its `receivers` (modules/distributor/receiver/shim.go, read from source):
 * it hands the map to the OpenTelemetry collector's config provider (v0.150.0) as the receivers of one pipeline, with
 * the factories of jaeger, zipkin, otlp and kafka alone. The collector refuses a receiver whose type (the ID before a
 * `/`) no factory has, and decodes each receiver's map into its factory's struct with mapstructure's ErrorUnused: a
 * key no field has is refused (`has invalid keys`), and Tempo then exits at start. Tempo does not run the collector's
 * `Validate` (only the collector's own start does), so an OTLP or Jaeger receiver left with no protocol is not refused:
 * it starts no server at all. The protocols of the two receivers the chart configures are held here, and the keys of the
 * OTLP receiver's two servers (read from the collector's structs at v0.150.0); what those keys hold, Jaeger's servers,
 * zipkin's and kafka's are not.
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { dig, isMap } from '../core/dig.ts';
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

/**
 * The keys of the OTLP receiver's servers, as mapstructure decodes them at v0.150.0: grpc is configgrpc.ServerConfig,
 * http is otlpreceiver.HTTPConfig (confighttp.ServerConfig squashed, and its three URL paths); both squash
 * confignet.AddrConfig (endpoint, transport, dialer).
 */
const ADDRESS = ['endpoint', 'transport', 'dialer'];
const OTLP_SERVERS: Readonly<Record<string, readonly string[]>> = {
  grpc: [
    ...ADDRESS,
    'tls',
    'max_recv_msg_size_mib',
    'max_concurrent_streams',
    'read_buffer_size',
    'write_buffer_size',
    'keepalive',
    'auth',
    'include_metadata',
    'middlewares',
  ],
  http: [
    ...ADDRESS,
    'tls',
    'cors',
    'auth',
    'max_request_body_size',
    'include_metadata',
    'response_headers',
    'compression_algorithms',
    'read_timeout',
    'read_header_timeout',
    'write_timeout',
    'idle_timeout',
    'middlewares',
    'keep_alives_enabled',
    'traces_url_path',
    'metrics_url_path',
    'logs_url_path',
  ],
};

/** component.ID's type: a letter, then up to 62 letters, digits or underscores. */
const TYPE = /^[a-zA-Z][0-9a-zA-Z_]{0,62}$/;

/** The keys of an OTLP receiver's servers that their structs do not have: each refused (`'grpc' has invalid keys: endpiont`). */
function serverRefusals(id: string, protocols: Readonly<Record<string, unknown>>): { path: Path; message: string }[] {
  return Object.entries(OTLP_SERVERS).flatMap(([protocol, keys]) => {
    const server = protocols[protocol];
    if (!isMap(server)) return [];
    return Object.keys(server)
      .filter((k) => !keys.includes(k))
      .map((k) => ({
        path: [id, 'protocols', protocol, k],
        message: `'${protocol}' has invalid keys: ${k}${suggesting(nearestName(k, keys))} (the OTLP receiver's ${protocol} server)`,
      }));
  });
}

/** Each refusal of the collector's config provider for `receivers` (the `distributor.receivers` of Tempo's file), at its path under it. */
export function receiverRefusals(receivers: unknown): { path: Path; message: string }[] {
  if (!isMap(receivers)) return [];
  const out: { path: Path; message: string }[] = [];
  for (const [id, config] of Object.entries(receivers)) {
    const type = id.split('/')[0]!;
    if (!TYPE.test(type) || !Object.hasOwn(RECEIVERS, type)) {
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
    if (type === 'otlp') out.push(...serverRefusals(id, given));
  }
  return out;
}

/**
 * The receivers left with an empty `protocols` map, at its path: the collector's `Validate` would refuse each ("must
 * specify at least one protocol"), but Tempo does not run it, so the receiver starts and listens nowhere.
 */
export function silentReceivers(receivers: unknown): { path: Path; message: string }[] {
  if (!isMap(receivers)) return [];
  return Object.entries(receivers).flatMap(([id, config]) => {
    const type = id.split('/')[0]!;
    const given = isMap(config) ? config.protocols : undefined;
    if (!Object.hasOwn(RECEIVERS, type) || !RECEIVERS[type] || !isMap(given) || Object.keys(given).length > 0) return [];
    const name = type === 'otlp' ? 'OTLP' : 'Jaeger';
    return [
      {
        path: [id, 'protocols'],
        message: `the ${name} receiver has no protocol, so it starts no server and takes no trace (the collector's own start would refuse it: "must specify at least one protocol when using the ${name} receiver"; Tempo does not run that check)`,
      },
    ];
  });
}

/** Where the tempo chart's values set the OTLP receiver's gRPC server. */
export const TEMPO_OTLP_GRPC: Path = ['tempo', 'receivers', 'otlp', 'protocols', 'grpc'];

/**
 * The address a receiver's server binds where only its own pod reaches it: the collector's default endpoint (since
 * v0.116, which Tempo 2.7 took: `localhost:4317` for OTLP gRPC) where none is set, or a loopback host written.
 */
export function loopbackBind(endpoint: unknown, fallback = 'localhost:4317'): string | undefined {
  const written = typeof endpoint === 'string' ? endpoint.trim() : '';
  if (written === '') return `${fallback} (the collector's default since v0.116)`;
  const host = written.replace(/:\d*$/, '').replace(/^\[|\]$/g, '');
  return ['localhost', '127.0.0.1', '::1'].includes(host.toLowerCase()) ? written : undefined;
}

/**
 * Where the tempo chart's values leave the OTLP gRPC server bound inside its pod, and at what address; nothing where
 * no gRPC server is written, or where the receivers hold a key the collector refuses (Tempo then does not start at
 * all, which monitoring-tempo-config says).
 */
export function tempoGrpcLoopback(values: unknown): { bind: string; path: Path } | undefined {
  const grpc = dig(values, TEMPO_OTLP_GRPC);
  if (grpc === undefined || receiverRefusals(dig(values, ['tempo', 'receivers'])).length > 0) return undefined;
  const bind = loopbackBind(dig(grpc, ['endpoint']));
  return bind === undefined ? undefined : { bind, path: dig(grpc, ['endpoint']) === undefined ? TEMPO_OTLP_GRPC : [...TEMPO_OTLP_GRPC, 'endpoint'] };
}
