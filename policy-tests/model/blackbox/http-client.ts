/**
 * prometheus/common v0.67's `HTTPClientConfig.Validate`, which an HTTP probe calls on the client settings written
 * inline in it (config/http_config.go; the reserved headers of config/headers.go): one way to authenticate, each
 * secret given once, a proxy its settings allow, no header the client sets itself.
 */
import { isMap } from '../core/dig.ts';
import { bool, canonicalHeaderKey, text } from './go-libraries.ts';

/** The headers `http_headers` may not set (ReservedHeaders). */
const RESERVED_HEADERS = new Set([
  'Authorization',
  'Host',
  'Content-Encoding',
  'Content-Length',
  'Content-Type',
  'User-Agent',
  'Connection',
  'Keep-Alive',
  'Proxy-Authenticate',
  'Proxy-Authorization',
  'Www-Authenticate',
  'Accept-Encoding',
  'X-Prometheus-Remote-Write-Version',
  'X-Prometheus-Remote-Read-Version',
  'X-Prometheus-Scrape-Timeout-Seconds',
  'X-Amz-Date',
  'X-Amz-Security-Token',
  'X-Amz-Content-Sha256',
]);

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

type Fields = Readonly<Record<string, unknown>>;

/** prometheus/common's nonZeroCount over fields: how many of them are written. */
export const written = (c: Fields, ...fields: string[]) => fields.filter((f) => text(c[f]) !== '').length;
/** A pointer field: written (a map, even empty), or left out and nil. */
const block = (c: Fields, field: string): Fields | undefined => (c[field] == null ? undefined : isMap(c[field]) ? c[field] : {});

function authorizationProblem(c: Fields, bearer: boolean): string | undefined {
  const auth = block(c, 'authorization');
  if (!auth) return undefined;
  if (bearer) return 'authorization is not compatible with bearer_token & bearer_token_file';
  if (written(auth, 'credentials', 'credentials_file', 'credentials_ref') > 1)
    return 'at most one of authorization credentials & credentials_file must be configured';
  if (text(auth.type).trim().toLowerCase() === 'basic') return 'authorization type cannot be set to "basic", use "basic_auth" instead';
  if (block(c, 'basic_auth') || block(c, 'oauth2')) return 'at most one of basic_auth, oauth2 & authorization must be configured';
  return undefined;
}

function oauth2Problem(c: Fields): string | undefined {
  const oauth2 = block(c, 'oauth2');
  if (!oauth2) return undefined;
  if (block(c, 'basic_auth')) return 'at most one of basic_auth, oauth2 & authorization must be configured';
  if (text(oauth2.client_id) === '') return 'oauth2 client_id must be configured';
  if (text(oauth2.token_url) === '') return 'oauth2 token_url must be configured';
  if (text(oauth2.grant_type) === JWT_BEARER) {
    if (written(oauth2, 'client_certificate_key', 'client_certificate_key_file', 'client_certificate_key_ref') > 1)
      return `at most one of oauth2 client_certificate_key, client_certificate_key_file & client_certificate_key_ref must be configured using grant-type=${JWT_BEARER}`;
    const algorithm = text(oauth2.signature_algorithm);
    if (algorithm !== '' && !['RS256', 'RS384', 'RS512'].includes(algorithm)) return 'valid signature algorithms are RS256, RS384 and RS512';
  } else if (written(oauth2, 'client_secret', 'client_secret_file', 'client_secret_ref') > 1)
    return 'at most one of oauth2 client_secret, client_secret_file & client_secret_ref must be configured using grant-type=client_credentials';
  return undefined;
}

/** HTTPClientConfig.Validate on the client fields of `c`, in its order: the error it returns, or undefined. */
export function httpClientValidation(c: Fields): string | undefined {
  const [token, tokenFile] = [text(c.bearer_token) !== '', text(c.bearer_token_file) !== ''];
  if (token && tokenFile) return 'at most one of bearer_token & bearer_token_file must be configured';
  const basic = block(c, 'basic_auth');
  if ((basic || block(c, 'oauth2')) && (token || tokenFile)) return 'at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured';
  if (basic && written(basic, 'username', 'username_file', 'username_ref') > 1)
    return 'at most one of basic_auth username, username_file & username_ref must be configured';
  if (basic && written(basic, 'password', 'password_file', 'password_ref') > 1)
    return 'at most one of basic_auth password, password_file & password_ref must be configured';
  const problem = authorizationProblem(c, token || tokenFile) ?? oauth2Problem(c) ?? proxyProblem(c);
  if (problem !== undefined) return problem;
  for (const name of Object.keys(block(c, 'http_headers') ?? {}))
    if (RESERVED_HEADERS.has(canonicalHeaderKey(name))) return `setting header "${canonicalHeaderKey(name)}" is not allowed`;
  return undefined;
}

/** ProxyConfig.Validate. */
export function proxyProblem(c: Readonly<Record<string, unknown>>): string | undefined {
  const headers = isMap(c.proxy_connect_header) && Object.keys(c.proxy_connect_header).length > 0;
  const fromEnvironment = bool(c.proxy_from_environment, false);
  const url = text(c.proxy_url);
  if (headers && !fromEnvironment && url === '') return 'if proxy_connect_header is configured, proxy_url or proxy_from_environment must also be configured';
  if (fromEnvironment && url !== '') return 'if proxy_from_environment is configured, proxy_url must not be configured';
  if (fromEnvironment && text(c.no_proxy) !== '') return 'if proxy_from_environment is configured, no_proxy must not be configured';
  if (c.proxy_url == null && text(c.no_proxy) !== '') return 'if no_proxy is configured, proxy_url must also be configured';
  return undefined;
}
