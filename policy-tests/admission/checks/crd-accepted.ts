/**
 * What the API server refuses when a CRD is created: its definition's fields and its schema's keywords
 * (validation/crd-definition.ts, crd-schema-fields.ts), a validation rule that
 * does not compile in the cluster's CEL environment (a syntax error, a
 * function the cluster does not declare, a constant pattern RE2 cannot
 * compile, a field its schema node does not declare), a rule whose
 * estimated cost is over the per-expression limit or rules whose total is
 * over the CRD's, and a schema `pattern` RE2 cannot compile. Such a CRD never
 * reaches the cluster, so everything that needs it fails to sync.
 */
import { compileOutcome, ruleAtNode } from '../cel/crd-rules.ts';
import { costMessage, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT, unboundedCardinality } from '../cel/cost-estimate.ts';
import type { JsonSchemaNode, ValidationRule } from '../cel/schema-node.ts';
import { re2Problem } from '../../model/core/re2.ts';
import { entryProblems } from '../cel/rule-fields.ts';
import { listTypeProblems, type SchemaProblem } from '../validation/crd-list-types.ts';
import { definitionProblems } from '../validation/crd-definition.ts';
import { schemaFieldProblems } from '../validation/crd-schema-fields.ts';
import { notStructuralError, structuralProblems } from '../validation/crd-structural.ts';
import { defaultProblems } from '../validation/crd-defaults.ts';
import { errorTypeOf, fieldPathText, internalPath, repeatsSharedField, sharedPerVersionFields } from '../validation/crd-field-paths.ts';
import { dig, isMap } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { extendPath, spellPath, type PathChain } from '../../model/core/path-chain.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { jsonOf, outcomeStore, packageVersion } from '../../model/stores/outcome-store.ts';

type Node = Record<string, unknown>;

/** What makes a node worth its path: rules, a pattern, list or map types. */
const JUDGED_KEYS = ['x-kubernetes-validations', 'pattern', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'];

/**
 * Every schema node under `root` that carries rules, a pattern, or list and map types, with its path in the CRD
 * object and its cardinality: how many times a rule there can run for one object (the product of the maxItems and
 * maxProperties of the lists and maps around it; unbounded, Infinity, as soon as one of them sets none). One walk,
 * no path built for the nodes that carry none of them: the charts' CRDs hold thousands of nodes.
 */
function schemaNodes(root: unknown, rootPath: PathSegment[]): (Omit<ExpressionAt, 'isRoot'> & { path: PathSegment[] })[] {
  const out: (Omit<ExpressionAt, 'isRoot'> & { path: PathSegment[] })[] = [];
  const visit = (node: unknown, link: PathChain | undefined, cardinality: number, uncorrelatable: PathChain | 'root' | undefined): void => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    const n = node as Node;
    if (JUDGED_KEYS.some((k) => k in n)) {
      const path = spellPath(link, rootPath);
      const list = uncorrelatable === 'root' ? rootPath : uncorrelatable ? spellPath(uncorrelatable, rootPath) : undefined;
      out.push(list ? { node: n, path, cardinality, uncorrelatable: list } : { node: n, path, cardinality });
    }
    for (const key of ['properties', 'patternProperties', 'definitions'] as const) {
      const children = n[key];
      if (children && typeof children === 'object')
        for (const k of Object.keys(children)) visit((children as Node)[k], extendPath(link, key, k), cardinality, uncorrelatable);
    }
    const times = (max: unknown) => cardinality * (typeof max === 'number' ? max : Infinity);
    // validation.go: under the items of a list that is not a map list, oldSelf has nothing to correlate with; the
    // highest such list is the one named.
    const itemsUncorrelatable = uncorrelatable ?? (n['x-kubernetes-list-type'] === 'map' ? undefined : (link ?? 'root'));
    visit(n.items, extendPath(link, 'items'), times(n.maxItems), itemsUncorrelatable);
    visit(n.additionalProperties, extendPath(link, 'additionalProperties'), times(n.maxProperties), uncorrelatable);
    visit(n.not, extendPath(link, 'not'), cardinality, uncorrelatable);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = n[key];
      if (Array.isArray(list)) list.forEach((sub, i) => visit(sub, extendPath(link, key, i), cardinality, uncorrelatable));
    }
  };
  visit(root, undefined, 1, undefined);
  return out;
}

/** Where an expression sits: its schema node, whether that is the resource's root, how many times the node can occur, and the list it is an item of that does not correlate old and new items (oldSelf is refused there). */
interface ExpressionAt {
  node: Node;
  isRoot: boolean;
  cardinality: number;
  uncorrelatable?: PathSegment[];
}

