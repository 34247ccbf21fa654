/**
 * The Kubernetes CEL libraries the gate adds, case by case, with the API
 * server's answers (k8s.io/apiserver pkg/cel/library's tests hold the same
 * kinds of cases): IPs and CIDRs, exact quantities, semantic versions, URL
 * queries, JSON Patch keys, and the linear list concatenation.
 */
import { describe, expect, it } from 'vitest';
import { compileRule, ruleViolations, ruleAtNode } from '../../admission/cel/crd-rules.ts';
import type { JsonSchemaNode } from '../../admission/cel/schema-node.ts';
import { fixtureCheck, libraryAgreement, libraryCases, libraryFunctionNames, podSecurityAgreement } from '../../admission/upstream/conformance.ts';
import { asOptional } from '../../admission/cel/optional.ts';

const cases: [string, unknown][] = [
  // IPs and CIDRs (1.30): parsed as netip parses them, compared by value.
  ["ip('192.168.0.1').family() == 4", true],
  ["ip('2001:DB8::1') == ip('2001:db8::1')", true],
  ["string(ip('2001:db8:0:0:0:0:0:1'))", '2001:db8::1'],
  ["ip.isCanonical('2001:db8::1')", true],
  ["ip.isCanonical('2001:DB8::1')", false],
  ["isIP('::ffff:1.2.3.4')", false],
  ["isIP('01.2.3.4')", false],
  ["cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", true],
  ["cidr('192.168.0.0/24').containsIP('192.168.1.1')", false],
  ["cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))", true],
  ["cidr('192.168.1.5/16').masked() == cidr('192.168.0.0/16')", true],
  ["cidr('192.168.1.5/16').ip() == ip('192.168.1.5')", true],
  ["ip('127.0.0.1').isLoopback() && ip('::1').isLoopback()", true],
  ["ip('fe80::1').isLinkLocalUnicast() && ip('ff02::1').isLinkLocalMulticast()", true],
  ["ip('8.8.8.8').isGlobalUnicast()", true],
  ["ip('255.255.255.255').isGlobalUnicast()", false],
  ["ip('0.0.0.0').isUnspecified()", true],
  ["cidr('::1/128').prefixLength()", 128n],
  // Quantities (1.28, add and sub 1.29): exact values.
  ['quantity("200M") == quantity("0.2G")', true],
  ['quantity("1Gi") == quantity("1073741824")', true],
  ['quantity("1.5").isInteger()', false],
  ['quantity("9223372036854775807").asInteger()', 9223372036854775807n],
  ['quantity("9223372036854775808").isInteger()', false],
  ['quantity("50k").add(quantity("50k")) == quantity("100k")', true],
  ['quantity("50k").sub(1) == quantity("49999")', true],
  ['quantity("1m").isLessThan(quantity("1"))', true],
  ['quantity("-5").sign()', -1n],
  ['quantity("200m").asApproximateFloat()', 0.2],
  ['quantity("1e3").compareTo(quantity("1k"))', 0n],
  // As ParseQuantity reads them: finer than 1n rounds up to it; an exponent as large as a hostile value's stays an exponent.
  ['quantity("3.001n") == quantity("4n")', true],
  ['quantity("1e300000").isGreaterThan(quantity("9e299999"))', true],
  ['quantity("-1e300000").isLessThan(quantity("1"))', true],
  ['quantity("1e300000").isInteger()', false],
  // Semantic versions (1.33).
  ["semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3", true],
  ["semver('1.0.0').isLessThan(semver('1.0.1'))", true],
  ["semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", true],
  ["semver('1.0.0-alpha.1').compareTo(semver('1.0.0-alpha.beta'))", -1n],
  ["isSemver('v1.0.0')", false],
  ["isSemver('v1.0', true)", true],
  ["semver('01.2', true) == semver('1.2.0')", true],
  // URL queries (1.24), JSON Patch keys (1.32).
  ["url('https://a.io/p?x=1&x=2&y=3').getQuery()['x'] == ['1', '2']", true],
  ["jsonpatch.escapeKey('k8s.io/my~label')", 'k8s.io~1my~0label'],
  // Lists built by comprehensions.
  ['[1, 2] + [3] == [1, 2, 3]', true],
  ['[1, 2].map(x, x * 2) == [2, 4]', true],
  ['size([1, 2, 3].filter(x, x > 1))', 2n],
];

