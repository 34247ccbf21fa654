/**
 * ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1) as the API
 * server runs it on a create: each binding selects its policy; the policy's
 * matchConstraints and the binding's matchResources select objects by API
 * group, version, resource, operation, namespace labels and object labels;
 * matchConditions gate it; its validations are CEL over `object`,
 * `oldObject` (null on a create), `request`, `namespaceObject` and
 * `variables` and `params` (the resources of its paramKind the binding's
 * paramRef finds, each judged on its own; none found is what
 * parameterNotFoundAction says), and the binding's validationActions say
 * what a failure does. An expression this evaluator cannot read, or one
 * that reads an authorizer decision, is not judged.
 */
import { AUTHORIZER, AUTHORIZER_DECISION_UNKNOWN, AUTHORIZER_DECISIONS, NOT_JUDGED_MARK } from './authorizer.ts';
import type { CelInput } from '@bufbuild/cel';
import { compileRule, evaluateMetered, type NotJudged } from './crd-rules.ts';
import { toCel } from './to-cel.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';

type Obj = Record<string, any>;

export interface PolicyTarget {
  apiVersion: string;
  kind: string;
  /** The resource's plural name (`deployments`), as the rules name it. */
  resource: string;
  namespace?: string;
  object: Obj;
  /** The labels of the namespace it lands in, and the Namespace object. */
  namespaceObject?: Obj;
}

export interface PolicyDecision {
  policy: string;
  binding: string;
  actions: string[];
  message: string;
}

export interface PolicyCoverage {
  found: number;
  compiled: number;
  notJudged: (NotJudged & { crd: string })[];
}

const anyOf = (list: unknown, value: string) => Array.isArray(list) && (list.includes('*') || list.includes(value));

function ruleMatches(rule: Obj, t: PolicyTarget): boolean {
  const [group, version] = t.apiVersion.includes('/') ? t.apiVersion.split('/') : ['', t.apiVersion];
  const scope = rule.scope ?? '*';
  const namespaced = t.namespace !== undefined;
  return (
    anyOf(rule.apiGroups, group!) &&
    anyOf(rule.apiVersions, version!) &&
    anyOf(rule.resources, t.resource) &&
    anyOf(rule.operations, 'CREATE') &&
    (scope === '*' || (scope === 'Namespaced') === namespaced)
  );
}

/** matchConstraints or matchResources: rules, exclusions and selectors. */
function resourcesMatch(match: Obj | undefined, t: PolicyTarget, required: boolean): boolean {
  if (!match) return !required;
  const rules = (match.resourceRules ?? []) as Obj[];
  if (rules.length && !rules.some((r) => ruleMatches(r, t))) return false;
  if (!rules.length && required) return false;
  if (((match.excludeResourceRules ?? []) as Obj[]).some((r) => ruleMatches(r, t))) return false;
  if (t.namespace !== undefined && !selectorMatches(match.namespaceSelector, t.namespaceObject?.metadata?.labels)) return false;
  return selectorMatches(match.objectSelector, t.object.metadata?.labels);
}

/**
 * One expression's outcome: its value, an error (what failurePolicy decides: a refused compile, a failed evaluation,
 * the per-call cost limit), or nothing when this evaluator cannot judge it (counted by policyCoverage).
 */
type Outcome = { value: unknown } | { error: string } | { notJudged: true };
function run(expr: string, vars: Record<string, CelInput>): Outcome {
  const c = compileRule(expr);
  if (!c.ok) return c.refused ? { error: c.why } : { notJudged: true };
  const r = evaluateMetered(() => c.evaluate(vars));
  if (r.overLimit) return { error: 'operation cancelled: actual cost limit exceeded' };
  // A decision of the cluster's authorizers is not the gate's to give (authorizer.ts).
  if (r.value instanceof Error && r.value.message.includes(NOT_JUDGED_MARK)) return { notJudged: true };
  if (r.value instanceof Error) return { error: r.value.message };
  return { value: r.value };
}
const evaluate = (expr: string, vars: Record<string, CelInput>): unknown => {
  const o = run(expr, vars);
  return 'value' in o ? o.value : undefined;
};

