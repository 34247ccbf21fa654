/**
 * What Alertmanager v0.34.0 refuses of its configuration when it loads it (config/config.go `Load`: yaml.v2's
 * `UnmarshalStrict` into its structs, each struct's UnmarshalYAML checks, then `Config.UnmarshalYAML`'s checks of the
 * whole), and the prometheus-operator, which reads the Secret kube-prometheus-stack renders, refuses alike: the new
 * routing never reaches Alertmanager. Ported: the global block, the routing tree (receivers that exist, a root route
 * with a receiver and no matchers, label names, group_by, non-zero intervals, time intervals that exist, matchers as
 * matchers.ts reads them), inhibit rules, the receivers' names, and the Slack and webhook integrations whole (with prometheus/common's HTTP client);
 * the other integrations are decoded as a list, their fields not judged (`unjudgedIntegrations`).
 */
import { dig, isMap, list, objects } from '../core/dig.ts';
import { durationMs } from '../core/time.ts';
import { goDecodeProblems, type DecodeProblem, type GoStruct } from '../yaml/go-decode.ts';
import { HTTP_CLIENT_CONFIG } from '../blackbox/config.ts';
import { B, DURATION, LABEL_NAME, labelNamesOf, MATCHERS, REGEXPS, S, strings, URL_TYPE } from './types.ts';
import { OTHER_INTEGRATIONS, RECEIVER } from './receivers.ts';
import { text } from '../blackbox/go-libraries.ts';

/** Route.UnmarshalYAML: its label names, group_by, and intervals. */
function routeProblem(r: Readonly<Record<string, unknown>>): string | undefined {
  const names = labelNamesOf(r.match, '');
  if (names) return names;
  const groupBy = list(r.group_by).map(text);
  const labels = groupBy.filter((l) => l !== '...');
  const invalid = labels.find((l) => !LABEL_NAME.test(l));
  if (invalid !== undefined) return `invalid label name "${invalid}" in group_by list`;
  const routeLabel = labelNamesOf(r.labels, ' in route labels');
  if (routeLabel) return routeLabel;
  if (labels.length > 0 && labels.length < groupBy.length) return 'cannot have wildcard group_by (`...`) and other labels at the same time';
  const duplicate = labels.find((l, i) => labels.indexOf(l) !== i);
  if (duplicate !== undefined) return `duplicated label "${duplicate}" in group_by`;
  if (r.group_interval !== undefined && r.group_interval !== null && durationMs(text(r.group_interval)) === 0) return 'group_interval cannot be zero';
  if (r.repeat_interval !== undefined && r.repeat_interval !== null && durationMs(text(r.repeat_interval)) === 0) return 'repeat_interval cannot be zero';
  return undefined;
}

const ROUTE: GoStruct = { go: 'struct', type: 'config.plain', fields: {}, validate: routeProblem };
Object.assign(ROUTE.fields, {
  receiver: S,
  group_by: strings,
  match: { go: 'map', of: S },
  match_re: REGEXPS,
  matchers: MATCHERS,
  mute_time_intervals: strings,
  active_time_intervals: strings,
  continue: B,
  routes: { go: 'list', of: ROUTE },
  group_wait: DURATION,
  group_interval: DURATION,
  repeat_interval: DURATION,
  labels: { go: 'map', of: S },
});

const INHIBIT_RULE: GoStruct = {
  go: 'struct',
  type: 'config.plain',
  fields: {
    name: S,
    source_match: { go: 'map', of: S },
    source_match_re: REGEXPS,
    source_matchers: MATCHERS,
    target_match: { go: 'map', of: S },
    target_match_re: REGEXPS,
    target_matchers: MATCHERS,
    equal: strings,
  },
  validate: (r) =>
    labelNamesOf(r.source_match, '') ??
    labelNamesOf(r.target_match, '') ??
    list(r.equal)
      .map(text)
      .filter((l) => l === '')
      .map((l) => `invalid label name "${l}" in equal list`)[0],
};