describe('CEL: the Kubernetes libraries, with the API server answers', () => {
  it.each(cases)('%s', (expr, expected) => {
    const c = compileRule(expr);
    expect(c.ok, c.ok ? '' : c.why).toBe(true);
    if (c.ok) expect(c.evaluate({})).toEqual(expected);
  });

  it('appending to a list never changes another list that shares its elements', () => {
    const c = compileRule('[[1, 2] + [3], [1, 2] + [4]] == [[1, 2, 3], [1, 2, 4]]');
    expect(c.ok && c.evaluate({})).toBe(true);
  });
});

describe('conformance: agreement with upstream test data', () => {
  it('names a fixture by its check and counts a restricted refusal by the overriding control', () => {
    expect(fixtureCheck('procmount_restricted0.yaml')).toBe('procmount_restricted');
    const pod = (securityContext: object, spec: object = {}) => ({
      spec: {
        ...spec,
        containers: [
          {
            name: 'c',
            image: 'x',
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, ...securityContext },
          },
        ],
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      },
    });
    const a = podSecurityAgreement([
      { level: 'restricted', expect: 'fail', check: 'procmount', file: 'r/fail/procmount0.yaml', pod: pod({ procMount: 'Unmasked' }, { hostUsers: true }) },
      { level: 'restricted', expect: 'pass', check: 'base', file: 'r/pass/base0.yaml', pod: pod({}) },
      { level: 'baseline', expect: 'fail', check: 'privileged', file: 'b/fail/privileged0.yaml', pod: pod({}) },
    ]);
    expect(a).toMatchObject({ total: 3, agree: 2 });
    expect(a.disagreements).toEqual([{ group: 'privileged', file: 'b/fail/privileged0.yaml', why: 'admitted, upstream refuses it' }]);
  });

  it("judges each Pod Security fixture at its own version: before 1.35 a restricted procMount fixture is procMount's, and runAsUser is no control before 1.23", () => {
    const unmasked = { spec: { hostUsers: false, containers: [{ name: 'c', securityContext: { procMount: 'Unmasked' } }] } };
    expect(
      podSecurityAgreement([{ level: 'restricted', expect: 'fail', check: 'procmount', file: 'r/v1.34/fail/procmount0.yaml', pod: unmasked, minor: 34 }]),
    ).toMatchObject({ total: 1, agree: 1 });
    const root = {
      spec: {
        containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsUser: 0 } }],
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      },
    };
    const at = (minor: number) =>
      podSecurityAgreement([{ level: 'restricted', expect: 'pass', check: 'runasuser', file: `r/v1.${minor}/pass/runasuser0.yaml`, pod: root, minor }]).agree;
    expect([at(22), at(23)]).toEqual([1, 0]);
  });

  it('reads the library function list by release', () => {
    const go = `knownFunctions := sets.New(
		// Kubernetes 1.24:
		"isSorted", "sum",
		// Kubernetes <1.30>:
		"ip", "ip.isCanonical",
		// Kubernetes <1.37>:
		"includes",
		// Kubernetes <1.??>:
	)`;
    expect(libraryFunctionNames(go, 36)).toEqual(['ip', 'ip.isCanonical', 'isSorted', 'sum']);
  });

  it('reads a library test table and judges each case through the gate', () => {
    const go = `func TestIP(t *testing.T) {
	trueVal := types.Bool(true)
	cases := []struct {
		name             string
		expr             string
		expectResult     ref.Val
		expectRuntimeErr string
		expectCompileErrs []string
	}{
		{
			name:         "loopback",
			expr:         \`ip("127.0.0.1").isLoopback()\`,
			expectResult: trueVal,
		},
		{
			name:             "bad",
			expr:             \`ip("1.2.3")\`,
			expectRuntimeErr: "IP Address",
		},
		{
			name:              "no overload",
			expr:              \`isIP(1)\`,
			expectCompileErrs: []string{"found no matching overload"},
		},
		{
			name:         "family",
			expr:         "ip(\\"::1\\").family()",
			expectResult: types.Int(6),
		},
		{
			name:         "type",
			expr:         \`type(ip("::1")) == net.IP\`,
			expectResult: trueVal,
		},
	}
}`;
    const cases = libraryCases('ip_test.go', go);
    expect(cases.map((c) => [c.name, c.expr, c.expect])).toEqual([
      ['loopback', 'ip("127.0.0.1").isLoopback()', { value: true }],
      ['bad', 'ip("1.2.3")', { runtimeError: true }],
      ['no overload', 'isIP(1)', { compileError: true }],
      ['family', 'ip("::1").family()', { value: 6n }],
      ['type', 'type(ip("::1")) == net.IP', { value: true }],
    ]);
    const a = libraryAgreement(cases);
    // isIP(1) is refused, as cel-go's type check refuses it; an IP is a net.IP, a type of its own.
    expect(a).toMatchObject({ total: 5, agree: 5 });
    expect(a.disagreements).toEqual([]);
  });
});

