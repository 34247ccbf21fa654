/**
 * What no input may do to the gate: run long. The hostile rules of issue
 * reports (a triple comprehension over an unbounded list, a backtracking
 * pattern in a rule and in a schema) each end quickly with the API server's
 * own verdict; rules the API server refuses at CRD create are refused, and
 * rules it has a function for that the evaluator lacks stay not judged.
 */
import { describe, expect, it } from 'vitest';
import { eachHolds, violationsOf } from '../support/cel-rule.ts';
import { compileRule, ruleViolations, ruleAtNode } from '../../admission/cel/crd-rules.ts';
import { costMessage, PER_EXPRESSION_LIMIT } from '../../admission/cel/cost-estimate.ts';
import { declType } from '../../admission/cel/decl-type.ts';
import { overloadsOf } from '../../admission/cel/overload-table.ts';
import { AUTHORIZER_FUNCTIONS, CEL_KUBERNETES_MINOR, declaredFunctions } from '../../admission/cel/environment.ts';
import type { JsonSchemaNode } from '../../admission/cel/schema-node.ts';
import { PER_CALL_LIMIT } from '../../admission/cel/budget.ts';
import { LONGEST_BUILT } from '../../admission/cel/string-costs.ts';
import { policyDecisions } from '../../admission/cel/admission-policies.ts';
import { crdsFromObjects } from '../../schema/repo-crds.ts';

const compileCrdValidator = (openAPIV3Schema: object) =>
  crdsFromObjects([
    { file: 'crd.yaml', object: { spec: { group: 'x.io', names: { kind: 'X' }, versions: [{ name: 'v1', schema: { openAPIV3Schema } }] } } },
  ])[0]!.compile();

const listRule = (rule: string, items: JsonSchemaNode = { type: 'string' }): JsonSchemaNode => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: { list: { type: 'array', items, 'x-kubernetes-validations': [{ rule }] } } } },
});
const strings = (n: number) => Array.from({ length: n }, (_, i) => `item-${i}`);

