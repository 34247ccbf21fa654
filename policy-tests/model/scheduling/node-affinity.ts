/**
 * Whether a node takes a pod, as the scheduler's NodeAffinity and TaintToleration filters ask it: component-helpers'
 * nodeaffinity (`GetRequiredNodeAffinity(pod).Match(node)`: the nodeSelector's labels, then the required terms ORed,
 * each term's requirements ANDed through apimachinery's labels.Requirement, an empty term matching nothing, a term
 * the selector cannot parse skipped) and core/v1's `Toleration.ToleratesTaint` (read in core/workloads.ts, beside the
 * control-plane taint it is most asked of). A node is its labels and its name;
 * a label or a name the caller cannot know makes the answer 'unknown' rather than a guess.
 */
import { list, obj as dictOf } from '../core/dig.ts';
import { perObject } from '../core/per-object.ts';
import { toleratesTaint } from '../core/workloads.ts';
import { labelValue, qualifiedName } from './label-syntax.ts';

export { toleratesTaint };

/** Whether a pod fits a node: surely, surely not, or not known from what the caller knows of the node. */
export type Fit = 'yes' | 'no' | 'unknown';

export const both = (a: Fit, b: Fit): Fit => (a === 'no' || b === 'no' ? 'no' : a === 'unknown' || b === 'unknown' ? 'unknown' : 'yes');
export const either = (a: Fit, b: Fit): Fit => (a === 'yes' || b === 'yes' ? 'yes' : a === 'unknown' || b === 'unknown' ? 'unknown' : 'no');

export interface NodeView {
  labels: Readonly<Record<string, string>>;
  /** The node's name; undefined where it is not known (it differs from node to node). */
  name: string | undefined;
  /** Whether a label key's value is not known on this node (written per node, or by a program the facts do not cover). */
  unknownLabel?: (key: string) => boolean;
}

type Obj = Record<string, any>;
/** A field's object as the code below reads it (an absent or odd one as empty). */
const obj = dictOf as (v: unknown) => Obj;
const strings = (v: unknown): string[] => list(v).map((x) => (typeof x === 'string' ? x : String(x)));

/** strconv.ParseInt(s, 10, 64): a sign, decimal digits, within int64. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** A place and what is wrong there, as field.Error gives it. */
export interface SelectorError {
  type: 'Invalid' | 'NotSupported';
  field: string;
  detail: string;
}

const LABEL_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];

/** nodeSelectorRequirementsAsSelector's errors for one requirement: its operator, then labels.NewRequirement's. */
function requirementErrors(req: Obj, at: string): SelectorError[] {
  const op = typeof req.operator === 'string' ? req.operator : '';
  if (!LABEL_OPERATORS.includes(op)) return [{ type: 'NotSupported', field: `${at}.operator`, detail: LABEL_OPERATORS.map((o) => `"${o}"`).join(', ') }];
  const key = typeof req.key === 'string' ? req.key : '';
  const values = strings(req.values);
  const out: SelectorError[] = [];
  const keyProblem = qualifiedName(key);
  if (keyProblem) out.push({ type: 'Invalid', field: `${at}.key`, detail: keyProblem });
  const invalid = (field: string, detail: string) => out.push({ type: 'Invalid', field, detail });
  if ((op === 'In' || op === 'NotIn') && values.length === 0) invalid(`${at}.values`, "for 'in', 'notin' operators, values set can't be empty");
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length !== 0) invalid(`${at}.values`, 'values set must be empty for exists and does not exist');
  if (op === 'Gt' || op === 'Lt') {
    if (values.length !== 1) invalid(`${at}.values`, "for 'Gt', 'Lt' operators, exactly one value is required");
    values.forEach((v, i) => parseInt64(v) === undefined && invalid(`${at}.values[${i}]`, "for 'Gt', 'Lt' operators, the value must be an integer"));
  }
  values.forEach((v, i) => {
    const problem = labelValue(v);
    if (problem) invalid(`${at}.values[${i}]`, problem);
  });
  return out;
}

/** nodeSelectorRequirementsAsFieldSelector's errors: In or NotIn, with exactly one value. */
function fieldRequirementErrors(req: Obj, at: string): SelectorError[] {
  if (req.operator !== 'In' && req.operator !== 'NotIn') return [{ type: 'NotSupported', field: `${at}.operator`, detail: '"In", "NotIn"' }];
  return strings(req.values).length === 1 ? [] : [{ type: 'Invalid', field: `${at}.values`, detail: 'must have one element' }];
}