/** A parameter resource, as the binding's paramRef finds it: its object, and the namespace it lives in (none when cluster-scoped). */
export interface PolicyParam {
  object: Obj;
  namespace?: string;
}

/** Finds the resources of a policy's paramKind (apiVersion and kind) the cluster will have. */
export type ParamLookup = (apiVersion: string, kind: string) => readonly PolicyParam[];

/**
 * The parameters a binding gives a policy for this object (paramRef: by name or by selector, in its namespace,
 * else the object's own for a namespaced kind); undefined when the policy takes none.
 */
function paramsFor(policy: Obj, binding: Obj, t: PolicyTarget, lookup: ParamLookup): PolicyParam[] | undefined {
  const kind = policy.spec?.paramKind as Obj | undefined;
  if (!kind) return undefined;
  const ref = (binding.spec?.paramRef ?? {}) as Obj;
  return lookup(String(kind.apiVersion), String(kind.kind)).filter((p) => {
    const namespace = (ref.namespace as string | undefined) ?? t.namespace;
    if (p.namespace !== undefined && p.namespace !== namespace) return false;
    if (typeof ref.name === 'string') return p.object.metadata?.name === ref.name;
    return ref.selector !== undefined && selectorMatches(ref.selector as Obj, (p.object.metadata?.labels ?? {}) as Obj);
  });
}

/**
 * The bindings through which these policies reach an object being created (matchConstraints, then the binding's
 * matchResources): what a MutatingAdmissionPolicy would change of it, before any validation.
 */
export function matchedBindings(policies: readonly Obj[], bindings: readonly Obj[], t: PolicyTarget): { policy: string; binding: string }[] {
  return bindings.flatMap((binding) => {
    const policy = policies.find((p) => p.metadata?.name === binding.spec?.policyName);
    if (!policy || !resourcesMatch(policy.spec?.matchConstraints, t, true) || !resourcesMatch(binding.spec?.matchResources, t, false)) return [];
    return [{ policy: String(policy.metadata?.name), binding: String(binding.metadata?.name) }];
  });
}

/** Every decision of these policies and bindings on one object being created; `lookup` finds their parameters. */
export function policyDecisions(policies: readonly Obj[], bindings: readonly Obj[], t: PolicyTarget, lookup: ParamLookup = () => []): PolicyDecision[] {
  const out: PolicyDecision[] = [];
  for (const binding of bindings) {
    const policy = policies.find((p) => p.metadata?.name === binding.spec?.policyName);
    if (!policy) continue;
    if (!resourcesMatch(policy.spec?.matchConstraints, t, true) || !resourcesMatch(binding.spec?.matchResources, t, false)) continue;
    const params = paramsFor(policy, binding, t, lookup);
    const actions: string[] = binding.spec?.validationActions ?? [];
    if (params?.length === 0) {
      // No parameter found: parameterNotFoundAction decides (the API server's words when it denies).
      if (binding.spec?.paramRef?.parameterNotFoundAction === 'Deny')
        out.push({
          policy: policy.metadata?.name,
          binding: binding.metadata?.name,
          actions,
          message: 'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction',
        });
      continue;
    }
    // With parameters, each is judged on its own, as the API server evaluates the policy once per param.
    for (const param of params ?? [undefined]) out.push(...judge(t, param, { policy, binding, actions }));
  }
  return out;
}