/** GlobalConfig's pairs, each at most one of (Config.UnmarshalYAML). */
const GLOBAL_PAIRS = [
  ['slack_app_token', 'slack_app_token_file'],
  ['slack_api_url', 'slack_api_url_file'],
  ['opsgenie_api_key', 'opsgenie_api_key_file'],
  ['victorops_api_key', 'victorops_api_key_file'],
  ['telegram_bot_token', 'telegram_bot_token_file'],
  ['smtp_auth_password', 'smtp_auth_password_file'],
  ['rocketchat_token', 'rocketchat_token_file'],
  ['rocketchat_token_id', 'rocketchat_token_id_file'],
  ['smtp_auth_secret', 'smtp_auth_secret_file'],
  ['wechat_api_secret', 'wechat_api_secret_file'],
  ['mattermost_webhook_url', 'mattermost_webhook_url_file'],
] as const;
const GLOBAL_URLS = [
  'jira_api_url',
  'slack_api_url',
  'slack_app_url',
  'pagerduty_url',
  'opsgenie_api_url',
  'wechat_api_url',
  'victorops_api_url',
  'telegram_api_url',
  'webex_api_url',
  'rocketchat_api_url',
  'mattermost_webhook_url',
];

const GLOBAL: GoStruct = {
  go: 'struct',
  type: 'config.plain',
  fields: {
    resolve_timeout: DURATION,
    http_config: HTTP_CLIENT_CONFIG,
    smtp_smarthost: S,
    smtp_tls_config: HTTP_CLIENT_CONFIG.fields.tls_config!,
    smtp_require_tls: B,
    smtp_force_implicit_tls: B,
    ...Object.fromEntries(GLOBAL_PAIRS.flat().map((k) => [k, S])),
    ...Object.fromEntries(['smtp_from', 'smtp_hello', 'smtp_auth_username', 'smtp_auth_identity', 'wechat_api_corp_id'].map((k) => [k, S])),
    ...Object.fromEntries(GLOBAL_URLS.map((k) => [k, URL_TYPE])),
  },
};

const timeInterval = (what: string): GoStruct => ({
  go: 'struct',
  type: 'config.plain',
  fields: { name: S, time_intervals: { go: 'list', of: { go: 'any' } } },
  validate: (t) => (text(t.name) === '' ? `missing name in ${what}` : undefined),
});

type At = { path: (string | number)[]; message: string };
type Obj = Readonly<Record<string, unknown>>;

/** The routing tree, each route with its path in the file. */
function walkRoutes(route: Obj, path: (string | number)[] = ['route']): { route: Obj; path: (string | number)[] }[] {
  return [{ route, path }, ...objects(route.routes).flatMap((r, i) => walkRoutes(r, [...path, 'routes', i]))];
}

/** Config.UnmarshalYAML's checks of its receivers and globals: the first refusal. */
function receiversProblem(c: Obj): At | undefined {
  const global = isMap(c.global) ? c.global : {};
  const set = (k: string) => text(global[k]) !== '';
  for (const [a, b] of GLOBAL_PAIRS) {
    if (set(a) && set(b)) return { path: ['global'], message: `at most one of ${a} & ${b} must be configured` };
    // After the Slack pairs: a token beside a URL, unless the URL is the app URL (the bot-token workaround of #2513).
    if (
      b === 'slack_api_url_file' &&
      (set('slack_app_token') || set('slack_app_token_file')) &&
      (set('slack_api_url') || set('slack_api_url_file')) &&
      text(global.slack_api_url) !== (text(global.slack_app_url) || 'https://slack.com/api/chat.postMessage')
    )
      return { path: ['global'], message: 'at most one of slack_app_token/slack_app_token_file & slack_api_url/slack_api_url_file must be configured' };
  }
  const names = new Set<string>();
  for (const [i, receiver] of objects(c.receivers).entries()) {
    const name = text(receiver.name);
    if (names.has(name)) return { path: ['receivers', i, 'name'], message: `notification config name "${name}" is not unique` };
    names.add(name);
    for (const key of ['webhook_configs', ...OTHER_INTEGRATIONS])
      if (list(receiver[key]).some((w) => w === null)) return { path: ['receivers', i, key], message: `missing ${key.replace(/_configs$/, '')} config` };
    for (const [j, slack] of objects(receiver.slack_configs).entries()) {
      const own = ['api_url', 'api_url_file', 'app_token', 'app_token_file'].some((k) => text(slack[k]) !== '');
      const fromGlobal = ['slack_api_url', 'slack_api_url_file', 'slack_app_token', 'slack_app_token_file'].some((k) => text(global[k]) !== '');
      if (!own && !fromGlobal) return { path: ['receivers', i, 'slack_configs', j], message: 'no Slack API URL nor App token set either inline or in a file' };
    }
  }
  return undefined;
}

