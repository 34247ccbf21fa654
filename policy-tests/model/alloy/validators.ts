/**
 * The code of its own a type of Alloy v1.18.1 runs on every value decoded into it (its Validate, after its
 * SetToDefault and the decode), ported for the types the gate judges: the HTTP client's exclusive settings
 * (internal/component/common/config/types.go: HTTPClientConfig, BasicAuth, Authorization, OAuth2Config, TLSConfig,
 * ProxyConfig), the Kubernetes client's (internal/component/common/kubernetes), discovery.kubernetes', loki.write's
 * endpoint and WAL (internal/component/loki/write), loki.source.kubernetes_events' and remote.kubernetes.*'. A type the reference marks as
 * running code (`(runs)`) that is not ported here is said unjudged; so is a rule that reads a value the gate does not
 * work out. Each error in the words of the Go it is ported from.
 */
import { parseURL } from '../go/url.ts';
import { goParseDuration } from '../core/time.ts';
import { plainValue, type Evaluated } from './evaluated.ts';
import type { AlloyValue } from './parser.ts';
import { LEGACY_LABEL, LEGACY_TARGET_WITH_VARS } from '../prometheus-operator/relabel.ts';

/** A decoded body as a rule reads it: each attribute's value as evaluated, each block's body (the first of its name). */
export interface Fields {
  attr(name: string): Evaluated | undefined;
  block(name: string): Fields | undefined;
}

/** What a type's own code does with a body: refuses it (why), passes it, or reads a value the gate does not work out. */
export type Verdict = { refused: string } | { unread: string } | undefined;

/** An attribute's value: its default where it is not written, undefined where it is not worked out. */
class Read {
  readonly unread: string[] = [];
  readonly fields: Fields;
  constructor(fields: Fields) {
    this.fields = fields;
  }

  value(name: string, fallback: AlloyValue): AlloyValue | undefined {
    const e = this.fields.attr(name);
    if (!e) return fallback;
    const v = plainValue(e);
    if (v === undefined) this.unread.push(`${name} (${e.text})`);
    return v;
  }

  /** Go's len(x) > 0 of a string (or a secret): written with text, by its value. */
  set(name: string): boolean | undefined {
    const v = this.value(name, '');
    return v === undefined ? undefined : v !== null && v !== '';
  }

  has(name: string): boolean {
    return this.fields.block(name) !== undefined;
  }
}

type Rule = (r: Read) => string | undefined;

/** The first rule that refuses, where every value the rules read is worked out. */
const verdict =
  (...rules: Rule[]) =>
  (fields: Fields): Verdict => {
    const r = new Read(fields);
    for (const rule of rules) {
      const refused = rule(r);
      if (r.unread.length > 0) return { unread: `its rules read ${r.unread.join(', ')}` };
      if (refused) return { refused };
    }
    return undefined;
  };

/** Two settings of which at most one may be given (Go's `len(a) > 0 && len(b) > 0`). */
const atMostOne =
  (a: string, b: string, message: string): Rule =>
  (r) => {
    const [x, y] = [r.set(a), r.set(b)];
    return x === true && y === true ? message : undefined;
  };

/** ProxyConfig.Validate (squashed into the HTTP client and OAuth2). */
const proxy: Rule = (r) => {
  // proxy_url is a URL once written (url.Parse of "" is one); the rules on its text read String().
  const url = r.set('proxy_url');
  const written = r.fields.attr('proxy_url') !== undefined;
  const fromEnv = r.value('proxy_from_environment', false);
  const noProxy = r.set('no_proxy');
  const header = r.fields.attr('proxy_connect_header');
  const headers = header ? plainValue(header) : {};
  if (headers === undefined) r.unread.push('proxy_connect_header');
  if (url === undefined || noProxy === undefined || fromEnv === undefined || headers === undefined) return undefined;
  if (headers !== null && Object.keys(headers).length > 0 && !fromEnv && !url)
    return 'if proxy_connect_header is configured, proxy_url or proxy_from_environment must also be configured';
  if (fromEnv && url) return 'if proxy_from_environment is configured, proxy_url must not be configured';
  if (fromEnv && noProxy) return 'if proxy_from_environment is configured, no_proxy must not be configured';
  if (!written && noProxy) return 'if no_proxy is configured, proxy_url must also be configured';
  return undefined;
};

/** HTTPClientConfig.Validate: one way of authenticating at most, its headers' rules, its proxy's. */
const httpClient: Rule = (r) => {
  const ways = [r.has('basic_auth'), r.has('authorization'), r.has('oauth2'), r.set('bearer_token'), r.set('bearer_token_file')];
  if (ways.some((w) => w === undefined)) return undefined;
  if (ways.filter(Boolean).length > 1) return 'at most one of basic_auth, authorization, oauth2, bearer_token & bearer_token_file must be configured';
  // Headers.Validate is Prometheus' (its reserved header names), which the gate has not ported.
  if (r.fields.attr('http_headers')) r.unread.push("http_headers (Prometheus' reserved headers)");
  return proxy(r);
};

