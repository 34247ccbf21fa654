/**
 * CRD validation rules (`x-kubernetes-validations`) evaluated as the API
 * server evaluates them on a create: each rule at its schema node, with
 * `self` bound to that node's value after structural defaulting, typed by
 * the schema (integer → int, number → double, format duration → duration,
 * date-time → timestamp, int-or-string → int or string). A rule that the
 * engine cannot compile, or that calls a function this evaluator does not
 * have, is not judged, and says so; it never passes silently. Transition
 * rules (on `oldSelf`) are judged only between an old and a new object.
 */
import { createRequire } from 'node:module';
import type { CelEnv, CelFunc, CelInput } from '@bufbuild/cel';
import type { PathSegment } from '../../model/positions.ts';
import { knownFunctions, kubernetesFunctions } from './kubernetes-library.ts';
import { outcomeStore, packageVersion } from '../../model/outcome-store.ts';

export interface JsonSchemaNode {
  type?: string | string[];
  format?: string;
  default?: unknown;
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: boolean | JsonSchemaNode;
  items?: JsonSchemaNode;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-validations'?: ValidationRule[];
  [key: string]: unknown;
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
  optionalOldSelf?: boolean;
}

export interface RuleViolation {
  path: PathSegment[];
  message: string;
  rule: string;
}

export interface NotJudged {
  /** The schema path of the rule, as `.spec.provider`. */
  at: string;
  rule: string;
  why: string;
}

type Compiled = { ok: true; transition: boolean; evaluate: (vars: Record<string, CelInput>) => unknown } | { ok: false; why: string };

type Cel = typeof import('@bufbuild/cel');
interface Runtime {
  cel: Cel;
  env: CelEnv;
  known: ReadonlySet<string>;
}
let runtime: Runtime | undefined;

/** The CEL runtime, loaded on first use: most gate runs have no custom resource with a rule, and loading it costs start-up. */
function celRuntime(): Runtime {
  if (!runtime) {
    const require = createRequire(import.meta.url);
    const cel = require('@bufbuild/cel') as Cel;
    const { strings } = require('@bufbuild/cel/ext') as { strings: CelFunc[] };
    const funcs = kubernetesFunctions(cel, strings);
    runtime = { cel, env: cel.celEnv({ funcs }), known: knownFunctions(funcs) };
  }
  return runtime;
}
const isCelError = (v: unknown): boolean => celRuntime().cel.isCelError(v);
const compiled = new Map<string, Compiled>();

/** Calls and identifiers of a parsed expression (protobuf-es messages), walked generically. */
function scan(node: unknown, calls: Set<string>, idents: Set<string>): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) scan(n, calls, idents);
    return;
  }
  const kind = (node as { exprKind?: { case?: string; value?: { function?: string; name?: string } } }).exprKind;
  if (kind?.case === 'callExpr' && kind.value?.function) calls.add(kind.value.function);
  if (kind?.case === 'identExpr' && kind.value?.name) idents.add(kind.value.name);
  for (const v of Object.values(node)) if (typeof v === 'object') scan(v, calls, idents);
}

/**
 * What a compile or an evaluation gave before (model/outcome-store.ts), keyed by the evaluator's make-up (its
 * version and this folder's code, the Kubernetes libraries among it) and every input: a warm run whose rules
 * and objects are unchanged never loads the CEL runtime.
 */
const celOutcomes = outcomeStore<{ ok: boolean; transition?: boolean; why?: string } | { message: string | null }>(
  'cel',
  // The gate's code and Node's version join every key (outcome-store.ts); the engines are named here.
  () => `${packageVersion('@bufbuild/cel')}\0${packageVersion('@bufbuild/re2')}`,
);

/** Whether a rule compiles here (and reads oldSelf), without the runtime when an earlier run found out. */
export function compileOutcome(text: string): { ok: boolean; transition?: boolean; why?: string } {
  const key = ['compile', text];
  const known = celOutcomes.get(key) as { ok: boolean; transition?: boolean; why?: string } | undefined;
  if (known) return known;
  const c = compileRule(text);
  const outcome = c.ok ? { ok: true, transition: c.transition } : { ok: false, why: c.why };
  celOutcomes.set(key, outcome);
  return outcome;
}

/** Compiles a rule once per process: parsed, every call known, planned. */
export function compileRule(text: string): Compiled {
  let c = compiled.get(text);
  if (c) return c;
  try {
    const { cel, env, known } = celRuntime();
    const parsed = cel.parse(text);
    const calls = new Set<string>();
    const idents = new Set<string>();
    scan(parsed.expr, calls, idents);
    const unknown = [...calls].filter((f) => !known.has(f));
    if (unknown.length) c = { ok: false, why: `calls ${unknown.join(', ')}, which this evaluator does not implement` };
    else {
      const program = cel.plan(env, parsed);
      c = { ok: true, transition: idents.has('oldSelf'), evaluate: (vars) => program(vars as never) };
    }
  } catch (err) {
    c = { ok: false, why: `does not compile: ${(err as Error).message.split('\n')[0]}` };
  }
  compiled.set(text, c);
  return c;
}

