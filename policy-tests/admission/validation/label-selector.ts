/**
 * apimachinery's ValidateLabelSelector (k8s.io/apimachinery pkg/apis/meta/v1/validation), and where each built-in
 * kind's validation hands a selector to it: a NetworkPolicy's pod selector and peers, a PodDisruptionBudget's and a
 * claim's selector, a webhook's namespace and object selectors, an aggregated ClusterRole's selectors. Judged as
 * a create judges them (AllowInvalidLabelValueInSelector off), since Argo CD's first sync creates each object.
 */
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import { validateLabels } from './metadata.ts';
import { labelValue, qualifiedName } from './syntax.ts';

type Obj = Record<string, any>;

/** A label key where a selector or a topology names one (ValidateLabelName). */
export function labelKeyProblem(key: unknown, at: PathSegment[], fn: string, what: string): Invalid[] {
  const bad = typeof key === 'string' ? qualifiedName(key) : 'must be a string';
  return bad ? [{ path: at, fn, message: `${what} "${String(key)}": ${bad}` }] : [];
}

/** ValidateLabelSelector: its labels, and each requirement's key, operator and values. */
export function labelSelectorProblems(selector: unknown, at: PathSegment[], what: string): Invalid[] {
  if (!selector || typeof selector !== 'object') return [];
  const s = selector as Obj;
  const fn = 'ValidateLabelSelector';
  const out = validateLabels(s.matchLabels, [...at, 'matchLabels']);
  (list(s.matchExpressions) as Obj[]).forEach((r, i) => {
    const here = [...at, 'matchExpressions', i];
    const values = list(r?.values);
    if (r?.operator === 'In' || r?.operator === 'NotIn') {
      if (values.length === 0) out.push({ path: [...here, 'values'], fn, message: `${what}: values must be specified when \`operator\` is 'In' or 'NotIn'` });
    } else if (r?.operator === 'Exists' || r?.operator === 'DoesNotExist') {
      if (values.length > 0)
        out.push({ path: [...here, 'values'], fn, message: `${what}: values may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'` });
    } else out.push({ path: [...here, 'operator'], fn, message: `${what}: operator ${JSON.stringify(r?.operator)}: not a valid selector operator` });
    out.push(...labelKeyProblem(r?.key, [...here, 'key'], fn, `${what} key`));
    values.forEach((v, j) => {
      const bad = typeof v === 'string' ? labelValue(v) : 'must be a string';
      if (bad) out.push({ path: [...here, 'values', j], fn, message: `${what} value "${String(v)}": ${bad}` });
    });
  });
  return out;
}

/** Each selector found along a path whose `*` steps run over a list's items, with the path that reaches it. */
function selectorsAlong(o: unknown, steps: readonly string[], at: PathSegment[] = []): { selector: unknown; at: PathSegment[] }[] {
  const [step, ...rest] = steps;
  if (step === undefined) return o === undefined || o === null ? [] : [{ selector: o, at }];
  if (!o || typeof o !== 'object') return [];
  if (step === '*') return list(o).flatMap((item, i) => selectorsAlong(item, rest, [...at, i]));
  return selectorsAlong((o as Obj)[step], rest, [...at, step]);
}

const PEERS = (dir: 'ingress' | 'egress', side: 'from' | 'to') => ['podSelector', 'namespaceSelector'].map((field) => `spec.${dir}.*.${side}.*.${field}`);
const WEBHOOK_SELECTORS = ['webhooks.*.namespaceSelector', 'webhooks.*.objectSelector'];

/** The selector fields each kind's Validate<Kind> passes to ValidateLabelSelector (the workloads' are in workloads.ts). */
const SELECTOR_FIELDS: Record<string, readonly string[]> = {
  NetworkPolicy: ['spec.podSelector', ...PEERS('ingress', 'from'), ...PEERS('egress', 'to')],
  PodDisruptionBudget: ['spec.selector'],
  PersistentVolumeClaim: ['spec.selector'],
  ValidatingWebhookConfiguration: WEBHOOK_SELECTORS,
  MutatingWebhookConfiguration: WEBHOOK_SELECTORS,
  ClusterRole: ['aggregationRule.clusterRoleSelectors.*'],
};

/** The same paths as steps, split once. */
const SELECTOR_STEPS: Record<string, readonly string[][]> = Object.fromEntries(
  Object.entries(SELECTOR_FIELDS).map(([kind, paths]) => [kind, paths.map((p) => p.split('.'))]),
);

/** The field a selector stands in, for the message: the last named step of its path. */
const fieldName = (at: readonly PathSegment[]): string => String([...at].reverse().find((s) => typeof s === 'string'));

/** What ValidateLabelSelector refuses in the selectors this kind's validation hands it. */
export function kindSelectorProblems(kind: string, o: Obj): Invalid[] {
  return (SELECTOR_STEPS[kind] ?? []).flatMap((steps) =>
    selectorsAlong(o, steps).flatMap(({ selector, at }) => labelSelectorProblems(selector, at, fieldName(at))),
  );
}
