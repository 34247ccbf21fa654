/**
 * Whether `falcoctl artifact follow` reaches the Falco of its pod for the versions it checks artifacts against. Its
 * PreRunE (falcoctl 0.13.0, cmd/artifact/follow: retrieveFalcoVersions) GETs `--falco-versions`, else the
 * configuration's artifact.follow.falcoversions, else http://localhost:8765/versions, and unmarshals the answer as JSON:
 * any failure (no server, a TLS handshake with a plain one, a 404's empty body) returns an error, and falcoctl exits
 * 1. Falco 0.44.1 serves its versions from its webserver (userspace/falco/webserver.cpp) at `/versions`, on
 * webserver.listen_address and listen_port (0.0.0.0 and 8765 unset), over HTTPS alone where ssl_enabled, and only
 * where webserver.enabled (configuration.cpp: false unset).
 */
import { isMap } from '../core/dig.ts';

/** falcoctl's own default for --falco-versions. */
export const FALCO_VERSIONS_DEFAULT = 'http://localhost:8765/versions';

/** Falco's webserver as its falco.yaml sets it. */
export interface FalcoWebserver {
  enabled: boolean;
  port: number;
  address: string;
  ssl: boolean;
}

/** What the URL asks of the webserver that it does not serve, with the webserver's setting it misses; or why not judged. */
export type VersionsMiss = { why: string; setting: 'enabled' | 'listen_port' | 'ssl_enabled' | 'path' } | { unjudged: string };

// yaml-cpp's bool spellings, as Falco's get_scalar<bool> reads a scalar.
const TRUE = ['true', 'True', 'TRUE', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'y', 'Y'];
const FALSE = ['false', 'False', 'FALSE', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'n', 'N'];
const yamlBool = (v: unknown, unset: boolean): boolean | undefined => {
  if (v === undefined || v === null) return unset;
  if (typeof v === 'boolean') return v;
  return typeof v !== 'string' ? undefined : TRUE.includes(v) ? true : FALSE.includes(v) ? false : undefined;
};
/** A scalar as yaml-cpp hands it over: text, a number or a boolean as written. */
const scalar = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? v.toString() : undefined);

/** Falco's webserver from its parsed falco.yaml; undefined where a setting is one the gate does not read (Falco checks those itself). */
export function falcoWebserver(falcoYaml: unknown): FalcoWebserver | undefined {
  const w = isMap(falcoYaml) && isMap(falcoYaml.webserver) ? falcoYaml.webserver : {};
  const enabled = yamlBool(w.enabled, false);
  const ssl = yamlBool(w.ssl_enabled, false);
  const port = w.listen_port === undefined || w.listen_port === null ? 8765 : Number(scalar(w.listen_port) ?? NaN);
  const address = w.listen_address === undefined || w.listen_address === null ? '0.0.0.0' : scalar(w.listen_address);
  if (enabled === undefined || ssl === undefined || address === undefined || !Number.isInteger(port) || port < 0 || port > 65535) return undefined;
  return { enabled, port, address, ssl };
}

// Where a loopback URL finds a server of the same pod: listening on every address, or on loopback itself.
const REACHED_ON_LOOPBACK = ['0.0.0.0', '127.0.0.1', 'localhost'];
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1'];
const URL_PARTS = /^(https?):\/\/([^/?#@]*)([^?#]*)(\?[^#]*)?$/i;

/** Why `url` does not reach the versions of `server` in the same pod, undefined where it does, or why the gate cannot say. */
export function versionsMiss(url: string, server: FalcoWebserver): VersionsMiss | undefined {
  const parts = URL_PARTS.exec(url);
  if (!parts) return { unjudged: `${JSON.stringify(url)} is no http:// or https:// URL the gate reads` };
  const [, scheme, authority, path] = parts as unknown as [string, string, string, string];
  const https = scheme.toLowerCase() === 'https';
  const hostPort = /^([^:[\]]+|\[[^\]]*\])(?::(\d*))?$/.exec(authority);
  const host = hostPort?.[1]?.toLowerCase();
  if (!host || !LOOPBACK_HOSTS.includes(host))
    return { unjudged: `${JSON.stringify(url)} asks another host than the pod's own: whether a Falco answers there is not judged` };
  if (!REACHED_ON_LOOPBACK.includes(server.address))
    return { unjudged: `Falco's webserver listens on ${server.address}: whether the pod's loopback reaches it is not judged` };
  const port = hostPort![2] ? Number(hostPort![2]) : https ? 443 : 80;
  if (!server.enabled) return { why: 'has its webserver off (webserver.enabled), so nothing answers', setting: 'enabled' };
  if (port !== server.port) return { why: `serves on port ${server.port} (webserver.listen_port), not ${port}`, setting: 'listen_port' };
  if (server.ssl && !https) return { why: 'speaks HTTPS alone there (webserver.ssl_enabled)', setting: 'ssl_enabled' };
  if (!server.ssl && https) return { why: 'speaks plain HTTP there, so the TLS handshake fails', setting: 'ssl_enabled' };
  if (path !== '/versions')
    return { why: `serves its versions at /versions alone, not ${path || '/'} (any other path is a 404 with no JSON)`, setting: 'path' };
  return server.ssl ? { unjudged: "Falco's webserver speaks HTTPS: whether falcoctl trusts its certificate is not judged" } : undefined;
}
