/**
 * The Alertmanager configuration kept in kube-prometheus-stack's values, the
 * receiver the routing rules demand (invariants A12-A15) for an alert, and a small router
 * (first match, matchers as the classic parser reads them) for the policy check. The tests check the
 * same decisions with the real amtool.
 */
import { chartValues } from '../helm/chart-values.ts';
import { dig, list, obj, objects } from '../core/dig.ts';
import type { DataFile, Repo } from '../repository/repo.ts';
import { alertmanagerRegex } from '../core/re2.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { parseRenderedFile, placeInValues, renderedByChart, renderedFile } from '../helm/chart-output.ts';
import { matcherMatches, parseMatchers, type AmMatcher } from '../alertmanager/matchers.ts';

export interface AmRoute {
  receiver?: string;
  matchers?: string[];
  match?: Record<string, string>;
  match_re?: Record<string, string>;
  continue?: boolean;
  routes?: AmRoute[];
  group_wait?: string;
  group_interval?: string;
  repeat_interval?: string;
}

export interface AmReceiver {
  name: string;
  slack_configs?: { send_resolved?: boolean; api_url?: string; api_url_file?: string; text?: unknown }[];
  webhook_configs?: { url?: string; send_resolved?: boolean }[];
}

export interface AmInhibitRule {
  source_match?: Record<string, string>;
  source_match_re?: Record<string, string>;
  source_matchers?: string[];
  target_match?: Record<string, string>;
  target_match_re?: Record<string, string>;
  target_matchers?: string[];
  equal?: string[];
}

export interface AmConfig {
  route: AmRoute;
  receivers: AmReceiver[];
  inhibit_rules?: AmInhibitRule[];
}

export const CONFIG_PATH = ['alertmanager', 'config'] as const;

export function alertmanagerConfigs(repo: Repo): { file: string; config: AmConfig; source: DataFile }[] {
  return chartValues(repo, 'kube-prometheus-stack').map((v) => ({
    file: v.file,
    config: (dig(v.values, [...CONFIG_PATH]) ?? { route: {}, receivers: [] }) as AmConfig,
    source: v.source,
  }));
}

/** Every row of the Events table (monitoring/README.md), as alert labels. */
export const EVENTS_ROWS: readonly { name: string; labels: Record<string, string> }[] = [
  { name: 'alertname=Watchdog (heartbeat)', labels: { alertname: 'Watchdog', severity: 'none' } },
  { name: 'severity=critical', labels: { alertname: 'Anything', severity: 'critical', namespace: 'media' } },
  { name: 'namespace hypervisor', labels: { alertname: 'HypervisorNotification', severity: 'critical', namespace: 'hypervisor' } },
  { name: 'namespace nas', labels: { alertname: 'NasNotification', severity: 'critical', namespace: 'nas', node: 'nas' } },
  { name: 'namespace app-a, warning', labels: { alertname: 'AppGatewayPostStale', severity: 'warning', namespace: 'app-a' } },
  { name: 'namespace app-a, info', labels: { alertname: 'AppGatewayInfo', severity: 'info', namespace: 'app-a' } },
  { name: 'anything else (warning)', labels: { alertname: 'ContainerOOMKilled', severity: 'warning', namespace: 'media' } },
  { name: 'anything else (no severity)', labels: { alertname: 'Something' } },
];

/** The severities the Events table routes (none: the heartbeat's, as kube-prometheus-stack's own rules write it). */
export const EVENT_SEVERITIES: readonly string[] = [...new Set(EVENTS_ROWS.flatMap((row) => (row.labels.severity === undefined ? [] : [row.labels.severity])))];

/** What the Events table asks for an alert other than the Watchdog: chat with its resolved message, chat once, chat, or nothing (A12-A15). */
export type Delivery = { chat: false } | { chat: true; resolved: boolean | undefined; invariant: string };

export function wantedDelivery(labels: Record<string, string>): Delivery {
  if (labels.namespace === 'hypervisor' || labels.namespace === 'nas') return { chat: true, resolved: false, invariant: 'A13' };
  if (labels.severity === 'critical') return { chat: true, resolved: true, invariant: 'A12' };
  if (labels.namespace === 'app-a') return { chat: true, resolved: undefined, invariant: 'A14' };
  return { chat: false };
}

export const ALERTMANAGER_CHART = 'kube-prometheus-stack';
const CONFIG_KEY = 'alertmanager.yaml';

/** Where a finding about a path of an Alertmanager configuration stands. */
export type ConfigPlace = { data: DataFile; path: Path } | { resource: Resource; path: Path };

export interface JudgedAlertmanagerConfig {
  /** The configuration as Alertmanager reads it, or why it is no YAML (a rendered file only). */
  config: unknown;
  error?: string;
  /** What the messages call it: the rendered file, or the values' block. */
  name: string;
  /** Where a path of the configuration stands: the values line that wrote it, else the rendered Secret. */
  place: (path: Path) => ConfigPlace;
}

/**
 * The Alertmanager configurations the cluster gets: each the chart renders (the values merged over the chart's
 * defaults, its inhibit rules among them), else the values' own where the chart is not rendered.
 */
