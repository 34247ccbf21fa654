/**
 * What the Prometheus operator (v0.93) refuses of a relabel rule on a ServiceMonitor, a PodMonitor or a Probe
 * (pkg/prometheus/validation/validator.go, ValidateRelabelConfig): the rule's action and its fields, its regex as
 * Prometheus compiles it (relabel.NewRegexp), and its target label under the name scheme of the Prometheus version
 * that loads it. A monitor with such a rule is skipped whole: none of its targets are scraped.
 */
// semver's functions one by one, as model/core/workloads.ts imports them (its index loads every module).
import coerce from 'semver/functions/coerce.js';
import compare from 'semver/functions/compare.js';
import { dig, type Obj } from '../core/dig.ts';
import { prometheusRegexProblem } from '../core/re2.ts';
import { featuresOf, type PromqlFeatures } from '../monitoring/promql-lint.ts';

/** A Prometheus version: major, minor, patch. */
export type PromVersion = readonly [number, number, number];

/** A Prometheus version as the operator's semver.ParseTolerant reads one (a leading v, missing parts zero), by semver's coerce. */
export function promVersion(text: string): PromVersion | undefined {
  const v = coerce(text.trim());
  return v ? [v.major, v.minor, v.patch] : undefined;
}

/** Whether a version is the given one or later. */
export const atLeast = (v: PromVersion, least: PromVersion): boolean => compare(v.join('.'), least.join('.')) >= 0;

/** relabel.DefaultRelabelConfig: what an unset field means. */
const DEFAULTS = { separator: ';', regex: '(.*)', replacement: '$1', modulus: 0 };

/** model.LabelName's legacy scheme (prometheus/common); every relabel reading of the repository reads it here. */
export const LEGACY_LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** The legacy scheme's target label with `$1` or `${name}` in it (validator.go's relabelTargetLegacy, Alloy's relabelTarget). */
export const LEGACY_TARGET_WITH_VARS = /^(?:(?:[a-zA-Z_]|\$(?:\{\w+\}|\w+))+\w*)+$/;

/** ValidationSchemeForPrometheus: UTF-8 names from Prometheus 3, legacy ones before. */
const validLabelName = (name: string, v: PromVersion): boolean => (v[0] >= 3 ? name !== '' : LEGACY_LABEL.test(name));
const validLabelNameWithVars = (name: string, v: PromVersion): boolean => (v[0] >= 3 ? name !== '' : LEGACY_TARGET_WITH_VARS.test(name));

const text = (rc: Obj, key: string): string | undefined => (typeof rc[key] === 'string' ? (rc[key] as string) : undefined);

/** A refusal of one rule: the operator's words, and the field they are about (the whole rule where none). */
interface RuleRefusal {
  field?: 'action' | 'regex' | 'modulus' | 'targetLabel' | 'replacement';
  message: string;
}

