/**
 * The blackbox exporter's configuration file as v0.28.0 loads it (config/config.go's `ReloadConfig`: yaml.v3 with
 * `KnownFields(true)` into its structs, each probe's UnmarshalYAML checks, and prometheus/common v0.67's HTTP client
 * settings inline in an HTTP probe). At start the exporter exits on any refusal, so every probe fails; on a reload it
 * keeps the old modules and sets blackbox_exporter_config_last_reload_successful to 0.
 *
 * A module's prober is not checked at load: a probe of a module whose prober the exporter has no function for is
 * answered 400 "Unknown prober" (prober/handler.go), which `unknownProbers` says.
 */
import { re2Problem } from '../core/re2.ts';
import { isMap } from '../core/dig.ts';
import { goDecodeProblems, type DecodeProblem, type GoStruct, type GoType } from '../yaml/go-decode.ts';
import { GoURLError, parseURL } from '../go/url.ts';
import { base2BytesProblem, bool, canonicalHeaderKey, celCompiles, compressionFitsAcceptEncoding, DNS_CLASSES, DNS_TYPES, text } from './go-libraries.ts';
import { httpClientValidation, proxyProblem, written } from './http-client.ts';

/** The probers of prober/handler.go's `Probers`. */
export const PROBERS: ReadonlySet<string> = new Set(['http', 'tcp', 'icmp', 'dns', 'grpc', 'unix']);

const S: GoType = { go: 'string' };
const B: GoType = { go: 'bool' };
const I: GoType = { go: 'int' };
const strings: GoType = { go: 'list', of: S };

/** config.Regexp: a string Go's regexp compiles. */
const REGEXP: GoType = {
  go: 'parsed',
  type: 'config.Regexp',
  parse: (s) => (re2Problem(s) === undefined ? undefined : `"Could not compile regular expression" regexp="${s}"`),
};

/** config.CELProgram: an expression cel-go compiles with one variable, `body`. */
const CEL: GoType = {
  go: 'parsed',
  type: 'config.CELProgram',
  parse: (s) => (celCompiles(s) ? undefined : `"Could not compile CEL program" expression="${s}"`),
};

const TLS_VERSION: GoType = {
  go: 'parsed',
  type: 'config.TLSVersion',
  parse: (s) => (['TLS13', 'TLS12', 'TLS11', 'TLS10'].includes(s) ? undefined : `unknown TLS version: ${s}`),
};

