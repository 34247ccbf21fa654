/**
 * CRD validation rules (`x-kubernetes-validations`) evaluated as the API
 * server evaluates them on a create: each rule at its schema node, with
 * `self` bound to that node's value after structural defaulting, typed by
 * the schema (integer → int, number → double, format duration → duration,
 * date-time and date → timestamp, byte → bytes, int-or-string → int or
 * string; a property name that is not a CEL identifier by its escaped
 * spelling, escaping.ts). A rule the API server would refuse at CRD create
 * is refused (crd-accepted); one that calls a function the cluster declares
 * but this evaluator lacks is not judged, and says so; it never passes
 * silently. Each evaluation is metered (budget.ts). Transition
 * rules (on `oldSelf`) are judged only between an old and a new object.
 */
import { asDefaulted } from '../../schema/structural-defaults.ts';
import type { CelInput } from '@bufbuild/cel';
import type { PathSegment } from '../../model/core/positions.ts';
import { celRuntime, isCelError, scan, type Cel } from './runtime.ts';
import { InvalidData, toCel } from './to-cel.ts';
import type { JsonSchemaNode, ValidationRule } from './schema-node.ts';
import { rewriteTwoVariable } from './two-variable.ts';
import { checkTypes } from './cel-type-check.ts';
import { expandTwoVariableMacros } from './two-variable-macros.ts';
import { estimateCost } from './cost-estimator.ts';
import { declType } from './decl-type.ts';
import { overloadProblems } from './overloads.ts';
import { hasOptionalEntries, optionalCalls, rewriteOptionalSyntax } from './optional-syntax.ts';
import { re2Problem } from '../../model/core/re2.ts';
import { CEL_KUBERNETES_MINOR, declaredFunctions } from './environment.ts';
import { outcomeStore, packageVersion } from '../../model/stores/outcome-store.ts';
import { BeyondEvaluator, CostLimitExceeded, PER_CALL_LIMIT, RUNTIME_BUDGET, metered } from './budget.ts';

export interface RuleViolation {
  path: PathSegment[];
  message: string;
  rule: string;
  /** Not a violation: the evaluation went where this evaluator does not (budget.ts BeyondEvaluator); `message` says why. */
  notJudged?: true;
}

export interface NotJudged {
  /** The schema path of the rule, as `.spec.provider`. */
  at: string;
  rule: string;
  why: string;
}

/**
 * A rule compiled, or why not: `refused` when the API server refuses it too (it does not parse, calls what the
 * cluster does not declare, or holds a constant pattern RE2 cannot compile), otherwise not judged (the cluster has
 * the function, this evaluator does not).
 */
type Compiled =
  | { ok: true; transition: boolean; calls: ReadonlySet<string>; expr: ReturnType<Cel['parse']>['expr']; evaluate: (vars: Record<string, CelInput>) => unknown }
  | { ok: false; why: string; refused: boolean };

const compiled = new Map<string, Compiled>();

/**
 * What a compile or an evaluation gave before (model/stores/outcome-store.ts), keyed by the evaluator's make-up (its
 * version and this folder's code, the Kubernetes libraries among it) and every input: a warm run whose rules
 * and objects are unchanged never loads the CEL runtime.
 */
const celOutcomes = outcomeStore<CompileOutcome | { message: string | null; cost: number; overLimit: boolean } | RuleAtNode>(
  'cel',
  // The gate's code and Node's version join every key (outcome-store.ts); the engines are named here.
  () => `${packageVersion('@bufbuild/cel')}\0${packageVersion('@bufbuild/re2')}`,
);

export interface CompileOutcome {
  ok: boolean;
  transition?: boolean;
  why?: string;
  /** The API server refuses it too, so its CRD or policy is refused: a finding, not "not judged". */
  refused?: boolean;
}

/** Whether a rule compiles here (and reads oldSelf), without the runtime when an earlier run found out. */
export function compileOutcome(text: string): CompileOutcome {
  const key = ['compile', text];
  const known = celOutcomes.get(key) as CompileOutcome | undefined;
  if (known) return known;
  const c = compileRule(text);
  const outcome: CompileOutcome = c.ok ? { ok: true, transition: c.transition } : { ok: false, why: c.why, refused: c.refused };
  celOutcomes.set(key, outcome);
  return outcome;
}

/** A rule parsed, its optional syntax (`.?`, `[?`) made the engine's calls (optional-syntax.ts). */
function parseRule(cel: Cel, text: string): ReturnType<Cel['parse']> {
  const parsed = cel.parse(rewriteOptionalSyntax(text) ?? text);
  // Also without the syntax: a selection on optional.of(...) stays optional.
  parsed.expr = optionalCalls(cel, parsed.expr!);
  return parsed;
}