describe('CEL: values typed and named as the API server types and names them', () => {
  const rule = (properties: JsonSchemaNode['properties'], r: string): JsonSchemaNode => ({
    type: 'object',
    properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': [{ rule: r }] } },
  });

  it('reaches a property whose name is not an identifier by its escaped spelling, and a keyword by __keyword__', () => {
    const schema = rule(
      { 'foo-bar': { type: 'string' }, 'a.b': { type: 'integer' }, namespace: { type: 'string' }, x__y: { type: 'string' } },
      "self.foo__dash__bar == 'v' && self.a__dot__b == 2 && self.__namespace__ == 'n' && self.x__underscores__y == 'u' && has(self.foo__dash__bar) && size(self) == 4",
    );
    expect(ruleViolations(schema, { spec: { 'foo-bar': 'v', 'a.b': 2, namespace: 'n', x__y: 'u' } })).toEqual([]);
    expect(ruleViolations(schema, { spec: { 'foo-bar': 'w', 'a.b': 2, namespace: 'n', x__y: 'u' } })).toHaveLength(1);
  });

  it('types format: date as a timestamp and format: byte as bytes', () => {
    const schema = rule(
      { day: { type: 'string', format: 'date' }, blob: { type: 'string', format: 'byte' } },
      "self.day == timestamp('2026-11-27T00:00:00Z') && self.day.getFullYear() == 2026 && self.blob == b'hi' && size(self.blob) == 2",
    );
    expect(ruleViolations(schema, { spec: { day: '2026-11-27', blob: 'aGk=' } })).toEqual([]);
  });
});

describe('CEL: the lists library over every orderable type, with deep equality', () => {
  it.each([
    ["[duration('1s'), duration('2m'), duration('1h')].isSorted()", true],
    ["[duration('1h'), duration('2m')].isSorted()", false],
    ["[timestamp('2026-01-01T00:00:00Z'), timestamp('2026-06-01T00:00:00Z')].max() == timestamp('2026-06-01T00:00:00Z')", true],
    ['[1u, 3u, 2u].isSorted()', false],
    ["[b'a', b'b'].isSorted()", true],
    ['[[1, 2], [3]].indexOf([3])', 1n],
    ["[{'a': 1}, {'a': 2}].lastIndexOf({'a': 2})", 1n],
    ['[1, 2, 3].indexOf(4)', -1n],
  ])('%s', (expr, expected) => {
    const c = compileRule(expr);
    expect(c.ok, c.ok ? '' : c.why).toBe(true);
    if (c.ok) expect(c.evaluate({})).toEqual(expected);
  });
});