const URL: GoType = {
  go: 'parsed',
  type: 'config.URL',
  parse: (s) => {
    try {
      parseURL(s);
      return undefined;
    } catch (err) {
      // A proxy URL may carry a password: the message shows it as prometheus/common's Redacted does.
      const shown = s.replace(/^([^:/?#]+:\/\/[^:@/]*:)[^@/]*@/, '$1xxxxx@');
      return err instanceof GoURLError ? `parse "${shown}": ${err.message.replace(/^net\/url: /, '')}` : String(err);
    }
  },
};

const BASE2_BYTES: GoType = { go: 'parsed', type: 'units.Base2Bytes', parse: base2BytesProblem };

/** prometheus/common's TLSConfig: at most one of each inline, file and reference, and a client key with its certificate. */
const TLS_CONFIG: GoStruct = {
  go: 'struct',
  type: 'config.plain',
  fields: {
    ...Object.fromEntries(['ca', 'cert', 'key', 'ca_file', 'cert_file', 'key_file', 'ca_ref', 'cert_ref', 'key_ref', 'server_name'].map((f) => [f, S])),
    insecure_skip_verify: B,
    min_version: TLS_VERSION,
    max_version: TLS_VERSION,
  },
  validate: (c) => {
    const count = (...fields: string[]) => written(c, ...fields);
    if (count('ca', 'ca_file', 'ca_ref') > 1) return 'at most one of ca, ca_file & ca_ref must be configured';
    if (count('cert', 'cert_file', 'cert_ref') > 1) return 'at most one of cert, cert_file & cert_ref must be configured';
    if (count('key', 'key_file', 'key_ref') > 1) return 'at most one of key and key_file must be configured';
    const [cert, key] = [count('cert', 'cert_file', 'cert_ref') > 0, count('key', 'key_file', 'key_ref') > 0];
    if (cert && !key) return 'exactly one of key or key_file must be configured when a client certificate is configured';
    if (key && !cert) return 'exactly one of cert or cert_file must be configured when a client key is configured';
    return undefined;
  },
};

/** prometheus/common's ProxyConfig, inline in the HTTP client and OAuth2. */
const PROXY_FIELDS: Record<string, GoType> = {
  proxy_url: URL,
  no_proxy: S,
  proxy_from_environment: B,
  proxy_connect_header: { go: 'map', of: strings },
};

/** prometheus/common v0.67's HTTPClientConfig fields (`http_client_config,inline` in an HTTP probe). */
const HTTP_CLIENT_FIELDS: Record<string, GoType> = {
  basic_auth: {
    go: 'struct',
    type: 'config.plain',
    fields: Object.fromEntries(['username', 'username_file', 'username_ref', 'password', 'password_file', 'password_ref'].map((f) => [f, S])),
  },
  authorization: { go: 'struct', type: 'config.Authorization', fields: { type: S, credentials: S, credentials_file: S, credentials_ref: S } },
  oauth2: {
    go: 'struct',
    type: 'config.plain',
    fields: {
      ...Object.fromEntries(
        [
          'client_id',
          'client_secret',
          'client_secret_file',
          'client_secret_ref',
          'client_certificate_key_id',
          'client_certificate_key',
          'client_certificate_key_file',
          'client_certificate_key_ref',
          'grant_type',
          'signature_algorithm',
          'iss',
          'audience',
          'token_url',
        ].map((f) => [f, S]),
      ),
      claims: { go: 'map', of: { go: 'any' } },
      scopes: strings,
      endpoint_params: { go: 'map', of: S },
      tls_config: TLS_CONFIG,
      ...PROXY_FIELDS,
    },
    validate: proxyProblem,
  },
  bearer_token: S,
  bearer_token_file: S,
  tls_config: TLS_CONFIG,
  follow_redirects: B,
  enable_http2: B,
  http_headers: {
    go: 'struct',
    type: 'config.Headers',
    fields: {},
    rest: { go: 'struct', type: 'config.Header', fields: { values: strings, secrets: strings, files: strings } },
  },
  ...PROXY_FIELDS,
};

/** HTTPProbe.UnmarshalYAML's checks, after the client's own. */
function httpProbeProblem(p: Readonly<Record<string, unknown>>): string | undefined {
  const client = httpClientValidation(p);
  if (client !== undefined) return client;
  if (text(p.body) !== '' && text(p.body_file) !== '') return 'setting body and body_file both are not allowed';
  const compression = text(p.compression);
  for (const [key, value] of Object.entries(isMap(p.headers) ? p.headers : {}))
    if (canonicalHeaderKey(key) === 'Accept-Encoding' && !compressionFitsAcceptEncoding(compression, text(value)))
      return `invalid configuration "${key}: ${text(value)}", "compression: ${compression}"`;
  const versions = Array.isArray(p.valid_http_versions) ? p.valid_http_versions.map(text) : [];
  const http3 = bool(p.enable_http3, false);
  if (!http3 && versions.includes('HTTP/3.0')) return 'HTTP/3 cannot be used as a valid HTTP version when enable_http3 is false';
  if (http3 && versions.some((v) => v === 'HTTP/2.0' || v === 'HTTP/1.1'))
    return 'HTTP/3 and HTTP/2.0/1.1 cannot be used together - only HTTP/3.0 is allowed when enable_http3 is true';
  if (http3 && bool(p.enable_http2, true)) return 'when enable_http3 is true, enable_http2 must be set to false';
  return undefined;
}

const HEADER_MATCH: GoType = {
  go: 'list',
  of: {
    go: 'struct',
    type: 'config.plain',
    fields: { header: S, regexp: REGEXP, allow_missing: B },
    validate: (m) => {
      if (text(m.header) === '') return 'header name must be set for HTTP header matchers';
      if (text(m.regexp) === '') return 'regexp must be set for HTTP header matchers';
      return undefined;
    },
  },
};

const QUERY_RESPONSE: GoType = {
  go: 'list',
  of: {
    go: 'struct',
    type: 'config.plain',
    fields: {
      expect: REGEXP,
      expect_bytes: S,
      labels: { go: 'list', of: { go: 'struct', type: 'config.Label', fields: { name: S, value: S } } },
      send: S,
      starttls: B,
    },
    // An `expect` written, even empty, compiles to a regexp; with expect_bytes beside it the load fails.
    validate: (q) => (q.expect != null && text(q.expect_bytes) !== '' ? 'expect and expect_bytes are mutually exclusive' : undefined),
  },
};

const IP_FIELDS = { preferred_ip_protocol: S, ip_protocol_fallback: B };

const DNS_RR: GoType = {
  go: 'struct',
  type: 'config.plain',
  fields: Object.fromEntries(
    ['fail_if_matches_regexp', 'fail_if_all_match_regexp', 'fail_if_not_matches_regexp', 'fail_if_none_matches_regexp'].map((f) => [f, strings]),
  ),
};

const MODULE: GoStruct = {
  go: 'struct',
  type: 'config.plain',
  fields: {
    prober: S,
    timeout: { go: 'duration' },
    http: {
      go: 'struct',
      type: 'config.plain',
      fields: {
        valid_status_codes: { go: 'list', of: I },
        valid_http_versions: strings,
        ...IP_FIELDS,
        skip_resolve_phase_with_proxy: B,
        no_follow_redirects: B,
        fail_if_ssl: B,
        fail_if_not_ssl: B,
        method: S,
        headers: { go: 'map', of: S },
        fail_if_body_matches_regexp: { go: 'list', of: REGEXP },
        fail_if_body_not_matches_regexp: { go: 'list', of: REGEXP },
        fail_if_body_json_matches_cel: CEL,
        fail_if_body_json_not_matches_cel: CEL,
        fail_if_header_matches: HEADER_MATCH,
        fail_if_header_not_matches: HEADER_MATCH,
        body: S,
        body_file: S,
        compression: S,
        body_size_limit: BASE2_BYTES,
        enable_http3: B,
        ...HTTP_CLIENT_FIELDS,
      },
      validate: httpProbeProblem,
    },
    tcp: { go: 'struct', type: 'config.plain', fields: { ...IP_FIELDS, source_ip_address: S, query_response: QUERY_RESPONSE, tls: B, tls_config: TLS_CONFIG } },
    icmp: {
      go: 'struct',
      type: 'config.plain',
      fields: { ...IP_FIELDS, source_ip_address: S, payload_size: I, dont_fragment: B, ttl: I },
      validate: (p) => {
        const ttl = typeof p.ttl === 'number' ? Math.trunc(p.ttl) : 64;
        if (ttl < 0) return '"ttl" cannot be negative';
        if (ttl > 255) return '"ttl" cannot exceed 255';
        return undefined;
      },
    },
    dns: {
      go: 'struct',
      type: 'config.plain',
      fields: {
        ...IP_FIELDS,
        dns_over_tls: B,
        tls_config: TLS_CONFIG,
        source_ip_address: S,
        transport_protocol: S,
        query_class: S,
        query_name: S,
        query_type: S,
        recursion_desired: B,
        valid_rcodes: strings,
        validate_answer_rrs: DNS_RR,
        validate_authority_rrs: DNS_RR,
        validate_additional_rrs: DNS_RR,
      },
      validate: (d) => {
        if (text(d.query_name) === '') return 'query name must be set for DNS module';
        const [cls, type] = [text(d.query_class), text(d.query_type)];
        if (cls !== '' && !DNS_CLASSES.has(cls)) return `query class '${cls}' is not valid`;
        if (type !== '' && !DNS_TYPES.has(type)) return `query type '${type}' is not valid`;
        return undefined;
      },
    },
    grpc: {
      go: 'struct',
      type: 'config.plain',
      fields: { service: S, tls: B, tls_config: TLS_CONFIG, ...IP_FIELDS, metadata: { go: 'map', of: strings } },
    },
    unix: { go: 'struct', type: 'config.plain', fields: { query_response: QUERY_RESPONSE, tls: B, tls_config: TLS_CONFIG } },
  },
};

const CONFIG: GoStruct = { go: 'struct', type: 'config.plain', fields: { modules: { go: 'map', of: MODULE } } };

/** Every refusal of v0.28.0's load of a configuration (the document as the `yaml` library reads it), each at its path. */
export function blackboxConfigProblems(config: unknown): DecodeProblem[] {
  return goDecodeProblems(config, CONFIG);
}

/** The configuration's modules by name (none where it holds no map of them). */
const modulesOf = (config: unknown): Record<string, unknown> => (isMap(config) && isMap(config.modules) ? config.modules : {});

/** The modules whose prober the exporter has no function for: each probe of one is answered 400 "Unknown prober". */
export function unknownProbers(config: unknown): { module: string; prober: string }[] {
  const modules = modulesOf(config);
  return Object.entries(modules)
    .filter(([, m]) => isMap(m) && !PROBERS.has(text(m.prober)))
    .map(([module, m]) => ({ module, prober: text((m as Record<string, unknown>).prober) }));
}

/**
 * The entries of an HTTP module's `valid_status_codes` no response can have: the prober (prober/http.go) succeeds only
 * on a status the list holds, where it holds any, and Go's client reads a status of three digits (100 to 999); a null
 * entry decodes as 0. `all` where no entry can match: every probe of the module fails.
 */
export function deadStatusCodes(config: unknown): { module: string; index: number; code: number; all: boolean }[] {
  const modules = modulesOf(config);
  return Object.entries(modules).flatMap(([module, m]) => {
    const codes = isMap(m) && isMap(m.http) && Array.isArray(m.http.valid_status_codes) ? m.http.valid_status_codes : [];
    const read = codes.map((c) => (c === null ? 0 : c));
    const dead = read.flatMap((code, index) => (typeof code === 'number' && Number.isInteger(code) && (code < 100 || code > 999) ? [{ code, index }] : []));
    return dead.map((d) => ({ module, ...d, all: dead.length === read.length }));
  });
}

/**
 * The HTTP modules that fail every probe on how the final request went: prober/http.go fails one over TLS where
 * `fail_if_ssl` is set, and else one not over TLS where `fail_if_not_ssl` is, so with both set no probe of the module
 * passes.
 */
export function sslDeadModules(config: unknown): string[] {
  const modules = modulesOf(config);
  return Object.entries(modules).flatMap(([module, m]) =>
    isMap(m) && isMap(m.http) && bool(m.http.fail_if_ssl, false) && bool(m.http.fail_if_not_ssl, false) ? [module] : [],
  );
}

/** prometheus/common's HTTPClientConfig as a field of its own (`http_config`), its Validate run by its UnmarshalYAML: Alertmanager's receivers hold one. */
export const HTTP_CLIENT_CONFIG: GoStruct = { go: 'struct', type: 'config.HTTPClientConfig', fields: HTTP_CLIENT_FIELDS, validate: httpClientValidation };