/** Every function (and namespaced function) name this evaluator implements. */
export function implementedFunctions(): ReadonlySet<string> {
  return celRuntime().known;
}

/** Compiles a rule once per process: parsed, every call known, planned. */
export function compileRule(text: string): Compiled {
  let c = compiled.get(text);
  if (c) return c;
  const { cel, env, known } = celRuntime();
  let parsed: ReturnType<Cel['parse']>;
  try {
    parsed = parseRule(cel, text);
  } catch (err) {
    // Optional list and map entries are the cluster's syntax, not this parser's: not judged.
    c = hasOptionalEntries(text)
      ? { ok: false, why: 'writes optional list or map entries ([?x], {?k: v}), which this evaluator does not parse', refused: false }
      : { ok: false, why: `compilation failed: ${(err as Error).message.split('\n')[0]}`, refused: true };
    compiled.set(text, c);
    return c;
  }
  const calls = new Set<string>();
  const idents = new Set<string>();
  const patterns = new Set<string>();
  scan(parsed.expr, calls, idents, patterns);
  const declared = declaredFunctions(CEL_KUBERNETES_MINOR);
  const undeclared = [...calls].filter((f) => !known.has(f) && !declared.has(f) && !declared.has(f.split('.').pop()!));
  // The rule as written decides what is declared; what the engine runs is the rule with its two-variable
  // comprehensions made one-variable macros (two-variable.ts).
  parsed.expr = rewriteTwoVariable(cel, parsed.expr!);
  const evaluated = new Set<string>();
  scan(parsed.expr, evaluated, new Set(), new Set());
  const unknown = [...evaluated].filter((f) => !known.has(f));
  const badPattern = [...patterns].map((p) => [p, re2Problem(p)] as const).find(([, problem]) => problem);
  const overload = overloadProblems(parsed.expr!)[0];
  if (overload) c = { ok: false, why: `compilation failed: ${overload}`, refused: true };
  else if (undeclared.length) c = { ok: false, why: `compilation failed: undeclared reference to '${undeclared.join("', '")}'`, refused: true };
  else if (badPattern)
    c = {
      ok: false,
      why: `compilation failed: invalid regex pattern ${JSON.stringify(badPattern[0])}: ${badPattern[1]} (the API server compiles patterns with RE2)`,
      refused: true,
    };
  else if (unknown.length) c = { ok: false, why: `calls ${unknown.join(', ')}, which this evaluator does not implement`, refused: false };
  else {
    try {
      const program = cel.plan(env, parsed);
      c = { ok: true, transition: idents.has('oldSelf'), calls, expr: parsed.expr, evaluate: (vars) => program(vars as never) };
    } catch (err) {
      c = { ok: false, why: `this evaluator cannot plan it: ${(err as Error).message.split('\n')[0]}`, refused: false };
    }
  }
  compiled.set(text, c);
  return c;
}

/** What one evaluation gave, under the per-call limit: its value, its cost, and whether it ran out. */
export function evaluateMetered(evaluate: () => unknown): { value: unknown; cost: number; overLimit: boolean; beyond?: string } {
  try {
    const { value, cost, beyond } = metered(evaluate);
    // The engine turns an exception inside a function into an error value, and may go on: the count decides.
    return { value, cost, overLimit: cost > PER_CALL_LIMIT, ...(beyond ? { beyond } : {}) };
  } catch (err) {
    if (err instanceof CostLimitExceeded) return { value: undefined, cost: PER_CALL_LIMIT + 1, overLimit: true };
    if (err instanceof BeyondEvaluator) return { value: undefined, cost: 0, overLimit: false, beyond: err.message };
    throw err;
  }
}

/** `.spec.foo['bar'][0]` → ['spec', 'foo', 'bar', 0] */
function fieldPathSegments(fieldPath: string): PathSegment[] {
  const out: PathSegment[] = [];
  const re = /\.([A-Za-z0-9_$-]+)|\['([^']*)'\]|\[(\d+)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(fieldPath))) out.push(m[1] ?? m[2] ?? Number(m[3]));
  return out;
}

const REASONS: Record<string, string> = {
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueInvalid: 'Invalid value',
};

/**
 * The rules of `schema` a create of `object` breaks. With `old`, transition
 * rules are judged too (an update); without it they are skipped, as on a
 * create. `transition` keeps only the rules on `oldSelf`: what an update adds
 * to a create.
 */