/** The HTTP client's settings and their defaults (DefaultHTTPClientConfig): a kubernetes client given any other is custom. */
const HTTP_CLIENT_DEFAULTS: Record<string, AlloyValue> = {
  bearer_token: '',
  bearer_token_file: '',
  proxy_url: '',
  no_proxy: '',
  proxy_from_environment: false,
  proxy_connect_header: null,
  follow_redirects: true,
  enable_http2: true,
  http_headers: null,
};
const HTTP_CLIENT_BLOCKS = ['basic_auth', 'authorization', 'oauth2', 'tls_config'];

/** ClientArguments.Validate: an API server or a kubeconfig, not both; a custom HTTP client only with an API server. */
const kubernetesClient: Rule = (r) => {
  const [server, kubeconfig] = [r.set('api_server'), r.set('kubeconfig_file')];
  const custom =
    HTTP_CLIENT_BLOCKS.some((b) => r.has(b)) ||
    Object.entries(HTTP_CLIENT_DEFAULTS).some(([name, fallback]) => {
      const v = r.value(name, fallback);
      // reflect.DeepEqual against the defaults: a map written, even empty, is not the default's nil one.
      return v !== undefined && JSON.stringify(v) !== JSON.stringify(fallback);
    });
  if (server === undefined || kubeconfig === undefined) return undefined;
  if (server && kubeconfig) return 'only one of api_server and kubeconfig_file can be set';
  if (kubeconfig && custom) return 'custom HTTP client configuration is not allowed when kubeconfig_file is set';
  if (!server && custom) return 'api_server must be set when custom HTTP client configuration is provided';
  return httpClient(r);
};

/** EndpointOptions.Validate: the URL Go's url.Parse reads, then the HTTP client's rules. */
const endpoint: Rule = (r) => {
  const url = r.value('url', '');
  if (typeof url !== 'string') return undefined;
  try {
    parseURL(url);
  } catch (e) {
    return `failed to parse remote url ${JSON.stringify(url)}: parse ${JSON.stringify(url)}: ${(e as Error).message}`;
  }
  return httpClient(r);
};

/** A duration's value as Go reads it, in nanoseconds; undefined where it is not known. */
const duration = (r: Read, name: string, fallback: string): bigint | undefined => {
  const v = r.value(name, fallback);
  if (typeof v !== 'string') return undefined;
  const parsed = goParseDuration(v);
  return parsed.ok ? parsed.nanoseconds : undefined;
};

/** relabel.go's actions, each taken as written (Action.UnmarshalText): `KEEP` is refused. */
export const RELABEL_ACTIONS: ReadonlySet<string> = new Set([
  'replace',
  'keep',
  'drop',
  'hashmod',
  'labelmap',
  'labeldrop',
  'labelkeep',
  'lowercase',
  'uppercase',
  'keepequal',
  'dropequal',
]);

// relabel.go's relabelTarget is Prometheus' legacy target with references; a name outside the legacy scheme is valid
// or not by the scheme Alloy's build sets, which the gate does not read.
export const RELABEL_TARGET = LEGACY_TARGET_WITH_VARS;

/**
 * relabel.Config.Validate (internal/component/common/relabel/relabel.go), after SetToDefault (replace, `;`, `(.*)`,
 * `$1`). A rule that turns on model.LabelName.IsValid is read for a legacy label name alone, which every scheme takes.
 */
const relabelRule: Rule = (r) => {
  const action = r.value('action', 'replace');
  const target = r.value('target_label', '');
  const replacement = r.value('replacement', '$1');
  const [modulus, separator] = [r.value('modulus', 0), r.value('separator', ';')];
  if (typeof action !== 'string' || typeof target !== 'string') return undefined;
  // Through the decoder Action.UnmarshalText refuses "" first; Validate's own check, for a rule built otherwise.
  if (action === '') return 'relabel action cannot be empty';
  const quoted = JSON.stringify(target);
  if (action === 'hashmod' && modulus === 0) return 'relabel configuration for hashmod requires non-zero modulus';
  if (['replace', 'hashmod', 'lowercase', 'uppercase', 'keepequal', 'dropequal'].includes(action) && target === '')
    return `relabel configuration for ${action} action requires 'target_label' value`;
  if (action === 'replace' && target.includes('$') && !RELABEL_TARGET.test(target)) return `${quoted} is invalid 'target_label' for ${action} action`;
  const namesTarget = (action === 'replace' && !target.includes('$')) || ['lowercase', 'uppercase', 'keepequal', 'dropequal', 'hashmod'].includes(action);
  if (namesTarget && !LEGACY_LABEL.test(target)) r.unread.push(`target_label ${quoted}, a label name outside the legacy scheme`);
  const equal = action === 'keepequal' || action === 'dropequal';
  if ((equal || action === 'lowercase' || action === 'uppercase') && replacement !== '$1') return `'replacement' can not be set for ${action} action`;
  if (action === 'labelmap' && typeof replacement === 'string' && !RELABEL_TARGET.test(replacement))
    return `${JSON.stringify(replacement)} is invalid 'replacement' for ${action} action`;
  const defaults = modulus === 0 && separator === ';' && replacement === '$1';
  if ((action === 'labeldrop' || action === 'labelkeep') && (r.fields.attr('source_labels') !== undefined || target !== '' || !defaults))
    return `${action} action requires only 'regex', and no other fields`;
  if (equal && (r.value('regex', '(.*)') !== '(.*)' || !defaults))
    return `${action} action requires only 'source_labels' and 'target_label', and no other fields`;
  return undefined;
};