function judgeExpression(
  say: Sink,
  place: { name: string; path: PathSegment[] },
  text: string,
  { node, isRoot, cardinality, uncorrelatable }: ExpressionAt,
): number {
  const { name, path: at } = place;
  const field = String(at.at(-1));
  // validation.go: a rule that does not compile is Invalid, one over its cost limit Forbidden.
  const refused = (why: string, type = 'Invalid value') =>
    say.fail(at, type, `CustomResourceDefinition ${name}: the ${field} ${JSON.stringify(text)} is refused: ${why}`);
  const c = compileOutcome(text);
  if (!c.ok) {
    if (c.refused) refused(c.why ?? 'compilation failed');
    return 0;
  }
  if (field === 'rule' && c.transition && uncorrelatable)
    refused(`oldSelf cannot be used on the uncorrelatable portion of the schema within ${say.spell(uncorrelatable)}`);
  // Type-checked against its node: a field the node does not declare is a compile error too.
  const atNode = ruleAtNode(text, node as JsonSchemaNode, isRoot);
  for (const problem of atNode.typeProblems) refused(`compilation failed: ${problem}`);
  // compilation.go: a rule's checked output type must be bool, a messageExpression's string.
  if (atNode.resultType && atNode.resultType !== (field === 'rule' ? 'bool' : 'string'))
    refused(field === 'rule' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string');
  if (atNode.costNotJudged) {
    say.notJudged(at, `CustomResourceDefinition ${name}: the ${field} ${JSON.stringify(text)}: ${atNode.costNotJudged}`);
    return 0;
  }
  // A rule's estimated cost counts once for each time its node can occur: the lists and maps around it bound that,
  // or, unbounded, as many as a request can hold (validation.go getExpressionCost); a messageExpression's counts once.
  const times = field !== 'rule' ? 1 : Number.isFinite(cardinality) ? cardinality : unboundedCardinality(node as JsonSchemaNode, isRoot);
  const cost = atNode.estimatedCost * times;
  if (cost > PER_EXPRESSION_LIMIT)
    refused(costMessage(field === 'rule' ? 'estimated rule cost' : 'estimated messageExpression cost', cost, PER_EXPRESSION_LIMIT), 'Forbidden');
  return cost;
}

/** validation.go: optionalOldSelf on a rule that does not read oldSelf. */
function optionalOldSelfProblem(say: Sink, place: { name: string; path: PathSegment[] }, rule: Node): void {
  if (rule?.optionalOldSelf === undefined || rule.optionalOldSelf === null || typeof rule.rule !== 'string') return;
  const c = compileOutcome(rule.rule);
  if (c.ok && !c.transition)
    say.fail(place.path, 'Invalid value', `CustomResourceDefinition ${place.name}: optionalOldSelf is refused: may not be set if oldSelf is not used in rule`);
}

/**
 * What the check says of one CRD, at a path in it: a refusal, or what it cannot judge. `path` is the v1 object's (for
 * the line in the file); `field` is the API server's name for it, and `type` field.ErrorType's words for a refusal.
 */
export interface Said {
  path: PathSegment[];
  field: string;
  message: string;
  type?: string;
  notJudged?: true;
  /** Admitted, with a caveat. */
  warning?: true;
}

/** Where the judging of one CRD says what it finds. */
interface Sink {
  /** `field` when the API server names the place otherwise than `spell` would (a place inside a default). */
  fail(path: PathSegment[], type: string, message: string, field?: string): void;
  notJudged(path: PathSegment[], message: string, field?: string): void;
  warn(path: PathSegment[], message: string): void;
  /** field.Path's spelling of a v1 path, as the API server names it (crd-field-paths.ts). */
  spell(path: readonly PathSegment[]): string;
}

/** A field.Error found at a path: refused in its type's words, or not judged. */
function sayProblem(say: Sink, name: string, path: PathSegment[], p: { detail: string; notJudged?: true; inValue?: SchemaProblem['inValue'] }): void {
  // A place inside a value (a default) is spelt as the value's validator names it, after the schema path to it.
  const field = p.inValue ? `${say.spell(path.slice(0, path.length - p.inValue.steps))}${p.inValue.text}` : say.spell(path);
  const message = `CustomResourceDefinition ${name}: ${field}: ${p.detail}`;
  if (p.notJudged) say.notJudged(path, message, field);
  else say.fail(path, errorTypeOf(p.detail) ?? 'Invalid value', message, field);
}

/** The rules that cost the most, each named when their total is over the CRD's limit (TotalCost.MostExpensive). */
const MOST_EXPENSIVE = 4;

/** Whether `path` lies at or under `node` (a path in the same CRD). */
const under = (path: readonly PathSegment[], node: readonly PathSegment[]): boolean => node.every((p, i) => path[i] === p);

/** One version's schema being judged: where it says so, the CRD's name, the schema's path, and where its fields were refused. */
interface VersionJudging {
  say: Sink;
  name: string;
  root: PathSegment[];
  /** Paths in the CRD where a schema error stands (crd-schema-fields.ts first, then the list types and rule entries). */
  schemaErrors: PathSegment[][];
}

/** One version's schema: its structure, defaults, patterns, list types and rules, and the rules' total cost. */
function judgeVersion(v: VersionJudging, schema: unknown): void {
  const { say, name, root, schemaErrors } = v;
  // A problem found at a path under a schema node, in field.Path's spelling, as the API server reports it.
  const failUnder = (base: PathSegment[], p: { at: readonly PathSegment[]; detail: string }) => {
    schemaErrors.push([...base, ...p.at]);
    sayProblem(say, name, [...base, ...p.at], p);
  };
  // validation.go: a schema NewStructural cannot read gets no structural, default or rule checks; one with a
  // structural problem no default check; and rules compile only where there is neither (a CEL context).
  const readable = notStructuralError(schema) === undefined;
  const structural = readable ? structuralProblems(schema) : [];
  const defaults = readable && structural.length === 0 ? defaultProblems(schema) : [];
  for (const p of [...structural, ...defaults]) sayProblem(say, name, [...root, ...p.at], p);
  const nodes = schemaNodes(schema, root);
  for (const { node, path } of nodes) {
    // The API server admits a pattern Go cannot compile (validation.go compiles none); kube-openapi then refuses every
    // value it is asked to match, so every object that sets the field is refused: said, as a warning, at the CRD.
    if (typeof node.pattern === 'string') {
      const problem = re2Problem(node.pattern);
      if (problem)
        say.warn(
          [...path, 'pattern'],
          `CustomResourceDefinition ${name}: the pattern ${JSON.stringify(node.pattern)} is not RE2 (${problem}): the API server admits the CRD, and refuses every object that sets ${say.spell(path)}`,
        );
    }
    for (const p of listTypeProblems(node)) failUnder(path, p);
    const rules = node['x-kubernetes-validations'];
    if (!Array.isArray(rules)) continue;
    for (const [i, rule] of rules.entries())
      for (const p of entryProblems(rule as ValidationRule, node as JsonSchemaNode)) {
        const at = [...path, 'x-kubernetes-validations', i, p.field];
        schemaErrors.push(at);
        say.fail(at, errorTypeOf(p.detail) ?? 'Invalid value', `CustomResourceDefinition ${name}: x-kubernetes-validations[${i}].${p.field}: ${p.detail}`);
      }
  }
  if (readable && structural.length === 0 && defaults.length === 0) judgeRules(v, nodes);
}

/**
 * The rules of a schema with a CEL context: each node's compiled where no schema error lies at or under it
 * (ValidateCustomResourceDefinitionOpenAPISchema), and their estimated costs against the CRD's limit.
 */
function judgeRules({ say, name, root, schemaErrors }: VersionJudging, nodes: ReturnType<typeof schemaNodes>): void {
  const costs: { path: PathSegment[]; cost: number }[] = [];
  for (const at of nodes) {
    const { node, path } = at;
    const rules = node['x-kubernetes-validations'];
    if (!Array.isArray(rules) || schemaErrors.some((e) => under(e, path))) continue;
    const place = (i: number, field: string) => ({ name, path: [...path, 'x-kubernetes-validations', i, field] });
    for (const [i, rule] of rules.entries()) {
      for (const field of ['rule', 'messageExpression'] as const) {
        const text = (rule as Node)?.[field];
        if (typeof text === 'string')
          costs.push({ path: place(i, field).path, cost: judgeExpression(say, place(i, field), text, { ...at, isRoot: path.length === root.length }) });
      }
      optionalOldSelfProblem(say, place(i, 'optionalOldSelf'), rule as Node);
    }
  }
  const total = costs.reduce((sum, c) => sum + c.cost, 0);
  if (total <= PER_CRD_LIMIT) return;
  // validation.go: the total's refusal, after one at each of the four costliest expressions.
  for (const { path } of costs.sort((a, b) => b.cost - a.cost).slice(0, MOST_EXPENSIVE))
    say.fail(
      path,
      'Forbidden',
      `CustomResourceDefinition ${name}: ${say.spell(path)}: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
    );
  say.fail(
    root,
    'Forbidden',
    `CustomResourceDefinition ${name}: ${costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, PER_CRD_LIMIT)}`,
  );
}

/**
 * Everything the check says of one CRD object: a function of the object alone. What the API server judges once for
 * all versions (a per-version field they hold alike) is judged once, at the first version, and named as it names it.
 */
export function judgeCrd(object: unknown, name: string): Said[] {
  const said: Said[] = [];
  const seen = new Set<string>();
  const shared = sharedPerVersionFields(object);
  const spell = (path: readonly PathSegment[]) => fieldPathText(internalPath(path, shared));
  const keep = (entry: Said) => {
    const key = `${entry.field}\0${entry.message}`;
    if (repeatsSharedField(entry.path, shared) || seen.has(key)) return;
    seen.add(key);
    said.push(entry);
  };
  const say: Sink = {
    fail: (path, type, message, field = spell(path)) => keep({ path, field, message, type }),
    notJudged: (path, message, field = spell(path)) => keep({ path, field, message, notJudged: true }),
    warn: (path, message) => keep({ path, field: spell(path), message, warning: true }),
    spell,
  };
  const report = (base: PathSegment[], p: SchemaProblem) => sayProblem(say, name, [...base, ...p.at], p);
  for (const p of isMap(object) ? definitionProblems(object) : []) report([], p);
  const versions = dig(object, ['spec', 'versions']);
  const statusOf = (version: unknown) => isMap(dig(version, ['subresources', 'status']));
  // A shared schema's root is judged with the status of any version enabled (validation.go hasAnyStatusEnabled).
  const anyStatus = Array.isArray(versions) && versions.some(statusOf);
  if (Array.isArray(versions))
    for (const [v, version] of versions.entries()) {
      const root: PathSegment[] = ['spec', 'versions', v, 'schema', 'openAPIV3Schema'];
      // A schema every version holds alike is judged once, at the first version, as the API server judges spec.validation.
      if (repeatsSharedField(root, shared)) continue;
      const schema = dig(version, ['schema', 'openAPIV3Schema']);
      const fieldProblems = schemaFieldProblems(schema, shared.has('schema') ? anyStatus : statusOf(version));
      for (const p of fieldProblems) report(root, p);
      judgeVersion({ say, name, root, schemaErrors: fieldProblems.map((p) => [...root, ...p.at]) }, schema);
    }
  return said;
}

/**
 * What the check said of a CRD, kept across runs by its JSON (model/stores/outcome-store.ts: with the gate's code,
 * Node's version and its engines') and in this process by the object: the charts' CRDs are megabytes of schema, and
 * judging them again was most of the admission layer's time in a run after an edit.
 */
const judged = outcomeStore<Said[]>('crd-accepted', () =>
  // Every engine the judging runs: CEL and its RE2 (the rules), re2js (the patterns), ajv (the defaults).
  ['@bufbuild/cel', '@bufbuild/re2', 're2js', 'ajv', 'ajv-formats'].map(packageVersion).join('\0'),
);
const judgedHere = new WeakMap<object, Said[]>();

function saidOf(r: Resource): Said[] {
  let said = judgedHere.get(r.object);
  if (!said) {
    const key = [jsonOf(r.object)];
    said = judged.get(key);
    if (!said) judged.set(key, (said = judgeCrd(r.object, r.name)));
    judgedHere.set(r.object, said);
  }
  return said;
}

export const crdAcceptedCheck: PolicyCheck = {
  id: 'crd-accepted',
  description:
    "The API server accepts every CRD the repository applies or renders: its definition (a group with a dot, a scope, versions named as DNS labels with exactly one for storage and a schema each, names, the scale subresource's paths, printer columns, selectable fields, conversion and its webhook, no preserveUnknownFields, a protected group's api-approved.kubernetes.io annotation), no schema keyword it refuses (uniqueItems, $ref, id, definitions, dependencies, patternProperties, additionalItems, a type OpenAPI v3 lacks, additionalProperties beside properties; at a status subresource's root only the fields status keeps); each x-kubernetes-validations rule and messageExpression compiles in the cluster's CEL environment (a structural schema; defaults its schema and rules accept, with no field it would prune; list and map types as the API server declares them; each entry well formed: a rule, a one-line message, a known reason, a fieldPath into the schema; no syntax error, no function or variable the cluster does not declare, no field its schema node does not declare, a bool rule and a string messageExpression, oldSelf only where old and new items correlate, no constant pattern RE2 refuses), no rule's estimated cost passes the per-expression limit nor their total the CRD's (cel-go's estimator with Kubernetes' call costs and the schema's sizes; a rule whose functions it cannot type is not judged) (invariants P1). A schema pattern Go cannot compile is a warning: the API server admits the CRD and refuses every object that sets the field.",
  invariants: ['P1'],
  remediation:
    'fix the field, the rule or the pattern the finding names (patterns and regular expressions are RE2: no lookaround, no backreferences, as in Go); bound the lists, maps and strings a costly rule walks with maxItems, maxProperties and maxLength',
  reads: { kinds: ['CustomResourceDefinition'] },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources) {
      if (r.kind !== 'CustomResourceDefinition') continue;
      for (const { path, message, notJudged, warning } of saidOf(r))
        if (notJudged) ctx.notJudged({ resource: r, path }, message);
        else if (warning) ctx.warn({ resource: r, path }, message);
        else ctx.fail({ resource: r, path }, message);
    }
  },
};