describe('CEL: the runtime cost limit', () => {
  it('stops a triple comprehension over 2,000 items at the per-call limit, with the API server message', () => {
    const started = performance.now();
    const v = ruleViolations(listRule('self.all(x, self.all(y, self.all(z, true)))'), { spec: { list: strings(2000) } });
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toBe(
      "Invalid value: 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, self.all(z, true)))",
    );
    expect(v[0]!.path).toEqual(['spec', 'list']);
    // Recorded, not asserted against a clock: the count, not the machine, stops it.
    expect(performance.now() - started).toBeGreaterThan(0);
  });

  it('leaves a replace the API server builds but this evaluator will not build not judged, at once, and replaces as cel-go does below that', () => {
    const stringRule = (rule: string): JsonSchemaNode => ({
      type: 'object',
      properties: { spec: { type: 'object', properties: { s: { type: 'string', 'x-kubernetes-validations': [{ rule }] } } } },
    });
    // 16,384 characters replaced each by the whole string: 268 million characters. The API server charges the walk
    // of the receiver (3,277), builds it and admits; the engine's own replace built it for minutes. Here the length is
    // counted first, and the rule is not judged: never a pass, never a failure.
    const v = ruleViolations(stringRule("self.replace('a', self).size() > 0"), { spec: { s: 'a'.repeat(16_384) } });
    expect(v).toEqual([
      {
        path: ['spec', 's'],
        rule: "self.replace('a', self).size() > 0",
        notJudged: true,
        message: `replace would build a string of ${16_384 * 16_384} characters, which the API server builds and this evaluator does not (past ${LONGEST_BUILT})`,
      },
    ]);
    // Within that it replaces every occurrence, or the first n, and an empty pattern between every character.
    const ok = (rule: string, s: string) => ruleViolations(stringRule(rule), { spec: { s } });
    expect(ok("self.replace('he', 'we') == 'we we we'", 'he he he')).toEqual([]);
    expect(ok("self.replace('he', 'we', 1) == 'we he he'", 'he he he')).toEqual([]);
    expect(ok("self.replace('', '-') == '-a-b-'", 'ab')).toEqual([]);
    expect(ok("self.replace('', '-') == '-😀-b-'", '😀b')).toEqual([]);
    expect(ok("self.replace('he', 'we', 0) == 'he he'", 'he he')).toEqual([]);
    // The API server's runtime cost of a replace is its receiver walked twice: 4,096 code points cost 820, and a
    // rule that replaces it 1,220 times runs past the per-call limit there and here.
    const costly = (n: number) => `[${Array.from({ length: n }, () => "self.replace('a', 'b')").join(', ')}].size() > 0`;
    expect(ok(costly(1220), 'a'.repeat(4096)).map((x) => x.message)).toEqual([expect.stringContaining('call cost exceeds limit for rule')]);
    expect(ok(costly(1), 'a'.repeat(4096))).toEqual([]);
  });

  it("splits with a limit as Go's strings.SplitN: the last piece keeps the rest", () => {
    const schema = (rule: string): JsonSchemaNode => ({ type: 'object', properties: { s: { type: 'string', 'x-kubernetes-validations': [{ rule }] } } });
    const holds = (rule: string, s: string) => ruleViolations(schema(rule), { s });
    expect(holds("self.split(' ', 2) == ['Rook', 'takes 👑']", 'Rook takes 👑')).toEqual([]);
    expect(holds("self.split(' ', -1) == ['a', 'b', 'c'] && self.split(' ', 0) == [] && self.split(' ', 9) == ['a', 'b', 'c']", 'a b c')).toEqual([]);
    expect(holds("self.split('', 2) == ['😀', 'bc']", '😀bc')).toEqual([]);
  });

  it('formats %e as cel-go prints it (golang.org/x/text), and every other clause as before', () => {
    const holds = violationsOf;
    expect(holds("'%e'.format([3.14]) == '3.140000×10⁰⁰'")).toEqual([]);
    expect(holds("'%.2e|%s|%d%%'.format([-0.000123, 'x', 5]) == '-1.23×10⁻⁰⁴|x|5%'")).toEqual([]);
    expect(holds("'%.3f %s'.format([1.5, [1, 2]]) == '1.500 [1, 2]'")).toEqual([]);
  });

  it("prints a date-time field's timestamp as cel-go does, in the offset it was written with", () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' } },
      'x-kubernetes-validations': [
        { rule: "string(self.at) == '2011-08-18T19:03:37.01+01:00'" },
        { rule: "string(timestamp('2011-08-18T18:03:37Z')) == '2011-08-18T18:03:37Z'" },
      ],
    };
    expect(ruleViolations(schema, { at: '2011-08-18T19:03:37.010+01:00' })).toEqual([]);
  });

  it('orders booleans as cel-go does, false first: min, max and isSorted take a list of them', () => {
    const holds = violationsOf;
    expect(holds('[true, false].min() == false && [false, true].max() == true && [false, true].isSorted() && ![true, false].isSorted()')).toEqual([]);
  });

  it('stops a triple two-variable comprehension the same way: each pair list it folds over is charged', () => {
    const rule = 'self.all(i, x, self.all(j, y, self.all(k, z, i + j + k >= 0)))';
    const v = ruleViolations(listRule(rule), { spec: { list: strings(2000) } });
    expect(v.map((x) => x.message)).toEqual([expect.stringContaining('call cost exceeds limit for rule')]);
  });

  it('meters maps as well as lists, and library functions that walk a list', () => {
    const map: JsonSchemaNode = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            m: {
              type: 'object',
              additionalProperties: { type: 'string' },
              'x-kubernetes-validations': [{ rule: 'self.all(a, self.all(b, self.all(c, true)))' }],
            },
          },
        },
      },
    };
    const m = Object.fromEntries(strings(200).map((k) => [k, k]));
    expect(ruleViolations(map, { spec: { m } })[0]?.message).toContain('call cost exceeds limit');
    const sums = listRule('self.map(x, self.map(y, 1).sum()).sum() > 0', { type: 'integer' });
    expect(ruleViolations(sums, { spec: { list: Array.from({ length: 1100 }, () => 1) } })[0]?.message).toContain('call cost exceeds limit');
  });

  it('lets a rule under the limit through, and judges it', () => {
    expect(ruleViolations(listRule('self.all(x, self.exists(y, y == x))'), { spec: { list: strings(500) } })).toEqual([]);
    expect(PER_CALL_LIMIT).toBe(1_000_000);
    expect(ruleViolations(listRule("self.all(x, x.startsWith('item-'))"), { spec: { list: ['item-1', 'other'] } })).toHaveLength(1);
  });
});

