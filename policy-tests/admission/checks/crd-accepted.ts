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
import { structuralProblems } from '../validation/crd-structural.ts';
import { defaultProblems } from '../validation/crd-defaults.ts';
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

/** field.Path's spelling of a schema path: spec.versions[0].schema.openAPIV3Schema.properties[spec].items */
function fieldPath(path: readonly PathSegment[]): string {
  let out = '';
  path.forEach((p, i) => {
    const keyed = typeof p === 'number' || ['properties', 'patternProperties', 'definitions'].includes(String(path[i - 1]));
    out += keyed ? `[${p}]` : `${out ? '.' : ''}${p}`;
  });
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
  const refused = (why: string) => say.fail(at, `CustomResourceDefinition ${name}: the ${field} ${JSON.stringify(text)} is refused: ${why}`);
  const c = compileOutcome(text);
  if (!c.ok) {
    if (c.refused) refused(c.why ?? 'compilation failed');
    return 0;
  }
  if (field === 'rule' && c.transition && uncorrelatable)
    refused(`oldSelf cannot be used on the uncorrelatable portion of the schema within ${fieldPath(uncorrelatable)}`);
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
    refused(costMessage(field === 'rule' ? 'estimated rule cost' : 'estimated messageExpression cost', cost, PER_EXPRESSION_LIMIT));
  return cost;
}

/** validation.go: optionalOldSelf on a rule that does not read oldSelf. */
function optionalOldSelfProblem(say: Sink, place: { name: string; path: PathSegment[] }, rule: Node): void {
  if (rule?.optionalOldSelf === undefined || rule.optionalOldSelf === null || typeof rule.rule !== 'string') return;
  const c = compileOutcome(rule.rule);
  if (c.ok && !c.transition)
    say.fail(place.path, `CustomResourceDefinition ${place.name}: optionalOldSelf is refused: may not be set if oldSelf is not used in rule`);
}

/** What the check says of one CRD, at a path in it: a refusal, or what it cannot judge. */
interface Said {
  path: PathSegment[];
  message: string;
  notJudged?: true;
}

/** Where the judging of one CRD says what it finds. */
interface Sink {
  fail(path: PathSegment[], message: string): void;
  notJudged(path: PathSegment[], message: string): void;
}

/** One version's schema: its structure, defaults, patterns, list types and rules, and the rules' total cost. */
function judgeVersion(say: Sink, name: string, schema: unknown, root: PathSegment[]): void {
  // A problem found at a path under a schema node, in field.Path's spelling, as the API server reports it.
  const failUnder = (base: PathSegment[], p: { at: readonly PathSegment[]; detail: string }) =>
    say.fail([...base, ...p.at], `CustomResourceDefinition ${name}: ${fieldPath([...base, ...p.at])}: ${p.detail}`);
  let total = 0;
  for (const p of [...structuralProblems(schema), ...defaultProblems(schema)]) failUnder(root, p);
  for (const at of schemaNodes(schema, root)) {
    const { node, path } = at;
    if (typeof node.pattern === 'string') {
      const problem = re2Problem(node.pattern);
      if (problem) say.fail([...path, 'pattern'], `CustomResourceDefinition ${name}: the pattern ${JSON.stringify(node.pattern)} is not RE2: ${problem}`);
    }
    for (const p of listTypeProblems(node)) failUnder(path, p);
    const rules = node['x-kubernetes-validations'];
    if (!Array.isArray(rules)) continue;
    const place = (i: number, field: string) => ({ name, path: [...path, 'x-kubernetes-validations', i, field] });
    // validation.go: with an entry refused as written, the API server reports that and compiles none of the node's rules.
    const problems = rules.flatMap((rule, i) => entryProblems(rule as ValidationRule, node as JsonSchemaNode).map((p) => ({ ...p, i })));
    for (const p of problems) say.fail(place(p.i, p.field).path, `CustomResourceDefinition ${name}: x-kubernetes-validations[${p.i}].${p.field}: ${p.detail}`);
    if (problems.length > 0) continue;
    for (const [i, rule] of rules.entries()) {
      for (const field of ['rule', 'messageExpression'] as const) {
        const text = (rule as Node)?.[field];
        if (typeof text === 'string') total += judgeExpression(say, place(i, field), text, { ...at, isRoot: path.length === root.length });
      }
      optionalOldSelfProblem(say, place(i, 'optionalOldSelf'), rule as Node);
    }
  }
  if (total > PER_CRD_LIMIT)
    say.fail(
      root,
      `CustomResourceDefinition ${name}: ${costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, PER_CRD_LIMIT)}`,
    );
}

/** Everything the check says of one CRD object: a function of the object alone. */
function judgeCrd(object: unknown, name: string): Said[] {
  const said: Said[] = [];
  const say: Sink = {
    fail: (path, message) => said.push({ path, message }),
    notJudged: (path, message) => said.push({ path, message, notJudged: true }),
  };
  const report = (base: PathSegment[], p: SchemaProblem) => {
    const message = `CustomResourceDefinition ${name}: ${fieldPath([...base, ...p.at])}: ${p.detail}`;
    if (p.notJudged) say.notJudged([...base, ...p.at], message);
    else say.fail([...base, ...p.at], message);
  };
  for (const p of isMap(object) ? definitionProblems(object) : []) report([], p);
  const versions = dig(object, ['spec', 'versions']);
  if (Array.isArray(versions))
    for (const [v, version] of versions.entries()) {
      const root: PathSegment[] = ['spec', 'versions', v, 'schema', 'openAPIV3Schema'];
      const schema = dig(version, ['schema', 'openAPIV3Schema']);
      for (const p of schemaFieldProblems(schema, isMap(dig(version, ['subresources', 'status'])))) report(root, p);
      judgeVersion(say, name, schema, root);
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
    "The API server accepts every CRD the repository applies or renders: its definition (a group with a dot, a scope, versions named as DNS labels with exactly one for storage and a schema each, names, the scale subresource's paths, printer columns, selectable fields, conversion and its webhook, no preserveUnknownFields, a protected group's api-approved.kubernetes.io annotation), no schema keyword it refuses (uniqueItems, $ref, id, definitions, dependencies, patternProperties, additionalItems, a type OpenAPI v3 lacks, additionalProperties beside properties; at a status subresource's root only the fields status keeps); each x-kubernetes-validations rule and messageExpression compiles in the cluster's CEL environment (a structural schema; defaults its schema and rules accept, with no field it would prune; list and map types as the API server declares them; each entry well formed: a rule, a one-line message, a known reason, a fieldPath into the schema; no syntax error, no function or variable the cluster does not declare, no field its schema node does not declare, a bool rule and a string messageExpression, oldSelf only where old and new items correlate, no constant pattern RE2 refuses), no rule's estimated cost passes the per-expression limit nor their total the CRD's (cel-go's estimator with Kubernetes' call costs and the schema's sizes; a rule whose functions it cannot type is not judged), and each schema pattern is RE2 (invariants P1).",
  invariants: ['P1'],
  remediation:
    'fix the field, the rule or the pattern the finding names (patterns are RE2: no lookaround, no backreferences, as in Go); bound the lists, maps and strings a costly rule walks with maxItems, maxProperties and maxLength',
  reads: { kinds: ['CustomResourceDefinition'] },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources) {
      if (r.kind !== 'CustomResourceDefinition') continue;
      for (const { path, message, notJudged } of saidOf(r))
        if (notJudged) ctx.notJudged({ resource: r, path }, message);
        else ctx.fail({ resource: r, path }, message);
    }
  },
};