/** Why the operator refuses one relabel rule for a Prometheus of version `v`, and at which field; undefined where it passes. */
function relabelRuleRefusal(rc: Obj, v: PromVersion): RuleRefusal | undefined {
  const written = text(rc, 'action') || 'replace';
  const action = written.toLowerCase();
  const targetLabel = text(rc, 'targetLabel') ?? '';
  const replacement = text(rc, 'replacement');
  const separator = text(rc, 'separator');
  const regex = text(rc, 'regex') ?? '';
  const modulus = typeof rc.modulus === 'number' ? rc.modulus : 0;
  const caseAction = action === 'lowercase' || action === 'uppercase';
  const equalAction = action === 'keepequal' || action === 'dropequal';
  if (caseAction && !atLeast(v, [2, 36, 0])) return { field: 'action', message: `${written} relabel action is only supported from Prometheus version 2.36.0` };
  if (equalAction && !atLeast(v, [2, 41, 0])) return { field: 'action', message: `${written} relabel action is only supported from Prometheus version 2.41.0` };
  const bad = prometheusRegexProblem(regex);
  if (bad !== undefined) return { field: 'regex', message: `invalid regex ${regex} for relabel configuration: ${bad}` };
  if (modulus === 0 && action === 'hashmod') return { field: 'modulus', message: 'relabel configuration for hashmod requires non-zero modulus' };
  if ((action === 'replace' || action === 'hashmod' || caseAction || equalAction) && targetLabel === '')
    return { field: 'targetLabel', message: `relabel configuration for ${written} action needs targetLabel value` };
  if ((action === 'replace' || action === 'hashmod' || caseAction || equalAction) && !validLabelName(targetLabel, v))
    return { field: 'targetLabel', message: `${JSON.stringify(targetLabel)} is invalid 'target_label' for ${written} action` };
  if ((caseAction || equalAction) && replacement !== undefined && replacement !== DEFAULTS.replacement)
    return { field: 'replacement', message: `'replacement' can not be set for ${written} action` };
  if (action === 'labelmap' && replacement !== undefined && !validLabelNameWithVars(replacement, v))
    return { field: 'replacement', message: `${JSON.stringify(replacement)} is invalid 'replacement' for ${written} action` };
  const otherThanDefaults = (fields: { regex?: boolean; sourceLabels?: boolean; targetLabel?: boolean }) =>
    (fields.regex === true && regex !== '' && regex !== DEFAULTS.regex) ||
    (fields.sourceLabels === true && ((rc.sourceLabels as unknown[] | undefined)?.length ?? 0) > 0) ||
    (fields.targetLabel === true && targetLabel !== '') ||
    (modulus !== 0 && modulus !== DEFAULTS.modulus) ||
    (separator !== undefined && separator !== DEFAULTS.separator) ||
    (replacement !== undefined && replacement !== DEFAULTS.replacement);
  if (equalAction && otherThanDefaults({ regex: true }))
    return { message: `${written} action requires only 'source_labels' and \`target_label\`, and no other fields` };
  if ((action === 'labeldrop' || action === 'labelkeep') && otherThanDefaults({ sourceLabels: true, targetLabel: true }))
    return { message: `${written} action requires only 'regex', and no other fields` };
  return undefined;
}

/** Why the operator refuses one relabel rule for a Prometheus of version `v`, in its words; undefined where it passes. */
export const relabelRuleError = (rc: Obj, v: PromVersion): string | undefined => relabelRuleRefusal(rc, v)?.message;

/** LabelConfigValidator.Validate: the first rule of a list the operator refuses, at its index (and field). */
export function relabelListError(list: unknown, v: PromVersion): { path: (string | number)[]; message: string } | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const [index, rc] of list.entries()) {
    const refusal = rc && typeof rc === 'object' ? relabelRuleRefusal(rc as Obj, v) : undefined;
    if (!refusal) continue;
    const field = refusal.field !== undefined && (rc as Obj)[refusal.field] !== undefined ? [refusal.field] : [];
    return { path: [index, ...field], message: `[${index}]: ${refusal.message}` };
  }
  return undefined;
}

/** The fields of a Prometheus the operator judges a monitor or a rule against. */
export interface PrometheusFields {
  version: PromVersion;
  scrapeInterval: string;
  scrapeClasses: readonly string[];
  /** arbitraryFSAccessThroughSMs.deny: no ServiceMonitor may read the Prometheus pod's files. */
  denyFileAccess: boolean;
}

/**
 * The fields from a Prometheus spec, rendered (an image reference) or as the chart's values hold it (`image.tag`),
 * with the operator's defaults: Prometheus 3 where no version is said, a 30s scrape interval.
 */
export function prometheusFields(spec: Obj): PrometheusFields {
  const image = typeof spec.image === 'string' ? spec.image.split(':').at(-1) : text((spec.image ?? {}) as Obj, 'tag');
  return {
    version: promVersion(text(spec, 'version') || image || '') ?? [3, 0, 0],
    scrapeInterval: text(spec, 'scrapeInterval') || '30s',
    scrapeClasses: ((spec.scrapeClasses ?? []) as Obj[]).map((c) => (typeof c?.name === 'string' ? c.name : '')),
    denyFileAccess: dig(spec, ['arbitraryFSAccessThroughSMs', 'deny']) === true,
  };
}

/** The PromQL features a Prometheus spec's enableFeatures turn on: the operator's check of a rule it loads, the queries it runs. */
export function prometheusFeatures(spec: Obj): PromqlFeatures {
  return featuresOf(Array.isArray(spec.enableFeatures) ? spec.enableFeatures.filter((f): f is string => typeof f === 'string') : []);
}
