/**
 * What the prometheus-operator (v0.93, kube-prometheus-stack 88) refuses of a PrometheusRule: its webhook's
 * `ValidateRule` (pkg/operator/rules.go), which drops the Thanos-only `partial_response_strategy`, marshals the spec
 * and hands it to Prometheus 3.13's `rulefmt.Parse` (model/rulefmt/rulefmt.go) with legacy names and a parser built
 * with `parser.Options{}` (cmd/operator/main.go). The operator makes the same check before it writes a rule into
 * Prometheus's configuration, so a rule refused here never runs, webhook or not.
 */
import { stringify } from 'yaml';
import { list, type Obj, obj } from '../../model/core/dig.ts';
import { TEXT_TEMPLATE_BUILTINS, templateParseError } from '../../model/go/template-parse.ts';
import { DEFAULT_PARSER_FEATURES, promqlProblems, type PromqlFeatures } from '../../model/monitoring/promql-lint.ts';
import { durationMs } from '../../model/core/time.ts';
import { outcomeStore } from '../../model/stores/outcome-store.ts';

export interface RuleRefusal {
  path: (string | number)[];
  message: string;
}

/** Half a Secret's most (corev1.MaxSecretSize): the most a rule file may marshal to (MaxConfigMapDataSize). */
const MAX_RULE_FILE_BYTES = 524_288;

/** model.ValidationScheme: the webhook's legacy names, or UTF-8 (any non-empty text), as Prometheus 3 loads. */
export type NameScheme = 'legacy' | 'utf8';

const LEGACY_LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const LEGACY_METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const validLabelName = (name: string, scheme: NameScheme): boolean => (scheme === 'legacy' ? LEGACY_LABEL_NAME.test(name) : name !== '');
const validMetricName = (name: string, scheme: NameScheme): boolean => (scheme === 'legacy' ? LEGACY_METRIC_NAME.test(name) : name !== '');

/** Prometheus 3.13's template functions (template/template.go, NewTemplateExpander), with text/template's builtins. */
const TEMPLATE_FUNCTIONS: ReadonlySet<string> = new Set([
  ...TEXT_TEMPLATE_BUILTINS,
  ...[
    'query',
    'first',
    'label',
    'value',
    'strvalue',
    'args',
    'reReplaceAll',
    'safeHtml',
    'match',
    'title',
    'toUpper',
    'toLower',
    'graphLink',
    'tableLink',
    'sortByLabel',
  ],
  ...[
    'stripPort',
    'stripDomain',
    'humanize',
    'humanize1024',
    'humanizeDuration',
    'humanizePercentage',
    'humanizeTimestamp',
    'toTime',
    'toDuration',
    'now',
    'pathPrefix',
    'externalURL',
  ],
  ...['parseDuration', 'urlQueryEscape'],
]);

/** The variables rulefmt's testTemplateParsing defines ahead of every label and annotation. */
const TEMPLATE_DEFINITIONS = '{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$externalURL := .ExternalURL}}{{$value := .Value}}';

/** What a template parsed to before, by alert and text: a warm run after an edit parses no template it has seen. */
const templateOutcomes = outcomeStore<{ error?: string }>('alert-templates', () => 'rulefmt testTemplateParsing');

/** testTemplateParsing's parse of one label or annotation (a text with no action cannot fail: it is not parsed). */
function templateError(alert: string, text: string): string | undefined {
  if (!text.includes('{{')) return undefined;
  const known = templateOutcomes.get([alert, text]);
  if (known) return known.error;
  const error = templateParseError(`__alert_${alert}`, TEMPLATE_DEFINITIONS + text, TEMPLATE_FUNCTIONS);
  templateOutcomes.set([alert, text], error === undefined ? {} : { error });
  return error;
}

