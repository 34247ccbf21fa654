/**
 * The labels an Alertmanager configuration names, held to the alerts that reach it (alert-routing): an inhibit rule's
 * `equal` label, a route's `group_by` label, the label a route's or an inhibit rule's side's matcher names, and an
 * inhibit rule's side's severity or alert name. A name or value one slip from what the alerts carry is a slip
 * Alertmanager takes without a word.
 */
import { EVENT_SEVERITIES, EVENTS_ROWS, type ConfigPlace, type JudgedAlertmanagerConfig } from '../../model/monitoring/alertmanager.ts';
import { ruleEntries } from '../../model/monitoring/prometheus-rules.ts';
import { scalarText } from '../../model/core/text.ts';
import { list, obj, objects, str } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';
import { matcherMatches, parseMatchers, type AmMatcher } from '../../model/alertmanager/matchers.ts';

/** Labels every alert may carry from Prometheus and its targets, besides those its rule and its series write. */
const TARGET_LABELS = ['alertname', 'severity', 'namespace', 'job', 'instance', 'pod', 'container', 'service', 'node', 'endpoint', 'cluster', 'prometheus'];

/** The labels the alerts may carry: the targets', their rules' labels, the words of their expressions, the Events table's. */
function carriedLabels(ctx: CheckContext): Set<string> {
  const rules = ruleEntries(ctx.resources);
  return new Set([
    ...TARGET_LABELS,
    ...rules.flatMap(({ rule }) => Object.keys(obj(rule.labels))),
    ...rules.flatMap(({ rule }) => scalarText(rule.expr ?? '').match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []),
    ...EVENTS_ROWS.flatMap((row) => Object.keys(row.labels)),
  ]);
}

/**
 * An inhibit rule's `equal` label that no alert carries is the empty value in both alerts, and so always equal: a
 * misspelt `namepsace` makes a critical alert in one namespace mute the warnings of every namespace. A name one slip
 * from a label the alerts carry (their rules' labels, the words of their expressions, the targets' labels) is said.
 */
function misspeltEqualLabels(ctx: CheckContext, configs: readonly JudgedAlertmanagerConfig[], carried: ReadonlySet<string>): void {
  for (const { config, error, place } of configs) {
    if (error !== undefined) continue;
    objects(obj(config).inhibit_rules).forEach((rule, i) =>
      list(rule.equal).forEach((label, j) => {
        const near = carried.has(str(label)) ? undefined : nearestName(str(label), carried);
        if (near !== undefined)
          ctx.fail(
            place(['inhibit_rules', i, 'equal', j]),
            `inhibit rule ${i + 1} holds source and target to an equal "${str(label)}", a label no alert carries${suggesting(near)}: both lack it, so they are always equal, and the rule mutes its targets whatever their ${near}`,
          );
      }),
    );
  }
}

/**
 * A route's `group_by` label that no alert carries is the empty value on every alert: a misspelt `namspace` puts the
 * alerts of every namespace into one notification. A name one slip from a carried label is said (`...` groups by all).
 */
function misspeltGroupLabels(ctx: CheckContext, configs: readonly JudgedAlertmanagerConfig[], carried: ReadonlySet<string>): void {
  for (const { config, error, place } of configs) {
    if (error !== undefined) continue;
    const walk = (route: Record<string, unknown>, at: Path): void => {
      const { lines, maps } = writtenMatchers(route, '', (path) => place([...at, ...path]));
      misspeltMatcherLabels(ctx, { written: [...lines, ...maps], carried, what: 'the route' });
      list(route.group_by).forEach((label, j) => {
        const near = str(label) === '...' || carried.has(str(label)) ? undefined : nearestName(str(label), carried);
        if (near !== undefined)
          ctx.fail(
            place([...at, 'group_by', j]),
            `the route groups alerts by "${str(label)}", a label no alert carries${suggesting(near)}: every alert has it empty, and alerts that differ only in their ${near} go out in one notification`,
          );
      });
      objects(route.routes).forEach((child, i) => walk(child, [...at, 'routes', i]));
    };
    walk(obj(obj(config).route), ['route']);
  }
}

/**
 * A matcher (`name op value`) naming a label no alert carries, one slip from one they do (`severitz = info`): every
 * alert lacks it, which is the empty value, so the matcher matches none of them, or, where it takes the empty value
 * (`!=`, a regex matching nothing), all of them.
 */