const PORTED: Record<string, (fields: Fields) => Verdict> = {
  'internal/component/common/relabel.Config': verdict(relabelRule),
  'internal/component/common/config.HTTPClientConfig': verdict(httpClient),
  'internal/component/common/config.BasicAuth': verdict(
    atMostOne('password', 'password_file', 'at most one of basic_auth password & password_file must be configured'),
  ),
  'internal/component/common/config.Authorization': verdict(
    atMostOne('credentials', 'credentials_file', 'at most one of authorization credentials & credentials_file must be configured'),
    (r) => {
      const type = r.value('type', '');
      return typeof type === 'string' && type.trim().toLowerCase() === 'basic'
        ? 'authorization type cannot be set to "basic", use "basic_auth" block instead'
        : undefined;
    },
  ),
  'internal/component/common/config.OAuth2Config': verdict(
    (r) => (r.set('client_id') === false ? 'oauth2 client_id must be configured' : undefined),
    (r) =>
      r.set('client_secret') === false && r.set('client_secret_file') === false
        ? 'either oauth2 client_secret or client_secret_file must be configured'
        : undefined,
    (r) => (r.set('token_url') === false ? 'oauth2 token_url must be configured' : undefined),
    atMostOne('client_secret', 'client_secret_file', 'at most one of oauth2 client_secret & client_secret_file must be configured'),
    proxy,
  ),
  'internal/component/common/config.TLSConfig': verdict(
    atMostOne('ca_pem', 'ca_file', 'at most one of ca_pem and ca_file must be configured'),
    atMostOne('cert_pem', 'cert_file', 'at most one of cert_pem and cert_file must be configured'),
    atMostOne('key_pem', 'key_file', 'at most one of key_pem and key_file must be configured'),
    (r) => {
      const [cert, key] = [r.set('cert_pem') || r.set('cert_file'), r.set('key_pem') || r.set('key_file')];
      if (cert && !key) return 'exactly one of key_pem or key_file must be configured when a client certificate is configured';
      return key && !cert ? 'exactly one of cert_pem or cert_file must be configured when a client key is configured' : undefined;
    },
  ),
  'internal/component/common/kubernetes.ClientArguments': verdict(kubernetesClient),
  'internal/component/discovery/kubernetes.Arguments': verdict(httpClient),
  'internal/component/loki/write.EndpointOptions': verdict(endpoint),
  'internal/component/loki/write.WalArguments': verdict((r) => {
    // SetToDefault: wal.DefaultWatchConfig's 250ms and 1s.
    const [min, max] = [duration(r, 'min_read_frequency', '250ms'), duration(r, 'max_read_frequency', '1s')];
    return min !== undefined && max !== undefined && min >= max ? 'WAL min read frequency should be lower than max read frequency' : undefined;
  }),
  // remote/kubernetes' Validate after DefaultArguments (1m, 15s); its second message as Alloy words it.
  'internal/component/remote/kubernetes.Arguments': verdict(
    (r) => ((duration(r, 'poll_frequency', '1m') ?? 1n) <= 0n ? 'poll_frequency must be greater than 0' : undefined),
    (r) => ((duration(r, 'poll_timeout', '15s') ?? 1n) <= 0n ? 'poll_timeout must not be greater than 0' : undefined),
  ),
  'internal/component/loki/source/kubernetes_events.Arguments': verdict(
    (r) => (r.value('job_name', 'loki.source.kubernetes_events') === '' ? 'job_name must not be an empty string' : undefined),
    (r) => {
      const format = r.value('log_format', 'logfmt');
      return format !== undefined && format !== 'logfmt' && format !== 'json' ? 'supported values of log_format are logfmt and json' : undefined;
    },
  ),
};

/** What the own code of the type `id` does with a decoded body; `unported` where the gate has no port of it. */
export function ownValidation(id: string, fields: Fields): Verdict | 'unported' {
  const port = PORTED[id];
  return port ? port(fields) : 'unported';
}