interface Rule {
  record?: unknown;
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  keep_firing_for?: unknown;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const entries = (m: unknown): [string, string][] => (m && typeof m === 'object' ? Object.entries(m as Obj).map(([k, v]) => [k, asText(v)]) : []);
/** A model.Duration that is not zero (absent and empty are zero, as `omitempty` and ValidateRule leave them). */
const nonZero = (v: unknown): boolean => typeof v === 'string' && v !== '' && v !== '0' && durationMs(v) !== 0;

/** rulefmt's Rule.Validate, each refusal at the field it names. */
function ruleRefusals(rule: Rule, at: (string | number)[], parse: RuleParse): RuleRefusal[] {
  const { scheme, features } = parse;
  const out: RuleRefusal[] = [];
  const refuse = (path: (string | number)[], message: string) => out.push({ path: [...at, ...path], message });
  const record = asText(rule.record);
  const alert = asText(rule.alert);
  if (record !== '' && alert !== '') refuse(['record'], "only one of 'record' and 'alert' must be set");
  if (record === '' && alert === '') refuse([], "one of 'record' or 'alert' must be set");
  const expr = asText(rule.expr);
  if (expr === '') refuse([], "field 'expr' must be set in rule");
  else {
    const problems = promqlProblems(expr, features);
    // Each as Go's ParseErr prints it, less the position: `parse error: ...`.
    if (problems.length > 0) refuse(['expr'], `could not parse expression: ${problems.map((p) => `parse error: ${p}`).join('; ')}`);
  }
  if (record !== '') {
    if (entries(rule.annotations).length > 0) refuse(['annotations'], "invalid field 'annotations' in recording rule");
    if (nonZero(rule.for)) refuse(['for'], "invalid field 'for' in recording rule");
    if (nonZero(rule.keep_firing_for)) refuse(['keep_firing_for'], "invalid field 'keep_firing_for' in recording rule");
    if (!validMetricName(record, scheme)) refuse(['record'], `invalid recording rule name: ${record}`);
    if (/[{}]/.test(record)) refuse(['record'], `braces present in the recording rule name; should it be in expr?: ${record}`);
  }
  for (const [k] of entries(rule.labels)) if (!validLabelName(k, scheme) || k === '__name__') refuse(['labels', k], `invalid label name: ${k}`);
  for (const [k] of entries(rule.annotations)) if (!validLabelName(k, scheme)) refuse(['annotations', k], `invalid annotation name: ${k}`);
  if (alert === '') return out;
  // testTemplateParsing: each label and annotation of an alert parsed as a template, not run.
  for (const field of ['labels', 'annotations'] as const)
    for (const [k, text] of entries(rule[field])) {
      const error = templateError(alert, text);
      if (error) refuse([field, k], `${field === 'labels' ? 'label' : 'annotation'} ${JSON.stringify(k)}: ${error}`);
    }
  return out;
}

/**
 * The bytes of the rule file ValidateRule marshals (the Thanos field dropped), where it may be near the limit: YAML of
 * this shallow shape is never twice its JSON, so a spec whose JSON is under half the limit is not marshalled at all.
 */
function marshalledSize(groups: readonly Obj[]): number {
  const json = Buffer.byteLength(JSON.stringify(groups));
  if (json * 2 <= MAX_RULE_FILE_BYTES) return json;
  return Buffer.byteLength(stringify({ groups: groups.map((g) => Object.fromEntries(Object.entries(g).filter(([k]) => k !== 'partial_response_strategy'))) }));
}

/** How a rule file is parsed: the name scheme, and the PromQL features the parser has on. */
export interface RuleParse {
  scheme: NameScheme;
  features: PromqlFeatures;
}

/** The operator's webhook: legacy names, `parser.Options{}` (cmd/operator/main.go). */
export const WEBHOOK_PARSE: RuleParse = { scheme: 'legacy', features: DEFAULT_PARSER_FEATURES };

/**
 * Why the operator refuses a PrometheusRule's spec, in rulefmt's words (`group "g", rule 1, "name": ...`): as its
 * webhook parses by default; as the operator itself loads it (the Prometheus's name scheme and features) where asked.
 */
export function prometheusRuleRefusals(spec: unknown, parse: RuleParse = WEBHOOK_PARSE): RuleRefusal[] {
  const { scheme } = parse;
  const groups = list((spec as Obj | undefined)?.groups) as Obj[];
  const size = marshalledSize(groups);
  if (size > MAX_RULE_FILE_BYTES)
    return [
      {
        path: ['spec', 'groups'],
        message: `the length of rendered Prometheus Rule is ${size} bytes which is above the maximum limit of ${MAX_RULE_FILE_BYTES} bytes`,
      },
    ];
  const out: RuleRefusal[] = [];
  const seen = new Set<string>();
  groups.forEach((item: unknown, gi) => {
    // A null group is what Go decodes as an empty one: no name, which rulefmt refuses.
    const g = obj(item);
    const name = asText(g.name);
    const at = ['spec', 'groups', gi];
    if (name === '') out.push({ path: at, message: 'Groupname must not be empty' });
    if (seen.has(name)) out.push({ path: [...at, 'name'], message: `groupname: ${JSON.stringify(name)} is repeated in the same file` });
    seen.add(name);
    for (const [k] of entries(g.labels))
      if (!validLabelName(k, scheme) || k === '__name__') out.push({ path: [...at, 'labels', k], message: `invalid label name: ${k}` });
    // A null item is what Go decodes as an empty rule, which rulefmt then refuses (no record or alert, no expr).
    list(g.rules).forEach((item, ri) => {
      const rule = obj(item) as Rule;
      const ruleName = asText(rule.alert) || asText(rule.record);
      for (const r of ruleRefusals(rule, [...at, 'rules', ri], parse))
        out.push({ path: r.path, message: `group ${JSON.stringify(name)}, rule ${ri + 1}, ${JSON.stringify(ruleName)}: ${r.message}` });
    });
  });
  return out;
}