describe('CEL: optional values and the format library, as the API server gives them', () => {
  const value = (expr: string) => {
    const c = compileRule(expr);
    if (!c.ok) throw new Error(c.why);
    return c.evaluate({});
  };
  it.each([
    ['optional.of(1).hasValue()', true],
    ['optional.none().hasValue()', false],
    ['optional.none().orValue(2)', 2n],
    ["optional.ofNonZeroValue('').hasValue()", false],
    ['optional.none().or(optional.of(3)).value()', 3n],
    ['optional.of([1]) == optional.of([1])', true],
    ["format.named('uuid').hasValue() && !format.named('nope').hasValue()", true],
    ["format.named('dns1123Label').value() == format.dns1123Label()", true],
    ['format.dns1123Label() == format.dns1035Label()', false],
    ["format.dns1123Label().validate('my-name').hasValue()", false],
    ["format.dns1123LabelPrefix().validate('my-prefix-').hasValue()", false],
    ["format.qualifiedName().validate('example.com/MyName').hasValue()", false],
    ["format.qualifiedName().validate('/x').value()", ['prefix part must be non-empty']],
    ["format.uri().validate('http://example.com').hasValue() || format.uri().validate('/a/path').hasValue()", false],
    ["format.uri().validate('example.com').value()", ['parse "example.com": invalid URI for request']],
    ["format.date().validate('2024-02-30').value()", ['invalid date']],
    ["format.datetime().validate('2024-02-29T23:59:59.5+01:00').hasValue()", false],
    ["format.byte().validate('aGVsbG8').value()", ['invalid base64']],
    // strfmt's own validators, as library/format.go asks them: no empty base64, a year of the first century, the T a T.
    ["format.byte().validate('').value()", ['invalid base64']],
    ["format.date().validate('0050-01-31').hasValue()", false],
    ["format.datetime().validate('2024-02-29 23:59:59Z').value()", ['invalid datetime']],
    ["format.uuid().validate('123e4567-e89b-12d3-a456-42661417400').value()", ['does not match the UUID format']],
  ] as const)('%s', (expr, expected) => {
    const got = value(expr);
    expect(Array.isArray(expected) ? [...(got as Iterable<unknown>)] : got).toEqual(expected);
  });

  it('says the API server words for a label that breaks the RFC 1123 grammar', () => {
    expect([...(asOptional(value("format.dns1123Label().validate('Not_OK')"))![0] as Iterable<unknown>)]).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(() => value('optional.none().value()')).not.toThrow();
    expect(value('optional.none().value()')).toBeInstanceOf(Error);
  });
});

describe('CEL: two-variable comprehensions, folded as cel-go folds them', () => {
  it.each([
    ['[1, 2].all(i, v, v > i)', true],
    ['[3, 1].all(i, v, v > i)', false],
    ["{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)", true],
    ["{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", false],
    ['[10, 20].transformList(i, v, i + v) == [10, 21]', true],
    ['[10, 20, 30].transformList(i, v, i > 0, v * 2) == [40, 60]', true],
    ["{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", true],
    ['[5, 6].transformMap(i, v, v) == {0: 5, 1: 6}', true],
    ["{'a': 1, 'b': 2}.transformMapEntry(k, v, {v: k}) == {1: 'a', 2: 'b'}", true],
    // Nested, and shadowed: an inner comprehension's variables are its own.
    ['[[1, 2], [3]].all(i, xs, xs.all(j, x, x > i))', true],
    ['[1, 2].all(i, v, [v].exists(i, i == v))', true],
  ] as const)('%s', (expr, expected) => {
    const c = compileRule(expr);
    expect(c.ok, c.ok ? '' : c.why).toBe(true);
    if (c.ok) expect(c.evaluate({})).toBe(expected);
  });

  it('refuses a map entry twice, as cel-go does', () => {
    const c = compileRule("{'a': 1, 'b': 1}.transformMapEntry(k, v, {v: k})");
    expect(c.ok && (c.evaluate({}) as Error).message).toBe('insert failed: key 1 already exists');
  });
});