describe('CEL: RE2, as Go compiles patterns', () => {
  it("finds with a linear-time engine: '^(a+)+$' on a long string answers at once", () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      properties: { s: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.find('^(a+)+$') == ''" }] } },
    };
    expect(ruleViolations(schema, { s: `${'a'.repeat(5000)}b` })).toEqual([]);
    expect(ruleViolations(schema, { s: 'aaaa' })).toHaveLength(1);
  });

  it('findAll gives every leftmost match, and a limit', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      properties: {
        s: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: "self.findAll('[0-9]+') == ['1', '22', '333'] && self.findAll('[0-9]+', 2) == ['1', '22']" }],
        },
      },
    };
    expect(ruleViolations(schema, { s: 'a1b22c333' })).toEqual([]);
  });

  it('refuses a constant pattern RE2 cannot compile, as the API server does at CRD create', () => {
    const c = compileRule("self.matches('^(?=a)b$')");
    expect(c.ok).toBe(false);
    expect(c.ok === false && c.refused).toBe(true);
    expect(c.ok === false && c.why).toContain('invalid regex pattern');
  });

  it('a schema pattern is matched by RE2: a backtracking pattern on a long value answers at once, and a lookahead never matches', () => {
    const validate = compileCrdValidator({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } });
    expect(validate({ s: `${'a'.repeat(5000)}b` })).toBe(false);
    expect(validate({ s: 'aaa' })).toBe(true);
    // A pattern Go cannot compile fails every value, as kube-openapi's validate.Pattern fails it.
    const lookahead = compileCrdValidator({ type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)a$' } } });
    expect([lookahead({ s: 'a' }), lookahead({})]).toEqual([false, true]);
  });
});

describe('CEL: what the API server refuses at create, and what it would accept', () => {
  it('a syntax error and an undeclared function are refused', () => {
    for (const rule of ['self.size() >', 'self.frobnicate()']) {
      const c = compileRule(rule);
      expect(c.ok === false && c.refused, rule).toBe(true);
    }
  });

  it('optional list and map entries are read and judged, never refused', () => {
    const self = new Map([['foo', 'x']]);
    for (const rule of ["{?'a': self.?foo}.size() == 1", '[?self.?foo, ?self.?bar].size() == 1', "['q', ?optional.none()] == ['q']"]) {
      const c = compileRule(rule);
      expect(c.ok && c.evaluate({ self }), rule).toBe(true);
    }
  });
});