export function ruleViolations(schema: JsonSchemaNode, object: unknown, old?: unknown, only: 'all' | 'transition' = 'all'): RuleViolation[] {
  const out: RuleViolation[] = [];
  // Most CRDs carry no rule at all, and most subtrees of the rest none either: they are not walked.
  if (!hasRules(schema)) return out;
  // The API server's budget for the whole object; a rule over its per-call limit, or the budget spent, stops the rest.
  let remaining = RUNTIME_BUDGET;
  let stopped = false;
  const walk = (s: JsonSchemaNode, value: unknown, oldValue: unknown, path: PathSegment[]) => {
    if (stopped || value === undefined || value === null || !hasRules(s)) return;
    for (const r of s['x-kubernetes-validations'] ?? []) {
      const c = compileOutcome(r.rule);
      if (!c.ok) continue;
      // No old value (absent, or null) and the rule reads oldSelf: the API server skips it.
      if (c.transition && (oldValue === undefined || oldValue === null)) continue;
      if (only === 'transition' && !c.transition) continue;
      const outcome = ruleMessage(r, s, value, c.transition ? oldValue : undefined);
      remaining -= outcome.cost;
      if (outcome.overLimit || remaining < 0) {
        const message = outcome.overLimit
          ? `Invalid value: 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${r.rule}`
          : 'Invalid value: validation failed due to running out of cost budget, no further validation rules will be run';
        out.push({ path, message, rule: r.rule });
        stopped = true;
        return;
      }
      if (outcome.beyond) out.push({ path, message: outcome.beyond, rule: r.rule, notJudged: true });
      if (outcome.message === null) continue;
      out.push({ path: r.fieldPath ? [...path, ...fieldPathSegments(r.fieldPath)] : path, message: outcome.message, rule: r.rule });
    }
    if (Array.isArray(value)) {
      if (s.items) value.forEach((v, i) => walk(s.items!, v, Array.isArray(oldValue) ? oldValue[i] : undefined, [...path, i]));
      return;
    }
    if (typeof value !== 'object') return;
    const o = value as Record<string, unknown>;
    const oldO = oldValue && typeof oldValue === 'object' ? (oldValue as Record<string, unknown>) : undefined;
    for (const [k, v] of Object.entries(o)) {
      const sub = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      if (sub) walk(sub, v, oldO?.[k], [...path, k]);
    }
  };
  // The object as the API server holds it when the rules run: non-nullable nulls pruned, then defaulted (schema/structural-defaults.ts).
  walk(schema, asDefaulted(object, schema as Record<string, unknown>), old === undefined ? undefined : asDefaulted(old, schema as Record<string, unknown>), []);
  return out;
}

/** Whether a schema node or any node under it carries a rule, once per node. */
const ruled = new WeakMap<JsonSchemaNode, boolean>();
function hasRules(s: JsonSchemaNode): boolean {
  let known = ruled.get(s);
  if (known === undefined) {
    ruled.set(s, false); // a schema that refers to itself holds no rule through that loop
    const additional = typeof s.additionalProperties === 'object' ? [s.additionalProperties] : [];
    known =
      (s['x-kubernetes-validations'] ?? []).length > 0 ||
      [...Object.values(s.properties ?? {}), ...(s.items ? [s.items] : []), ...additional].some((sub) => hasRules(sub));
    ruled.set(s, known);
  }
  return known;
}

/** A schema node as JSON, once per node: a rule on a CRD's root would stringify the whole schema for every object. */
const schemaTexts = new WeakMap<JsonSchemaNode, string>();
function schemaJson(s: JsonSchemaNode): string {
  let text = schemaTexts.get(s);
  if (text === undefined) schemaTexts.set(s, (text = JSON.stringify(s)));
  return text;
}

interface RuleOutcome {
  message: string | null;
  cost: number;
  overLimit: boolean;
  /** Why the evaluation is not judged (then `message` is null). */
  beyond?: string;
}

/**
 * The message of a rule a value breaks, or null when it holds, with what the evaluation cost: evaluated once per
 * rule, schema node and value across runs.
 */
/** What the API server's CRD create makes of a rule at its schema node beyond its compile. */
export interface RuleAtNode {
  /** The type check's refusals (cel-type-check.ts). */
  typeProblems: string[];
  /** cel-go's estimated maximum cost (cost-estimator.ts). */
  estimatedCost: number;
  /** Why the estimate is not the API server's (what the type check could not type), when it is not. */
  costNotJudged?: string;
  /** The type the expression evaluates to, when the check typed all of it and it is not dyn (bool, string, int, list...). */
  resultType?: string;
}

