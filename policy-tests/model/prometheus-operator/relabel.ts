/**
 * What the Prometheus operator (v0.93) refuses of a relabel rule on a ServiceMonitor, a PodMonitor or a Probe
 * (pkg/prometheus/validation/validator.go, ValidateRelabelConfig): the rule's action and its fields, its regex as
 * Prometheus compiles it (relabel.NewRegexp), and its target label under the name scheme of the Prometheus version
 * that loads it. A monitor with such a rule is skipped whole: none of its targets are scraped.
 */
import { dig, type Obj } from '../core/dig.ts';
import { re2Problem } from '../core/re2.ts';

/** A Prometheus version as semver reads it (ParseTolerant: a leading v, missing parts zero). */
export type PromVersion = readonly [number, number, number];

export function promVersion(text: string): PromVersion | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : undefined;
}

const atLeast = (v: PromVersion, [a, b, c]: PromVersion): boolean => (v[0] !== a ? v[0] > a : v[1] !== b ? v[1] > b : v[2] >= c);

/** relabel.DefaultRelabelConfig: what an unset field means. */
const DEFAULTS = { separator: ';', regex: '(.*)', replacement: '$1', modulus: 0 };

const LEGACY_LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** The legacy scheme's target label with `$1` or `${name}` in it (validator.go's relabelTargetLegacy). */
const LEGACY_TARGET_WITH_VARS = /^(?:(?:[a-zA-Z_]|\$(?:\{\w+\}|\w+))+\w*)+$/;

/** ValidationSchemeForPrometheus: UTF-8 names from Prometheus 3, legacy ones before. */
const validLabelName = (name: string, v: PromVersion): boolean => (v[0] >= 3 ? name !== '' : LEGACY_LABEL.test(name));
const validLabelNameWithVars = (name: string, v: PromVersion): boolean => (v[0] >= 3 ? name !== '' : LEGACY_TARGET_WITH_VARS.test(name));

const text = (rc: Obj, key: string): string | undefined => (typeof rc[key] === 'string' ? (rc[key] as string) : undefined);

/** Why the operator refuses one relabel rule for a Prometheus of version `v`, in its words; undefined where it passes. */
export function relabelRuleError(rc: Obj, v: PromVersion): string | undefined {
  const written = text(rc, 'action') || 'replace';
  const action = written.toLowerCase();
  const targetLabel = text(rc, 'targetLabel') ?? '';
  const replacement = text(rc, 'replacement');
  const separator = text(rc, 'separator');
  const regex = text(rc, 'regex') ?? '';
  const modulus = typeof rc.modulus === 'number' ? rc.modulus : 0;
  const caseAction = action === 'lowercase' || action === 'uppercase';
  const equalAction = action === 'keepequal' || action === 'dropequal';
  if (caseAction && !atLeast(v, [2, 36, 0])) return `${written} relabel action is only supported from Prometheus version 2.36.0`;
  if (equalAction && !atLeast(v, [2, 41, 0])) return `${written} relabel action is only supported from Prometheus version 2.41.0`;
  const bad = re2Problem(`^(?s:${regex})$`);
  if (bad !== undefined) return `invalid regex ${regex} for relabel configuration: ${bad}`;
  if (modulus === 0 && action === 'hashmod') return 'relabel configuration for hashmod requires non-zero modulus';
  if ((action === 'replace' || action === 'hashmod' || caseAction || equalAction) && targetLabel === '')
    return `relabel configuration for ${written} action needs targetLabel value`;
  if ((action === 'replace' || action === 'hashmod' || caseAction || equalAction) && !validLabelName(targetLabel, v))
    return `${JSON.stringify(targetLabel)} is invalid 'target_label' for ${written} action`;
  if ((caseAction || equalAction) && replacement !== undefined && replacement !== DEFAULTS.replacement)
    return `'replacement' can not be set for ${written} action`;
  if (action === 'labelmap' && replacement !== undefined && !validLabelNameWithVars(replacement, v))
    return `${JSON.stringify(replacement)} is invalid 'replacement' for ${written} action`;
  const otherThanDefaults = (fields: { regex?: boolean; sourceLabels?: boolean; targetLabel?: boolean }) =>
    (fields.regex === true && regex !== '' && regex !== DEFAULTS.regex) ||
    (fields.sourceLabels === true && ((rc.sourceLabels as unknown[] | undefined)?.length ?? 0) > 0) ||
    (fields.targetLabel === true && targetLabel !== '') ||
    (modulus !== 0 && modulus !== DEFAULTS.modulus) ||
    (separator !== undefined && separator !== DEFAULTS.separator) ||
    (replacement !== undefined && replacement !== DEFAULTS.replacement);
  if (equalAction && otherThanDefaults({ regex: true })) return `${written} action requires only 'source_labels' and \`target_label\`, and no other fields`;
  if ((action === 'labeldrop' || action === 'labelkeep') && otherThanDefaults({ sourceLabels: true, targetLabel: true }))
    return `${written} action requires only 'regex', and no other fields`;
  return undefined;
}

/** The field of a rule a refusal is about, by its words (the whole rule where it names none). */
const FIELD_OF: [RegExp, string][] = [
  [/^invalid regex /, 'regex'],
  [/modulus$/, 'modulus'],
  [/'target_label'|needs targetLabel/, 'targetLabel'],
  [/'replacement'/, 'replacement'],
  [/only supported from/, 'action'],
];

/** LabelConfigValidator.Validate: the first rule of a list the operator refuses, at its index (and field). */
export function relabelListError(list: unknown, v: PromVersion): { path: (string | number)[]; message: string } | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const [index, rc] of list.entries()) {
    const message = rc && typeof rc === 'object' ? relabelRuleError(rc as Obj, v) : undefined;
    if (!message) continue;
    const field = FIELD_OF.find(([re]) => re.test(message))?.[1];
    return { path: [index, ...(field && (rc as Obj)[field] !== undefined ? [field] : [])], message: `[${index}]: ${message}` };
  }
  return undefined;
}

/** The Prometheus fields a monitor is judged against: its version, its scrape interval, its scrape classes. */
export interface PrometheusFields {
  version: PromVersion;
  scrapeInterval: string;
  scrapeClasses: readonly string[];
  /** arbitraryFSAccessThroughSMs.deny: no ServiceMonitor may read the Prometheus pod's files. */
  denyFileAccess: boolean;
}

/** The fields from a Prometheus spec (rendered, or as the chart's values build it), with the operator's defaults. */
export function prometheusFields(spec: Obj): PrometheusFields {
  const image = text(spec, 'image')?.split(':').at(-1);
  return {
    version: promVersion(text(spec, 'version') || image || '') ?? [3, 0, 0],
    scrapeInterval: text(spec, 'scrapeInterval') || '30s',
    scrapeClasses: ((spec.scrapeClasses ?? []) as Obj[]).map((c) => (typeof c?.name === 'string' ? c.name : '')),
    denyFileAccess: dig(spec, ['arbitraryFSAccessThroughSMs', 'deny']) === true,
  };
}