describe('ValidatingAdmissionPolicy: failurePolicy', () => {
  const policy = (failurePolicy: string) => ({
    metadata: { name: 'p' },
    spec: {
      failurePolicy,
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
      matchConditions: [{ name: 'broken', expression: 'object.spec.missing.field == 1' }],
      validations: [{ expression: 'true' }],
    },
  });
  const binding = { metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'] } };
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments', namespace: 'x', object: { metadata: { name: 'd' }, spec: {} } };

  it('an erroring match condition denies under Fail', () => {
    const d = policyDecisions([policy('Fail')], [binding], target);
    expect(d).toHaveLength(1);
    expect(d[0]!.message).toContain('failed to evaluate the matchCondition "broken"');
  });

  it('and is skipped under Ignore', () => {
    expect(policyDecisions([policy('Ignore')], [binding], target)).toEqual([]);
  });
});

describe("CEL: the estimated cost at CRD create, as cel-go's estimator makes it", () => {
  const list = (items: JsonSchemaNode, maxItems?: number): JsonSchemaNode => ({ type: 'array', items, ...(maxItems === undefined ? {} : { maxItems }) });
  const estimate = (rule: string, node: JsonSchemaNode) => ruleAtNode(rule, node).estimatedCost;

  it('sizes lists and maps by maxItems and maxProperties, or by what fits in a 3 MiB request', () => {
    // (3 MiB - 2) / ("" and a comma): the API server's own estimate of an unbounded list of strings.
    expect(declType(list({ type: 'string' }))!.maxElements).toBe(1048575n);
    expect(declType(list({ type: 'integer' }))!.maxElements).toBe(1572863n);
    expect(declType({ type: 'object', additionalProperties: { type: 'string' } })!.maxElements).toBe(393215n);
  });

  it('costs every node as checker/cost.go does', () => {
    // self 1, true 0, the result 1, and ten times @not_strictly_false(__result__) 2 plus __result__ && x != "" 2
    // (a comparison with the empty literal walks nothing).
    expect(estimate('self.all(x, x != "")', list({ type: 'string' }, 10))).toBe(42);
    // The literal list 10 (its constants cost nothing), then three times 2 + (1 + x > 0: 1 + 1).
    expect(estimate('[1, 2, 3].all(x, x > 0)', list({ type: 'string' }))).toBe(26);
    // The sets extension: 10 x 1 elements compared, and the call; self 1 and the literal list 10 (ext/sets.go).
    expect(estimate("sets.contains(self, ['a'])", list({ type: 'string' }, 10))).toBe(22);
    // Comparing two strings of a whole request each walks the shorter: 314,573 a time, a hundred times.
    expect(estimate('self.all(x, self.all(y, x == y))', list({ type: 'string' }, 10))).toBe(31457852);
  });

  it('costs a two-variable comprehension as cel-go expands it (ext/comprehensions.go), two iteration variables over one range', () => {
    const four = list({ type: 'string' }, 4);
    const three: JsonSchemaNode = { type: 'object', maxProperties: 3, additionalProperties: { type: 'string' } };
    // self 1, the accumulator 1; four times @not_strictly_false 2 and acc && v != '' 2 (the empty literal walks nothing).
    expect(estimate("self.all(i, v, v != '')", four)).toBe(18);
    // The index is an int (its size 1): four times (i == 0) 2 and the dearer branch, acc + 1, 2; the result acc == 1, 2.
    expect(estimate('self.exists_one(i, v, i == 0)', four)).toBe(19);
    // A filtered transform appends a one-item list (10 + 1) where the filter holds: four times 2 + 13, the list 10.
    expect(estimate('self.transformList(i, v, i > 1, v).size() == 2', four)).toBe(74);
    // transformMap inserts into a map (30): each value of a whole request, v + 'x', walked at 0.1.
    expect(estimate("self.transformMap(k, v, v + 'x').size() > 0", three)).toBe(943765);
    expect(estimate('self.transformMapEntry(k, v, {k: v}).size() > 0', three)).toBe(136);
  });

  it("costs the lists extension as cel-go's estimators do (ext/lists.go, version 3)", () => {
    const ten = list({ type: 'string' }, 10);
    // slice(1, 3) makes 2 items: 2 + the call 1 + the list 10, self 1; size() 1; == on ints walks 1.
    expect(estimate('self.slice(1, 3).size() == 2', ten)).toBe(16);
    // sort: 10 x 10 comparisons at 2.1 (strings), 1 and 10, self 1; == walks the shorter list, 10 at 0.1, and self 1.
    expect(estimate('self.sort() == self', ten)).toBe(224);
    // lists.range(5), a namespaced function: 5 + 1 + 10; size() 1; == 1.
    expect(estimate('lists.range(5).size() == 5', ten)).toBe(18);
    // distinct: 10 x 10 at 2, 1 and 10, self 1; size() 1; <= 1.
    expect(estimate('self.distinct().size() <= 10', ten)).toBe(214);
    expect(estimate('self.reverse().size() == 10', ten)).toBe(24);
    // sortBy binds the list (the empty range 10, self 1), maps its keys (12 and ten times 14), sorts by them:
    // 10 x 10 at 2 (int keys), 1 and 10; size() 1; == 1.
    expect(estimate('self.sortBy(s, s.size()).size() == 10', ten)).toBe(377);
    // first() and last(): the optional library's, a call each.
    expect(estimate('self.first().hasValue()', ten)).toBe(3);
  });

  it("refuses the issue's triple comprehension over a list with no maxItems, with the API server's words, and not a bounded one", () => {
    const rule = 'self.all(x, self.all(y, self.all(z, true)))';
    const over = estimate(rule, list({ type: 'string' }));
    expect(over).toBeGreaterThan(100 * PER_EXPRESSION_LIMIT);
    expect(costMessage('estimated rule cost', over, PER_EXPRESSION_LIMIT)).toBe(
      'estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
    expect(estimate(rule, list({ type: 'string' }, 20))).toBe(26102);
    // Go's %f below 1.5, one decimal from there.
    expect(costMessage('estimated rule cost', 12_000_000, PER_EXPRESSION_LIMIT)).toContain('by factor of 1.200000x (');
    expect(costMessage('estimated rule cost', 25_000_000, PER_EXPRESSION_LIMIT)).toContain('by factor of 2.5x (');
  });

  it("sizes replace's result as pkg/cel/library/cost.go does: a walk of it is refused at create, its size() is not", () => {
    const s = (extra: JsonSchemaNode = {}): JsonSchemaNode => ({ type: 'string', ...extra });
    // Twice a walk of the receiver, (3 MiB - 2) characters at 0.1 each; self twice, size() and > 1 each.
    expect(estimate("self.replace('a', self).size() > 0", s())).toBe(Math.ceil((3 * 1024 * 1024 - 2) * 0.2) + 4);
    expect(estimate("self.replace('a', self).size() > 0", s())).toBeLessThan(PER_EXPRESSION_LIMIT);
    // The result: up to 3 Mi replacements of 3 Mi characters; walking it is over the limit by far.
    const walked = estimate("self.replace('a', self).contains('b')", s());
    expect(walked).toBeGreaterThan(100 * PER_EXPRESSION_LIMIT);
    expect(costMessage('estimated rule cost', walked, PER_EXPRESSION_LIMIT)).toMatch(/^estimated rule cost exceeds budget by factor of more than 100x/);
    expect(estimate("self.replace('a', self).replace('a', self).size() > 0", s())).toBeGreaterThan(100 * PER_EXPRESSION_LIMIT);
    // maxLength counts bytes, four to a code point: the result is 41 x 40 + 40 characters long at most.
    expect(estimate("self.replace('a', self).contains('b')", s({ maxLength: 10 }))).toBe(170);
    // An enum's longest value bounds the string.
    expect(estimate('self.lowerAscii() == "a"', s({ enum: ['abc', 'de'] }))).toBe(3);
  });

  it('sizes a field the rule spells escaped (__namespace__) by its property, as a real chart writes it', () => {
    // snapshot-controller's VolumeGroupSnapshotContent: two string comparisons of a whole request each, accepted upstream.
    const ref: JsonSchemaNode = { type: 'object', properties: { name: { type: 'string' }, namespace: { type: 'string' } } };
    expect(estimate('self.__namespace__ == oldSelf.__namespace__', ref)).toBe(estimate('self.name == oldSelf.name', ref));
    expect(estimate('self.name == oldSelf.name && self.__namespace__ == oldSelf.__namespace__', ref)).toBe(2 * 314577);
  });

  it("types every function the cluster's CEL environment declares, but the macros and the admission policies' own", () => {
    const macros = [
      'has',
      'all',
      'exists',
      'exists_one',
      'existsOne',
      'map',
      'filter',
      'optMap',
      'optFlatMap',
      'transformList',
      'transformMap',
      'transformMapEntry',
      'sortBy',
    ];
    // The authorizer and its selectors are variables of ValidatingAdmissionPolicies, not of a CRD's rules.
    const policiesOnly: readonly string[] = AUTHORIZER_FUNCTIONS;
    expect([...declaredFunctions(CEL_KUBERNETES_MINOR)].filter((f) => !overloadsOf(f) && !macros.includes(f) && !policiesOnly.includes(f))).toEqual([]);
    // And what the macros expand to: sortBy's sort by associated keys, the map transforms' insert.
    expect([overloadsOf('@sortByAssociatedKeys'), overloadsOf('cel.@mapInsert')].every(Boolean)).toBe(true);
  });

  it('says the estimate is not judged where the type check cannot type the rule, and what it could not type', () => {
    const at = ruleAtNode('string(quantity("1Mi")) == "1Mi"', list({ type: 'string' }, 7));
    expect(at.costNotJudged).toBe('its estimated cost is not judged: this check does not type no overload of string for its arguments');
    expect(ruleAtNode('self.all(x, x != "")', list({ type: 'string' }, 10)).costNotJudged).toBeUndefined();
  });
});

describe('CEL: overloads cel-go refuses at compile time', () => {
  it.each(['isIP(cidr("192.168.0.0/24"))', 'isQuantity([1, 2, 3])', 'isSemver(1)', "url({'a': 1})"])('%s is refused', (expr) => {
    const c = compileRule(expr);
    expect(c.ok === false && c.refused && c.why).toMatch(/^compilation failed: found no matching overload for '\w+' applied to/);
  });

  it('a string, or a value whose type only the schema knows, is not', () => {
    for (const expr of ['isIP("1.2.3.4")', 'isIP(self.addr)', "string(ip('1.2.3.4')) == '1.2.3.4'", "cidr('10.0.0.0/8').ip() == ip('10.0.0.0')"])
      expect(compileRule(expr).ok, expr).toBe(true);
  });

  it('sums durations to a duration, and an empty list of them to a zero duration', () => {
    const c = compileRule("[duration('1h'), duration('2m'), duration('1.5s')].sum() == duration('1h2m1.5s')");
    expect(c.ok && c.evaluate({})).toBe(true);
    const schema: JsonSchemaNode = {
      type: 'object',
      properties: { d: { type: 'array', items: { type: 'string', format: 'duration' } } },
      'x-kubernetes-validations': [{ rule: "self.d.sum() == duration('0s')" }],
    };
    expect(ruleViolations(schema, { d: [] })).toEqual([]);
  });
});

describe('CEL: a 2 KB rule of nested comprehensions', () => {
  const nested = (depth: number): string => (depth === 0 ? 'true' : `self.all(x${depth}, ${nested(depth - 1)})`);
  const rule = `${nested(8)}${' && true'.repeat(240)}`;
  const schema: JsonSchemaNode = { type: 'object', properties: { list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule }] } } };

  it('is refused at the CRD for its estimated cost, and stops at the runtime limit on an object', () => {
    expect(rule.length).toBeGreaterThan(2000);
    expect(ruleAtNode(rule, schema.properties!.list!).estimatedCost).toBeGreaterThan(100 * PER_EXPRESSION_LIMIT);
    const v = ruleViolations(schema, { list: Array.from({ length: 50 }, (_, i) => `item-${i}`) });
    expect(v.map((x) => x.message)).toEqual([expect.stringContaining('call cost exceeds limit for rule')]);
  });
});