const types = (s: JsonSchemaNode): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

const durations = new Map<string, CelInput>();
function special(fn: 'duration' | 'timestamp', text: string): CelInput {
  const key = `${fn}:${text}`;
  let v = durations.get(key);
  if (v === undefined) {
    const r = celRuntime().cel.run(`${fn}(s)`, { s: text });
    v = isCelError(r) ? text : (r as CelInput);
    durations.set(key, v);
  }
  return v;
}

/** A JSON value as CEL sees it under this schema node. */
export function toCel(value: unknown, schema: JsonSchemaNode | undefined): CelInput {
  if (value === null || value === undefined) return null;
  const s = schema ?? {};
  if (typeof value === 'number') return (types(s).includes('number') && !s['x-kubernetes-int-or-string']) || !Number.isInteger(value) ? value : BigInt(value);
  if (typeof value === 'string') {
    if (s.format === 'duration') return special('duration', value);
    if (s.format === 'date-time') return special('timestamp', value);
    return value;
  }
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((v) => toCel(v, s.items));
  const out = new Map<string, CelInput>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const sub = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    out.set(k, toCel(v, sub));
  }
  return out as unknown as CelInput;
}

/** Structural defaulting: absent properties with a `default` get it, as the API server does before validation. */
export function withDefaults(value: unknown, schema: JsonSchemaNode | undefined): unknown {
  if (!schema || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return schema.items ? value.map((v) => withDefaults(v, schema.items)) : value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [k, sub] of Object.entries(schema.properties ?? {})) {
    if (out[k] === undefined && sub.default !== undefined) out[k] = structuredClone(sub.default);
    if (out[k] !== undefined) out[k] = withDefaults(out[k], sub);
  }
  if (typeof schema.additionalProperties === 'object')
    for (const k of Object.keys(out)) if (!schema.properties?.[k]) out[k] = withDefaults(out[k], schema.additionalProperties);
  return out;
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
  const walk = (s: JsonSchemaNode, value: unknown, oldValue: unknown, path: PathSegment[]) => {
    if (value === undefined || value === null || !hasRules(s)) return;
    for (const r of s['x-kubernetes-validations'] ?? []) {
      const c = compileOutcome(r.rule);
      if (!c.ok) continue;
      if (c.transition && oldValue === undefined) continue;
      if (only === 'transition' && !c.transition) continue;
      const message = ruleMessage(r, s, value, c.transition ? oldValue : undefined);
      if (message === null) continue;
      out.push({ path: r.fieldPath ? [...path, ...fieldPathSegments(r.fieldPath)] : path, message, rule: r.rule });
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
  walk(schema, withDefaults(object, schema), old === undefined ? undefined : withDefaults(old, schema), []);
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

/** The message of a rule a value breaks, or null when it holds: evaluated once per rule, schema node and value across runs. */
function ruleMessage(r: ValidationRule, s: JsonSchemaNode, value: unknown, oldValue: unknown): string | null {
  const key = ['eval', JSON.stringify(r), schemaJson(s), JSON.stringify(value) ?? '', JSON.stringify(oldValue) ?? ''];
  const known = celOutcomes.get(key) as { message: string | null } | undefined;
  if (known) return known.message;
  const c = compileRule(r.rule) as Extract<Compiled, { ok: true }>;
  const vars: Record<string, CelInput> = { self: toCel(value, s), ...(c.transition ? { oldSelf: toCel(oldValue, s) } : {}) };
  const result = c.evaluate(vars);
  let message: string | null = null;
  if (result !== true) {
    const reason = REASONS[r.reason ?? 'FieldValueInvalid'] ?? r.reason;
    message = r.message ?? `failed rule: ${r.rule}`;
    if (isCelError(result)) message = `${reason}: evaluation of the rule "${r.rule}" fails: ${(result as Error).message}`;
    else {
      if (r.messageExpression) {
        const m = compileRule(r.messageExpression);
        const text = m.ok ? m.evaluate(vars) : undefined;
        if (typeof text === 'string' && text.trim() !== '') message = text;
      }
      message = `${reason}: ${message}`;
    }
  }
  celOutcomes.set(key, { message });
  return message;
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
      else coverage.notJudged.push({ crd, at, rule: rule.rule, why: c.why ?? 'does not compile' });
    }
  }
  return coverage;
}