/** The type check and the estimated cost of a rule at its node, kept by rule and node so a warm run does not load the CEL runtime. */
export function ruleAtNode(text: string, schema: JsonSchemaNode, isRoot = false): RuleAtNode {
  const key = ['rule-at-node', text, schemaJson(schema), String(isRoot)];
  const known = celOutcomes.get(key);
  if (known && 'estimatedCost' in known) return known;
  const c = compileRule(text);
  let outcome: RuleAtNode = { typeProblems: [], estimatedCost: 0 };
  if (c.ok) {
    // The rule as cel-go's parser expands it: its two-variable comprehensions as cel-go builds them, not as the evaluator runs them.
    const { cel } = celRuntime();
    const expr = expandTwoVariableMacros(cel, parseRule(cel, text).expr!);
    const self = declType(schema, isRoot);
    const checked = checkTypes(expr, self);
    const cost = estimateCost(expr, checked, self);
    outcome = { typeProblems: [...checked.problems], estimatedCost: Number(cost.max) };
    const result = checked.typeOf(expr);
    if (checked.untyped.length === 0 && result.kind !== 'dyn')
      outcome.resultType = result.kind === 'struct' || result.kind === 'opaque' ? result.name : result.kind;
    if (cost.untyped.length > 0) outcome.costNotJudged = `its estimated cost is not judged: this check does not type ${cost.untyped.join(', ')}`;
  }
  celOutcomes.set(key, outcome);
  return outcome;
}

/** A value as a store key: JSON, with an integer past a double's range (a bigint) written exactly. */
const keyText = (value: unknown): string => JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? '';

function ruleMessage(r: ValidationRule, s: JsonSchemaNode, value: unknown, oldValue: unknown): RuleOutcome {
  const key = ['eval', JSON.stringify(r), schemaJson(s), keyText(value), keyText(oldValue)];
  const known = celOutcomes.get(key) as RuleOutcome | undefined;
  if (known && typeof known.cost === 'number') return known;
  const c = compileRule(r.rule) as Extract<Compiled, { ok: true }>;
  let vars: Record<string, CelInput>;
  try {
    vars = { self: toCel(value, s), ...(c.transition ? { oldSelf: toCel(oldValue, s) } : {}) };
  } catch (err) {
    if (!(err instanceof InvalidData)) throw err;
    const outcome: RuleOutcome = { message: `${REASONS[r.reason ?? 'FieldValueInvalid'] ?? r.reason}: ${err.message}`, cost: 0, overLimit: false };
    celOutcomes.set(key, outcome);
    return outcome;
  }
  const run = evaluateMetered(() => c.evaluate(vars));
  let message: string | null = null;
  if (run.beyond) {
    const outcome: RuleOutcome = { message: null, cost: run.cost, overLimit: false, beyond: run.beyond };
    celOutcomes.set(key, outcome);
    return outcome;
  }
  if (!run.overLimit && run.value !== true) {
    const reason = REASONS[r.reason ?? 'FieldValueInvalid'] ?? r.reason;
    message = r.message ?? `failed rule: ${r.rule}`;
    if (isCelError(run.value)) message = `${reason}: evaluation of the rule "${r.rule}" fails: ${(run.value as Error).message}`;
    else {
      if (r.messageExpression) {
        const m = compileRule(r.messageExpression);
        const text = m.ok ? evaluateMetered(() => m.evaluate(vars)).value : undefined;
        if (typeof text === 'string' && text.trim() !== '') message = text;
      }
      message = `${reason}: ${message}`;
    }
  }
  const outcome: RuleOutcome = { message, cost: run.cost, overLimit: run.overLimit };
  celOutcomes.set(key, outcome);
  return outcome;
}

/** Every rule under a schema, with its schema path, for coverage. */
export function rulesOf(schema: JsonSchemaNode, at = ''): { at: string; rule: ValidationRule }[] {
  const out = (schema['x-kubernetes-validations'] ?? []).map((rule) => ({ at: at || '.', rule }));
  for (const [k, sub] of Object.entries(schema.properties ?? {})) out.push(...rulesOf(sub, `${at}.${k}`));
  if (typeof schema.additionalProperties === 'object') out.push(...rulesOf(schema.additionalProperties, `${at}[*]`));
  if (schema.items) out.push(...rulesOf(schema.items, `${at}[]`));
  return out;
}

export interface RuleCoverage {
  found: number;
  compiled: number;
  notJudged: (NotJudged & { crd: string })[];
}

/** How many rules of these CRD schemas the evaluator can judge. */
export function ruleCoverage(schemas: readonly { crd: string; schema: JsonSchemaNode }[]): RuleCoverage {
  const coverage: RuleCoverage = { found: 0, compiled: 0, notJudged: [] };
  for (const { crd, schema } of schemas) {
    for (const { at, rule } of rulesOf(schema)) {
      coverage.found++;
      const c = compileOutcome(rule.rule);
      if (c.ok) coverage.compiled++;
      // A rule the API server refuses is a finding on its CRD (crd-accepted), not a gap of the evaluator.
      else if (!c.refused) coverage.notJudged.push({ crd, at, rule: rule.rule, why: c.why ?? 'does not compile' });
    }
  }
  return coverage;
}