describe('CEL: optional syntax, as cel-go reads it (the cases of cel-spec tests/simple/testdata/optionals.textproto)', () => {
  const run = (expr: string, vars: Record<string, unknown> = {}) => {
    const c = compileRule(expr);
    if (!c.ok) throw new Error(c.why);
    const value = c.evaluate(vars as never);
    return value instanceof Error ? `error: ${value.message}` : value;
  };
  it.each([
    ["{'null_key': dyn(null)}.?null_key.hasValue()", true],
    ['{true: dyn(0)}[?false].absent.hasValue()', false],
    ['{}.?null_key.invalid.hasValue()', false],
    ["optional.of({'c': {'index': 'goodbye'}}).c.index.orValue('default value')", 'goodbye'],
    ["optional.of({'c': {}}).c.missing.or(optional.of(['list-value'])[0]).orValue('default value')", 'list-value'],
    ["{'c': {}}.c[?'missing-index'].orValue('default value')", 'default value'],
    ['has({}.?x.y)', false],
    ["has({'x': {'y': 'z'}}.?x.y)", true],
    ["{'key': {'subkey': 'subvalue'}}.?key.optFlatMap(k, k.?subkey).value()", 'subvalue'],
    ['optional.of(42).optMap(y, y + 1).value()', 43n],
    ['optional.none().optMap(y, y + 1).hasValue()', false],
    ["'.?not[?syntax'.size()", 13n],
    ['[1, 2][?5].orValue(0)', 0n],
  ] as const)('%s', (expr, expected) => expect(run(expr)).toEqual(expected));

  it('reads a schema value as a rule does: self.?field with a default', () => {
    const self = new Map([['spec', new Map([['replicas', 3n]])]]);
    expect(run('self.?spec.?replicas.orValue(1) == 3 && self.?status.?ready.orValue(false) == false', { self })).toBe(true);
  });

  it('errors where cel-go errors: a field of what is not a map', () => {
    expect(run('{true: dyn(0)}[?true].absent.hasValue()')).toBe('error: no such key');
  });
});

describe('CEL: the sets and lists extensions', () => {
  it.each([
    ['sets.contains([1, 2, 3], [3, 1])', true],
    ['sets.equivalent([1, 1, 2], [2, 1])', true],
    ['sets.intersects([1], [2])', false],
    ['lists.range(3) == [0, 1, 2]', true],
    ['[1, 2, 3, 4].slice(1, 3) == [2, 3]', true],
    ['[[1], [2, [3]]].flatten() == [1, 2, [3]]', true],
    ['[[1], [2, [3]]].flatten(2) == [1, 2, 3]', true],
    ['[1, 2, 1, 3].distinct() == [1, 2, 3]', true],
    ['[1, 2].reverse() == [2, 1]', true],
    ["'abc'.reverse()", 'cba'],
    ['[3, 1, 2].sort() == [1, 2, 3]', true],
    ["[{'n': 2}, {'n': 1}].sortBy(e, e.n) == [{'n': 1}, {'n': 2}]", true],
    ['[1, 2].first().value() == 1 && ![].last().hasValue()', true],
  ] as const)('%s', (expr, expected) => {
    const c = compileRule(expr);
    expect(c.ok, c.ok ? '' : c.why).toBe(true);
    if (c.ok) expect(c.evaluate({})).toBe(expected);
  });

  it('errors where cel-go errors: a slice past the end, a list of mixed types sorted', () => {
    for (const expr of ['[1, 2].slice(1, 3)', "[1, 'a'].sort()", '[1].flatten(-1)']) {
      const c = compileRule(expr);
      expect(c.ok && c.evaluate({}) instanceof Error, expr).toBe(true);
    }
  });
});