describe("CEL: the libraries' own types", () => {
  const holds = violationsOf;
  eachHolds([
    "type(ip('192.168.0.1')) == net.IP && type(cidr('2001:db8::/32')) == net.CIDR && type(cidr('2001:db8::/32').ip()) == net.IP",
    "ip('::1') == ip('0:0::1') && ip('10.0.0.1') != ip('10.0.0.2') && cidr('10.0.0.0/8') == cidr('10.0.0.0/8')",
    "string(ip('2001:DB8::1')) == '2001:db8::1' && string(cidr('10.0.0.0/8').masked()) == '10.0.0.0/8'",
    "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3')) && cidr('10.0.0.0/8').containsIP('10.1.2.3') && cidr('10.0.0.0/8').containsCIDR(cidr('10.1.0.0/16'))",
    "type(ip('::1')) != string && ip('::1') in [ip('::1')]",
    "type(quantity('1Gi')) == kubernetes.Quantity && quantity('1Gi') == quantity('1024Mi') && quantity('1Gi').add(quantity('1Gi')) == quantity('2Gi')",
    "type(semver('1.2.3')) == kubernetes.Semver && semver('1.2.3').isLessThan(semver('1.10.0')) && semver('v1.2', true) == semver('1.2.0')",
    "type(url('https://example.com')) == kubernetes.URL && url('https://example.com:80/x').getPort() == '80'",
  ]);

  it('an IP is not its text, nor a CIDR; a quantity is no version', () => {
    expect(holds("dyn(ip('10.0.0.1')) == dyn('10.0.0.1')").map((v) => v.message)).toEqual([expect.stringContaining('failed rule')]);
    expect(holds("dyn(ip('10.0.0.1')) == dyn(cidr('10.0.0.1/32'))").map((v) => v.message)).toEqual([expect.stringContaining('failed rule')]);
    expect(holds("dyn(quantity('1')) == dyn(semver('1.0.0'))").map((v) => v.message)).toEqual([expect.stringContaining('failed rule')]);
  });
});