export function judgedAlertmanagerConfigs(resources: readonly Resource[], repo: Repo): JudgedAlertmanagerConfig[] {
  const values = chartValues(repo, ALERTMANAGER_CHART);
  const out: JudgedAlertmanagerConfig[] = [];
  const judged = new Set<string>();
  for (const resource of resources) {
    if (resource.kind !== 'Secret' || !renderedByChart(resource, ALERTMANAGER_CHART)) continue;
    const file = renderedFile(resource, CONFIG_KEY);
    if (!file) continue;
    const app = resource.rendered!.app;
    judged.add(app);
    // A path the values' config does not write at all stands on the rendered file.
    const place = placeInValues(
      { resource, path: file.path },
      values.find((x) => x.appName === app),
      (path) => ({ roots: [CONFIG_PATH], rest: path, minDepth: 1 }),
    );
    const parsed = parseRenderedFile(file.text);
    const name = `${resource.kind} ${resource.name}'s ${CONFIG_KEY}`;
    out.push('error' in parsed ? { config: undefined, error: parsed.error, name, place } : { config: parsed.doc, name, place });
  }
  for (const v of values.filter((x) => !judged.has(x.appName))) {
    const config = dig(v.values, [...CONFIG_PATH]);
    if (config !== undefined) out.push({ config, name: 'alertmanager.config', place: (path) => ({ data: v.source, path: [...CONFIG_PATH, ...path] }) });
  }
  return out;
}

/** The spec's Events table, in this repo's receiver names. */
export function expectedReceiver(labels: Record<string, string>): string {
  if (labels.alertname === 'Watchdog') return 'watchdog';
  if (labels.namespace === 'hypervisor' || labels.namespace === 'nas') return 'chat-events';
  if (labels.namespace === 'app-a') return 'chat-app-a';
  if (labels.severity === 'critical') return 'chat';
  return 'null';
}

/** A route's `matchers`, each line read as Alertmanager reads it; undefined where one does not read (Alertmanager refuses the file). */
export function routeMatchers(route: AmRoute): AmMatcher[] | undefined {
  const out: AmMatcher[] = [];
  for (const line of list(route.matchers)) {
    const parsed = parseMatchers(String(line));
    if ('error' in parsed) return undefined;
    out.push(...parsed);
  }
  return out;
}

/** Whether `text` matches the Alertmanager regex whole, or undefined where Go cannot compile it. */
function wholeMatch(source: string, text: string): boolean | undefined {
  try {
    return alertmanagerRegex(source).test(text);
  } catch {
    return undefined;
  }
}

function routeMatches(route: AmRoute, labels: Record<string, string>): boolean {
  return (
    // A line Alertmanager cannot read refuses the configuration: no route is followed through it.
    (routeMatchers(route)?.every((m) => matcherMatches(m, labels[m.name] ?? '')) ?? false) &&
    Object.entries(route.match ?? {}).every(([k, v]) => (labels[k] ?? '') === v) &&
    Object.entries(route.match_re ?? {}).every(([k, v]) => wholeMatch(v, labels[k] ?? '') === true)
  );
}

/** One side of an inhibit rule (`source` or `target`): its match, match_re and matchers lines, each as Alertmanager reads it. */
function sideMatches(rule: AmInhibitRule, side: 'source' | 'target', labels: Record<string, string>): boolean {
  const lines = routeMatchers({ matchers: rule[`${side}_matchers`] });
  return (
    (lines?.every((m) => matcherMatches(m, labels[m.name] ?? '')) ?? false) &&
    Object.entries(obj(rule[`${side}_match`])).every(([k, v]) => (labels[k] ?? '') === v) &&
    Object.entries(obj(rule[`${side}_match_re`])).every(([k, v]) => wholeMatch(String(v), labels[k] ?? '') === true)
  );
}

/**
 * Whether `rule` mutes an alert labelled `target` while one labelled `source` fires (inhibit.go's Mutes and hasEqual at
 * v0.34.0): the target side matches it, the source side the other alert, each `equal` label the same on both (absent is
 * empty), and, where the muted alert matches the source side too, the other alert does not match the target side.
 */
export function inhibits(rule: AmInhibitRule, source: Record<string, string>, target: Record<string, string>): boolean {
  if (!sideMatches(rule, 'target', target) || !sideMatches(rule, 'source', source)) return false;
  if (!list(rule.equal).every((l) => (source[String(l)] ?? '') === (target[String(l)] ?? ''))) return false;
  return !(sideMatches(rule, 'source', target) && sideMatches(rule, 'target', source));
}

/** Receivers an alert reaches, with the index path of the route that sent it there. */
export function route(config: AmConfig, labels: Record<string, string>): { receiver: string; path: number[] }[] {
  const walk = (node: AmRoute, inherited: string, path: number[]): { receiver: string; path: number[] }[] => {
    const receiver = node.receiver ?? inherited;
    const out: { receiver: string; path: number[] }[] = [];
    for (const [i, child] of (objects(node.routes) as NonNullable<typeof node.routes>).entries()) {
      if (!routeMatches(child, labels)) continue;
      out.push(...walk(child, receiver, [...path, i]));
      if (!child.continue) return out;
    }
    return out.length ? out : [{ receiver, path }];
  };
  const root = obj(config.route) as AmRoute;
  return walk(root, root.receiver ?? '', []);
}

export function sendsToChat(receiver: AmReceiver | undefined): boolean {
  return (receiver?.slack_configs?.length ?? 0) > 0;
}