describe('CEL: values as the API server hands them to a rule', () => {
  const schema = (props: Record<string, JsonSchemaNode>, rule: string): JsonSchemaNode => ({
    type: 'object',
    properties: props,
    'x-kubernetes-validations': [{ rule }],
  });
  it('a map list is equal to another with its entries in any order, and concatenation replaces by key', () => {
    const entry = { type: 'object', properties: { k: { type: 'string' }, v: { type: 'integer' } } };
    const list = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: entry };
    const object = {
      a: [
        { k: 'x', v: 1 },
        { k: 'y', v: 2 },
      ],
      b: [
        { k: 'y', v: 2 },
        { k: 'x', v: 1 },
      ],
      c: [{ k: 'x', v: 9 }],
    };
    expect(
      ruleViolations(schema({ a: list, b: list, c: list }, 'self.a == self.b && self.a + self.c == [{"k": "x", "v": 9}, {"k": "y", "v": 2}]'), object),
    ).toEqual([]);
    // An atomic list keeps its order.
    const atomic = { type: 'array', items: entry };
    expect(ruleViolations(schema({ a: atomic, b: atomic }, 'self.a == self.b'), object)).toHaveLength(1);
  });

  it('a field set to null is absent; data the schema does not describe is refused before the rule runs', () => {
    expect(ruleViolations(schema({ s: { type: 'string', nullable: true } }, '!has(self.s)'), { s: null })).toEqual([]);
    expect(ruleViolations(schema({ o: { type: 'object', properties: {} } }, 'true'), { o: [] }).map((v) => v.message)).toEqual([
      'Invalid value: invalid data, expected a map for the provided schema with type=object',
    ]);
  });

  it.each([
    ["duration('1h2m3s4ms').getMilliseconds()", 3723004n],
    ["url('https://example.com').getEscapedPath()", ''],
    ["url('https://example.com/a%20b').getEscapedPath()", '/a%20b'],
    ["optional.ofNonZeroValue(duration('0s')).hasValue() || optional.ofNonZeroValue(uint(0)).hasValue()", false],
  ] as const)('%s', (expr, expected) => {
    const c = compileRule(expr);
    expect(c.ok && c.evaluate({})).toBe(expected);
  });
});

describe('CEL: the schema type check (what the API server refuses at CRD create)', () => {
  const node: JsonSchemaNode = {
    type: 'object',
    properties: {
      a: { type: 'object', properties: { b: { type: 'integer' } } },
      m: { type: 'object', additionalProperties: { type: 'string' } },
      s: { type: 'string' },
      kept: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      anything: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
  it.each([
    ['self.a.b > 0', []],
    ["self.m.x == 'y' && self.m['z'] == 'y'", []],
    ['has(self.a.z)', ["undefined field 'z'"]],
    ['self.kept.field == 1', ["undefined field 'field'"]],
    ['has(self.anything)', ["undefined field 'anything'"]],
    ["self.a['b'] == 1", ["no matching overload for '_[_]'"]],
    ['self.s != null', ["no matching overload for '_!=_' applied to '(string, null)'"]],
    ["self.a == {'b': 1}", ["found no matching overload for '_==_'"]],
    ['self.all(self, true)', []],
  ] as const)('%s', (rule, problems) => {
    expect(ruleAtNode(rule, node).typeProblems).toEqual(problems);
  });

  it("a custom resource's root has its type and object metadata, of which a rule reads name and generateName", () => {
    expect(ruleAtNode("self.metadata.name == 'x' && self.kind == 'K'", { type: 'object', properties: {} }, true).typeProblems).toEqual([]);
    expect(ruleAtNode('has(self.metadata.namespace)', { type: 'object', properties: {} }, true).typeProblems).toEqual(["undefined field 'namespace'"]);
  });
});