/** A term's parse errors (newNodeSelectorTerm): its label requirements', then its field requirements'. */
function termErrors(term: Obj, at: string): SelectorError[] {
  return [
    ...list(term.matchExpressions).flatMap((r, j) => requirementErrors(obj(r), `${at}.matchExpressions[${j}]`)),
    ...list(term.matchFields).flatMap((r, j) => fieldRequirementErrors(obj(r), `${at}.matchFields[${j}]`)),
  ];
}

/** NewNodeSelector's errors: every non-empty term's, by its place. */
export function nodeSelectorErrors(selector: unknown): SelectorError[] {
  return list(obj(selector).nodeSelectorTerms).flatMap((t, i) => (isEmptyTerm(obj(t)) ? [] : termErrors(obj(t), `nodeSelectorTerms[${i}]`)));
}

const isEmptyTerm = (term: Obj): boolean => list(term.matchExpressions).length === 0 && list(term.matchFields).length === 0;

/** Whether a term parses, asked once per term however many nodes it is matched against. */
const termParses = perObject((term: Obj): boolean => termErrors(term, '').length === 0);

/** labels.Requirement.Matches, on a requirement that parsed. */
export function requirementFits(req: Obj, node: NodeView, unknownKeys?: Set<string>): Fit {
  const key = typeof req.key === 'string' ? req.key : '';
  if (node.unknownLabel?.(key)) {
    unknownKeys?.add(key);
    return 'unknown';
  }
  const has = Object.hasOwn(node.labels, key);
  const value = node.labels[key];
  const values = strings(req.values);
  switch (req.operator) {
    case 'In':
      return has && values.includes(value!) ? 'yes' : 'no';
    case 'NotIn':
      return has && values.includes(value!) ? 'no' : 'yes';
    case 'Exists':
      return has ? 'yes' : 'no';
    case 'DoesNotExist':
      return has ? 'no' : 'yes';
    default: {
      const [mine, theirs] = [has ? parseInt64(value!) : undefined, values.length === 1 ? parseInt64(values[0]!) : undefined];
      if (mine === undefined || theirs === undefined) return 'no';
      return (req.operator === 'Gt' ? mine > theirs : mine < theirs) ? 'yes' : 'no';
    }
  }
}

/** A field requirement (a node's fields are its name alone): unknown where the name is. */
function fieldFits(req: Obj, node: NodeView, unknownKeys?: Set<string>): Fit {
  const key = typeof req.key === 'string' ? req.key : '';
  if (key === 'metadata.name' && node.name === undefined) {
    unknownKeys?.add(key);
    return 'unknown';
  }
  const value = key === 'metadata.name' ? node.name! : '';
  const equal = value === strings(req.values)[0];
  return (req.operator === 'In' ? equal : !equal) ? 'yes' : 'no';
}

/** LazyErrorNodeSelector.Match: the terms ORed; an empty term or one that does not parse matches nothing. */
export function nodeSelectorTermsFit(terms: unknown, node: NodeView, unknownKeys?: Set<string>): Fit {
  let fit: Fit = 'no';
  for (const term of list(terms).map(obj)) {
    if (isEmptyTerm(term) || !termParses(term)) continue;
    let termFit: Fit = 'yes';
    for (const e of list(term.matchExpressions)) termFit = both(termFit, requirementFits(obj(e), node, unknownKeys));
    // A node without a name has no fields, and its field requirements are passed over (nodeSelectorTerm.match).
    if (node.name !== '') for (const f of list(term.matchFields)) termFit = both(termFit, fieldFits(obj(f), node, unknownKeys));
    fit = either(fit, termFit);
  }
  return fit;
}

/** GetRequiredNodeAffinity(pod).Match(node): the nodeSelector's labels, and the required node affinity's terms. */
export function requiredNodeAffinityFits(spec: unknown, node: NodeView, unknownKeys?: Set<string>): Fit {
  const s = obj(spec);
  let fit: Fit = 'yes';
  for (const [key, value] of Object.entries(obj(s.nodeSelector))) fit = both(fit, requirementFits({ key, operator: 'In', values: [value] }, node, unknownKeys));
  const required = obj(obj(obj(s.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution);
  if (obj(obj(s.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution)
    fit = both(fit, nodeSelectorTermsFit(required.nodeSelectorTerms, node, unknownKeys));
  return fit;
}

/** FindMatchingUntoleratedTaint: the first taint the filter keeps that no toleration tolerates, or undefined. */
export function untoleratedTaint(taints: unknown, tolerations: unknown, keep: (taint: Obj) => boolean = () => true): Obj | undefined {
  return list(taints)
    .map(obj)
    .find((taint) => keep(taint) && !list(tolerations).some((t) => toleratesTaint(t, taint)));
}