/** Config.UnmarshalYAML's checks of the routing tree and the time intervals: the first refusal. */
function routingProblem(c: Obj): At | undefined {
  const route = isMap(c.route) ? c.route : undefined;
  if (!route) return { path: [], message: 'no routes provided' };
  if (text(route.receiver) === '') return { path: ['route'], message: 'root route must specify a default receiver' };
  if (
    Object.keys(isMap(route.match) ? route.match : {}).length ||
    Object.keys(isMap(route.match_re) ? route.match_re : {}).length ||
    list(route.matchers).length
  )
    return { path: ['route'], message: 'root route must not have any matchers' };
  if (list(route.mute_time_intervals).length) return { path: ['route', 'mute_time_intervals'], message: 'root route must not have any mute time intervals' };
  if (list(route.active_time_intervals).length)
    return { path: ['route', 'active_time_intervals'], message: 'root route must not have any active time intervals' };
  const names = new Set(objects(c.receivers).map((r) => text(r.name)));
  const undefinedReceiver = walkRoutes(route).find((r) => text(r.route.receiver) !== '' && !names.has(text(r.route.receiver)));
  if (undefinedReceiver)
    return { path: [...undefinedReceiver.path, 'receiver'], message: `undefined receiver "${text(undefinedReceiver.route.receiver)}" used in route` };
  const intervals = new Set<string>();
  for (const [key, what] of [
    ['mute_time_intervals', 'mute time interval'],
    ['time_intervals', 'time interval'],
  ] as const)
    for (const [i, ti] of objects(c[key]).entries()) {
      if (intervals.has(text(ti.name))) return { path: [key, i, 'name'], message: `${what} "${text(ti.name)}" is not unique` };
      intervals.add(text(ti.name));
    }
  for (const r of walkRoutes(route))
    for (const key of ['active_time_intervals', 'mute_time_intervals'])
      for (const [i, ti] of list(r.route[key]).map(text).entries())
        if (!intervals.has(ti)) return { path: [...r.path, key, i], message: `undefined time interval "${ti}" used in route` };
  return undefined;
}

const CONFIG: GoStruct = {
  go: 'struct',
  type: 'config.plain',
  fields: {
    global: GLOBAL,
    route: ROUTE,
    inhibit_rules: { go: 'list', of: INHIBIT_RULE },
    receivers: { go: 'list', of: RECEIVER },
    templates: strings,
    mute_time_intervals: { go: 'list', of: timeInterval('mute time interval') },
    time_intervals: { go: 'list', of: timeInterval('time interval') },
    tracing: { go: 'any' },
    event_recorder: { go: 'any' },
  },
};

/** Every refusal of `config` (the document of alertmanager.yaml) as Alertmanager's Load makes it, each at its path. */
export function alertmanagerConfigProblems(config: unknown): DecodeProblem[] {
  // Load's own check: an empty file calls no UnmarshalYAML.
  if (config === null || config === undefined) return [{ path: [], message: 'no route provided in config' }];
  const decoded = goDecodeProblems(config, CONFIG);
  // Config.UnmarshalYAML checks the whole once every part decoded, and stops at its first refusal; then Load's.
  if (decoded.length > 0 || !isMap(config)) return decoded;
  const whole = receiversProblem(config) ?? routingProblem(config);
  if (whole) return [whole];
  return isMap(config.route) && config.route.continue === true ? [{ path: ['route', 'continue'], message: 'cannot have continue in root route' }] : [];
}

/** Where the configuration holds integrations whose fields are not judged: each receiver's list of one. */
export function unjudgedIntegrations(config: unknown): (string | number)[][] {
  return objects(dig(config, ['receivers'])).flatMap((r, i) => OTHER_INTEGRATIONS.filter((k) => list(r[k]).length > 0).map((k) => ['receivers', i, k]));
}
