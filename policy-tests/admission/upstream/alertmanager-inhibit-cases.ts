/**
 * Alertmanager's own inhibition tests (prometheus/alertmanager inhibit/inhibit_test.go at v0.34.0), read as data:
 * TestInhibitRuleMatches and TestInhibitRuleMatchers each build rules (match maps or matchers, equal labels), put one
 * firing source alert in each rule's cache, and say of each target label set whether it is muted. Each case is held to
 * the gate's port (model/monitoring/alertmanager.ts `inhibits`): muted where some rule mutes it by an alert of its cache.
 */
import { inhibits, type AmInhibitRule } from '../../model/monitoring/alertmanager.ts';
import { goUnquote } from '../../model/go/strconv.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

const GO_STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const OPS: Record<string, string> = { MatchEqual: '=', MatchNotEqual: '!=', MatchRegexp: '=~', MatchNotRegexp: '!~' };

/** A Go map or LabelSet literal's `"key": "value"` pairs. */
const pairs = (text: string): Record<string, string> =>
  Object.fromEntries([...text.matchAll(new RegExp(`(${GO_STRING}):\\s*(${GO_STRING})`, 'g'))].map((m) => [goUnquote(m[1]!) ?? '', goUnquote(m[2]!) ?? '']));

/** `&labels.Matcher{Type: labels.MatchEqual, Name: "n", Value: "v"}` entries, as the lines a configuration writes. */
const matcherLines = (text: string): string[] =>
  [...text.matchAll(new RegExp(`Type:\\s*labels\\.(\\w+),\\s*Name:\\s*(${GO_STRING}),\\s*Value:\\s*(${GO_STRING})`, 'g'))].map(
    (m) => `${goUnquote(m[2]!)}${OPS[m[1]!] ?? '?'}${JSON.stringify(goUnquote(m[3]!))}`,
  );

function ruleOf(body: string): AmInhibitRule {
  const field = (name: string) => new RegExp(`\\b${name}:\\s*[^{]*\\{([^}]*(?:\\}[^,\\n}]*)*)\\}`).exec(body)?.[1];
  const rule: AmInhibitRule = {};
  const sm = field('SourceMatch');
  const tm = field('TargetMatch');
  if (sm !== undefined && /SourceMatch:/.test(body)) rule.source_match = pairs(sm);
  if (tm !== undefined && /TargetMatch:/.test(body)) rule.target_match = pairs(tm);
  const sms = /SourceMatchers:[\s\S]*?\n\t\t(?=TargetMatchers|Equal|\})/.exec(body)?.[0];
  const tms = /TargetMatchers:[\s\S]*?\n\t\t(?=Equal|\})/.exec(body)?.[0];
  if (sms) rule.source_matchers = matcherLines(sms);
  if (tms) rule.target_matchers = matcherLines(tms);
  const equal = /Equal:\s*\[\]string\{([^}]*)\}/.exec(body)?.[1];
  if (equal !== undefined) rule.equal = [...equal.matchAll(new RegExp(GO_STRING, 'g'))].map((m) => goUnquote(m[0]) ?? '');
  return rule;
}

/** The cases of inhibit_test.go's rule tests, each a target with whether it is muted. */
export function alertmanagerInhibitCases(inhibitTest: string): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  for (const test of ['TestInhibitRuleMatches', 'TestInhibitRuleMatchers']) {
    const body = new RegExp(`func ${test}\\(t \\*testing\\.T\\) \\{[\\s\\S]*?\\n}\\n`).exec(inhibitTest)?.[0];
    if (!body) {
      table.unread.push({ name: test, why: 'the test is not in the file' });
      continue;
    }
    const defined = new Map([...body.matchAll(/\t(rule\d+) := amcommoncfg\.InhibitRule\{([\s\S]*?)\n\t\}/g)].map((m) => [m[1]!, ruleOf(m[2]!)]));
    const order =
      /NewInhibitor\(nil, \[\]amcommoncfg\.InhibitRule\{([^}]*)\}/
        .exec(body)?.[1]
        ?.split(',')
        .map((s) => s.trim()) ?? [];
    const alerts = new Map(
      [...body.matchAll(/\t(sourceAlert\d+) := &alert\.Alert\{[\s\S]*?Labels:\s*model\.LabelSet\{([^}]*)\}/g)].map((m) => [m[1]!, pairs(m[2]!)]),
    );
    const caches = new Map<number, Record<string, string>[]>();
    for (const m of body.matchAll(/ih\.rules\[(\d+)\]\.scache\.Set\((\w+)\)/g))
      caches.set(Number(m[1]), [...(caches.get(Number(m[1])) ?? []), alerts.get(m[2]!) ?? {}]);
    const rules = order.map((name) => defined.get(name));
    if (rules.length === 0 || rules.some((r) => r === undefined)) {
      table.unread.push({ name: test, why: 'its rules are not written as the reader reads them' });
      continue;
    }
    for (const m of body.matchAll(/target:\s*model\.LabelSet\{([^}]*)\},\s*expected:\s*(true|false)/g)) {
      const target = pairs(m[1]!);
      table.cases.push({
        test,
        name: JSON.stringify(target),
        judge: () => (rules.some((rule, i) => (caches.get(i) ?? []).some((source) => inhibits(rule!, source, target))) ? 'muted' : 'not muted'),
        want: m[2] === 'true' ? 'muted' : 'not muted',
      });
    }
  }
  return table;
}

/** How many of the cases the gate answers as Alertmanager's tests expect. */
export const alertmanagerInhibitAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'Alertmanager');
