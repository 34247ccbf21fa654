/**
 * A monitor's HTTP client settings as the Prometheus operator (v0.93) checks them: their own validation
 * (HTTPConfigWithoutTLS, SafeAuthorization, OAuth2, TLSConfig and SafeTLSConfig, ProxyConfig in pkg/apis/monitoring/v1)
 * and its store's reads of every Secret and ConfigMap key they name (pkg/assets/store.go), which fail where the key
 * is not there. The keys a Secret holds are the repository's to say; where it cannot, a read is not judged.
 */
import { dig, str, type Obj } from '../core/dig.ts';

type Path = (string | number)[];

/** The keys a Secret or ConfigMap of the monitor's namespace holds, where the repository says; undefined where it cannot. */
export type KeysOf = (kind: 'Secret' | 'ConfigMap', name: string) => ReadonlySet<string> | undefined;

export type ClientVerdict = { refused: { path: Path; message: string } } | { notJudged: { path: Path; message: string } } | undefined;

/** Not Go's zero value: set, and not an empty struct (the operator's `!= (SecretOrConfigMap{})`, `reflect...IsZero`). */
const given = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === 'object' && Object.keys(v).length === 0);

/** SecretOrConfigMap's String: how the operator names a reference in its errors. */
function refText(ref: Obj): string {
  const secret = ref.secret as Obj | undefined;
  const configMap = ref.configMap as Obj | undefined;
  if (secret) return `<secret=${str(secret.name)},key=${str(secret.key)}>`;
  if (configMap) return `<configmap=${str(configMap.name)},key=${str(configMap.key)}>`;
  return '<empty>';
}

/** TLSConfig.Validate (a ServiceMonitor's, files allowed) or SafeTLSConfig.Validate (a PodMonitor's or a Probe's). */
function tlsProblem(tls: Obj, withFiles: boolean): string | undefined {
  for (const field of ['ca', 'cert'] as const) {
    const ref = tls[field] as Obj | undefined;
    if (ref && given(ref) && ref.secret && ref.configMap) return `${field} ${refText(ref)}: cannot specify both Secret and ConfigMap`;
  }
  if (typeof tls.maxVersion === 'string' && typeof tls.minVersion === 'string' && tls.maxVersion < tls.minVersion)
    return 'maxVersion must more than or equal to minVersion';
  if (!withFiles) {
    if (given(tls.cert) && !given(tls.keySecret)) return 'client cert specified without client key';
    if (given(tls.keySecret) && !given(tls.cert)) return 'client key specified without client cert';
    return undefined;
  }
  if (given(tls.ca) && tls.caFile) return "cannot specify both 'caFile' and 'ca'";
  if (given(tls.cert) && tls.certFile) return "cannot specify both 'certFile' and 'cert'";
  if (tls.keyFile && given(tls.keySecret)) return "cannot specify both 'keyFile' and 'keySecret'";
  const hasCert = given(tls.cert) || Boolean(tls.certFile);
  const hasKey = Boolean(tls.keyFile) || given(tls.keySecret);
  if (hasCert && !hasKey) return 'cannot specify client cert without client key';
  if (hasKey && !hasCert) return 'cannot specify client key without client cert';
  return undefined;
}

/** ProxyConfig.Validate. */
function proxyProblem(holder: Obj): string | undefined {
  const fromEnvironment = holder.proxyFromEnvironment === true;
  const url = str(holder.proxyUrl) !== '';
  const noProxy = str(holder.noProxy) !== '';
  const headers = (holder.proxyConnectHeader ?? {}) as Record<string, unknown>;
  if (Object.keys(headers).length > 0 && !fromEnvironment && !url)
    return 'if proxyConnectHeader is configured, proxyUrl or proxyFromEnvironment must also be configured';
  if (fromEnvironment && url) return 'if proxyFromEnvironment is configured, proxyUrl must not be configured';
  if (fromEnvironment && noProxy) return 'if proxyFromEnvironment is configured, noProxy must not be configured';
  if (!url && noProxy) return 'if noProxy is configured, proxyUrl must also be configured';
  for (const [name, selectors] of Object.entries(headers)) {
    if (!Array.isArray(selectors) || selectors.length === 0) return `proxyConnetHeader[${name}]: selector must not be empty`;
    const empty = selectors.findIndex((s) => !given(s));
    if (empty >= 0) return `proxyConnectHeader[${name}][${empty}]: selector must be defined`;
  }
  return undefined;
}

/** The credentials an endpoint's client may present, in HTTPConfigWithoutTLS.Validate's order. */
export const CLIENT_CREDENTIALS = ['authorization', 'basicAuth', 'bearerTokenSecret', 'oauth2'] as const;

/** The client settings that cannot be set together: any two credentials, in Validate's order. */
const EXCLUSIVE: [string, string][] = CLIENT_CREDENTIALS.flatMap((a, i) => CLIENT_CREDENTIALS.slice(i + 1).map((b): [string, string] => [a, b]));