/** One policy, through one binding, with one parameter (or none), on the object. */
function judge(
  t: PolicyTarget,
  param: PolicyParam | undefined,
  { policy, binding, actions }: { policy: Obj; binding: Obj; actions: string[] },
): PolicyDecision[] {
  const out: PolicyDecision[] = [];
  const vars: Record<string, CelInput> = {
    object: toCel(t.object, undefined),
    oldObject: null,
    params: param ? toCel(param.object, undefined) : null,
    authorizer: AUTHORIZER,
    namespaceObject: toCel(t.namespaceObject ?? null, undefined),
    request: toCel(
      {
        operation: 'CREATE',
        kind: { group: t.apiVersion.includes('/') ? t.apiVersion.split('/')[0] : '', version: t.apiVersion.split('/').pop(), kind: t.kind },
        resource: { resource: t.resource },
        name: t.object.metadata?.name ?? '',
        namespace: t.namespace ?? '',
        dryRun: false,
      },
      undefined,
    ),
  };
  const variables = new Map<string, CelInput>();
  for (const v of (policy.spec?.variables ?? []) as Obj[])
    variables.set(v.name, (evaluate(v.expression, { ...vars, variables: variables as unknown as CelInput }) ?? null) as CelInput);
  vars.variables = variables as unknown as CelInput;
  const decide = (message: string) => out.push({ policy: policy.metadata?.name, binding: binding.metadata?.name, actions, message });
  // An error in a match condition or a validation is decided by failurePolicy (Fail unless it says Ignore).
  const ignoreErrors = policy.spec?.failurePolicy === 'Ignore';
  for (const m of (policy.spec?.matchConditions ?? []) as Obj[]) {
    const o = run(m.expression, vars);
    if ('error' in o) {
      if (!ignoreErrors) decide(`failed to evaluate the matchCondition "${m.name ?? m.expression}": ${o.error}`);
      return out;
    }
    if ('notJudged' in o || o.value !== true) return out;
  }
  for (const v of (policy.spec?.validations ?? []) as Obj[]) {
    const o = run(v.expression, vars);
    if ('notJudged' in o) continue;
    if ('value' in o && o.value === true) continue;
    const failed = 'error' in o || typeof o.value !== 'boolean';
    if (failed && ignoreErrors) continue;
    let message: string = v.message ?? `failed expression: ${v.expression}`;
    if (failed) message = `the expression "${v.expression}" fails to evaluate: ${'error' in o ? o.error : `it gives ${String(o.value)}, not a bool`}`;
    else if (v.messageExpression) {
      const m = evaluate(v.messageExpression, vars);
      if (typeof m === 'string' && m.trim() !== '') message = m;
    }
    decide(message);
  }
  return out;
}

/** How many of the policies' expressions this evaluator judges. */
export function policyCoverage(policies: readonly Obj[]): PolicyCoverage {
  const coverage: PolicyCoverage = { found: 0, compiled: 0, notJudged: [] };
  for (const p of policies) {
    const name = `ValidatingAdmissionPolicy ${String(p.metadata?.name)}`;
    const expressions = [
      ...((p.spec?.validations ?? []) as Obj[]).map((v) => v.expression),
      ...((p.spec?.matchConditions ?? []) as Obj[]).map((m) => m.expression),
      ...((p.spec?.variables ?? []) as Obj[]).map((v) => v.expression),
    ].filter((e): e is string => typeof e === 'string');
    for (const expr of expressions) {
      coverage.found++;
      const c = compileRule(expr);
      if (c.ok && AUTHORIZER_DECISIONS.some((d) => c.calls.has(d)))
        coverage.notJudged.push({ crd: name, at: 'spec', rule: expr, why: AUTHORIZER_DECISION_UNKNOWN.replace(NOT_JUDGED_MARK, '') });
      else if (c.ok) coverage.compiled++;
      // A refused expression is an error on every object the policy matches: failurePolicy decides, and the check reports it.
      else if (!c.refused) coverage.notJudged.push({ crd: name, at: 'spec', rule: expr, why: c.why });
    }
  }
  return coverage;
}

/** The plural resource name of a built-in kind, as API rules name it. */
export function builtinResourceName(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower === 'endpoints') return lower;
  if (/(s|x|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