function misspeltMatcherLabels(ctx: CheckContext, { written, carried, what }: { written: Written[]; carried: ReadonlySet<string>; what: string }): void {
  for (const { m, text, at } of written) {
    const near = carried.has(m.name) ? undefined : nearestName(m.name, carried);
    if (near === undefined) continue;
    let all: boolean;
    try {
      all = matcherMatches(m, '');
    } catch {
      continue; // a regex Go cannot compile refuses the configuration: alertmanager-config-loads says so
    }
    ctx.fail(
      at,
      `${what} matches on "${m.name}", a label no alert carries${suggesting(near)}: every alert has it empty, so ${text} matches ${all ? 'every alert' : 'no alert'}`,
    );
  }
}

/** A matcher as a route or an inhibit rule side writes it, with its text and where it is. */
type Written = { m: AmMatcher; text: string; at: ConfigPlace };

/**
 * The matchers a route or an inhibit rule side writes, under `prefix` (`''` for a route, `source_` or `target_`): its
 * `matchers` lines, and its `match` and `match_re` maps, the older forms Alertmanager still reads; each line parsed once.
 */
function writtenMatchers(node: Record<string, unknown>, prefix: string, place: (path: Path) => ConfigPlace): { lines: Written[]; maps: Written[] } {
  const lines = list(node[`${prefix}matchers`]).flatMap((line, j) => {
    const parsed = parseMatchers(str(line));
    return 'error' in parsed ? [] : parsed.map((m) => ({ m, text: str(line), at: place([`${prefix}matchers`, j]) }));
  });
  const maps = (['match', 'match_re'] as const).flatMap((key) =>
    Object.entries(obj(node[`${prefix}${key}`])).map(([name, value]) => ({
      m: { name, type: key === 'match' ? ('=' as const) : ('=~' as const), value: scalarText(value) },
      text: `${name}: ${scalarText(value)}`,
      at: place([`${prefix}${key}`, name]),
    })),
  );
  return { lines, maps };
}

/**
 * An inhibit rule whose side names a severity or an alert name (`=`) that no alert has, one slip from one that does
 * (`severity = critcal`): that side matches no alert, and the rule mutes nothing, or nothing ever mutes its targets.
 */
function inhibitSidesMatchingNothing(ctx: CheckContext, configs: readonly JudgedAlertmanagerConfig[], carried: ReadonlySet<string>): void {
  const rules = ruleEntries(ctx.resources);
  const known: Record<string, Set<string>> = {
    severity: new Set([
      'none',
      ...EVENT_SEVERITIES,
      ...rules.flatMap(({ rule }) => (obj(rule.labels).severity === undefined ? [] : [scalarText(obj(rule.labels).severity)])),
    ]),
    alertname: new Set(['Watchdog', ...rules.flatMap(({ rule }) => (rule.alert === undefined ? [] : [scalarText(rule.alert)]))]),
  };
  for (const { config, error, place } of configs) {
    if (error !== undefined) continue;
    objects(obj(config).inhibit_rules).forEach((rule, i) => {
      for (const side of ['source', 'target'] as const) {
        const { lines, maps } = writtenMatchers(rule, `${side}_`, (path) => place(['inhibit_rules', i, ...path]));
        misspeltMatcherLabels(ctx, { written: [...lines, ...maps], carried, what: `inhibit rule ${i + 1}'s ${side}` });
        // A severity or alert name is held where a matchers line writes it.
        for (const { m, at } of lines) {
          const values = known[m.name];
          const near = m.type !== '=' || !values || values.has(m.value) ? undefined : nearestName(m.value, values);
          if (near !== undefined)
            ctx.fail(
              at,
              `inhibit rule ${i + 1}'s ${side} matches ${m.name} "${m.value}", which no alert has${suggesting(near)}: that side matches no alert, and the rule mutes nothing`,
            );
        }
      }
    });
  }
}

/** Every label slip of the configurations: the labels the alerts carry are read once for the equal and group_by slips. */
export function labelSlips(ctx: CheckContext, configs: readonly JudgedAlertmanagerConfig[]): void {
  const carried = carriedLabels(ctx);
  misspeltEqualLabels(ctx, configs, carried);
  misspeltGroupLabels(ctx, configs, carried);
  inhibitSidesMatchingNothing(ctx, configs, carried);
}