/** The endpoint's (or Probe's) own Validate: which field, and the operator's words. */
export function clientProblem(holder: Obj, withFiles: boolean): { field: string; message: string } | undefined {
  const pair = EXCLUSIVE.find(([a, b]) => given(holder[a]) && given(holder[b]));
  if (pair) return { field: pair[1], message: `${pair[0]} and ${pair[1]} cannot be configured at the same time` };
  const auth = holder.authorization as Obj | undefined;
  if (auth && given(auth)) {
    if (str(auth.type).trim().toLowerCase() === 'basic')
      return { field: 'authorization', message: `authorization: 'authorization' type cannot be set to "basic", use "basicAuth" instead` };
    if (!given(auth.credentials)) return { field: 'authorization', message: "authorization: 'authorization' credentials are required" };
  }
  const oauth2 = holder.oauth2 as Obj | undefined;
  if (oauth2 && given(oauth2)) {
    if (str(oauth2.tokenUrl) === '') return { field: 'oauth2', message: 'oauth2: OAuth2 tokenURL must be specified' };
    const clientId = (oauth2.clientId ?? {}) as Obj;
    if (!given(clientId)) return { field: 'oauth2', message: "oauth2: OAuth2 'clientID' must be specified" };
    if (clientId.secret && clientId.configMap)
      return { field: 'oauth2', message: "oauth2: invalid OAuth2 'clientID': cannot specify both Secret and ConfigMap" };
  }
  const tls = holder.tlsConfig as Obj | undefined;
  const tlsBad = tls && tlsProblem(tls, withFiles);
  if (tlsBad) return { field: 'tlsConfig', message: `tlsConfig: ${tlsBad}` };
  const proxyBad = proxyProblem(holder);
  return proxyBad ? { field: 'proxyUrl', message: proxyBad } : undefined;
}

interface Read {
  kind: 'Secret' | 'ConfigMap';
  ref: Obj;
  path: Path;
  /** How the operator's error starts for this read. */
  what: string;
}

/** Every key the store reads for these settings, in its order (bearer token, basic auth, TLS, OAuth2, authorization, proxy headers). */
function reads(holder: Obj, at: Path): Read[] {
  const out: Read[] = [];
  const secret = (ref: unknown, path: Path, what: string) => {
    if (ref && typeof ref === 'object' && str((ref as Obj).name) !== '') out.push({ kind: 'Secret', ref: ref as Obj, path: [...at, ...path], what });
  };
  const either = (ref: unknown, path: Path, what: string) => {
    const r = (ref ?? {}) as Obj;
    if (r.secret) secret(r.secret, [...path, 'secret'], what);
    else if (r.configMap && typeof r.configMap === 'object')
      out.push({ kind: 'ConfigMap', ref: r.configMap as Obj, path: [...at, ...path, 'configMap'], what });
  };
  secret(holder.bearerTokenSecret, ['bearerTokenSecret'], 'bearerTokenSecret: ');
  secret(dig(holder, ['basicAuth', 'username']), ['basicAuth', 'username'], 'basicAuth: failed to get basic auth username: ');
  secret(dig(holder, ['basicAuth', 'password']), ['basicAuth', 'password'], 'basicAuth: failed to get basic auth password: ');
  for (const field of ['ca', 'cert'] as const) either(dig(holder, ['tlsConfig', field]), ['tlsConfig', field], 'tlsConfig: ');
  secret(dig(holder, ['tlsConfig', 'keySecret']), ['tlsConfig', 'keySecret'], 'tlsConfig: ');
  either(dig(holder, ['oauth2', 'clientId']), ['oauth2', 'clientId'], 'oauth2: failed to get oauth2 client id: ');
  secret(dig(holder, ['oauth2', 'clientSecret']), ['oauth2', 'clientSecret'], 'oauth2: failed to get oauth2 client secret: ');
  const type = str(dig(holder, ['authorization', 'type'])) || 'Bearer';
  secret(
    dig(holder, ['authorization', 'credentials']),
    ['authorization', 'credentials'],
    `authorization: failed to get authorization token of type ${JSON.stringify(type)}: `,
  );
  for (const [name, selectors] of Object.entries((holder.proxyConnectHeader ?? {}) as Obj))
    (Array.isArray(selectors) ? selectors : []).forEach((s, i) => secret(s, ['proxyConnectHeader', name, i], `proxyConnectHeader[${name}][${i}]: `));
  return out;
}

/** The store's reads: refused at the first key the repository says is missing; not judged where it cannot say; else nothing. */
export function clientReads(holder: Obj, at: Path, keysOf: KeysOf): ClientVerdict {
  let unknown: ClientVerdict;
  for (const { kind, ref, path, what } of reads(holder, at)) {
    const [name, key] = [str(ref.name), str(ref.key)];
    const keys = keysOf(kind, name);
    if (keys === undefined)
      unknown ??= { notJudged: { path, message: `whether ${kind} ${name} holds key ${key}, which the operator reads, is not known here` } };
    else if (!keys.has(key))
      return {
        refused: { path, message: `${what}key ${JSON.stringify(key)} in ${kind === 'Secret' ? 'secret' : 'configmap'} ${JSON.stringify(name)} not found` },
      };
  }
  return unknown;
}
