/**
 * The conformance reader of Alloy's expression tests (admission/upstream/alloy-evaluate-cases.ts) on tables written
 * as vm_test.go and vm_stdlib_test.go write them, and the standard library's functions of text
 * (model/alloy/stdlib-encoding.ts) as Go computes them.
 */
import { describe, expect, it } from 'vitest';
import { alloyEvaluateAgreement, alloyEvaluateCases, alloyEvaluateRows } from '../../admission/upstream/alloy-evaluate-cases.ts';
import { format, fromBase64, fromYaml, goJsonMarshal, queryEscape, queryUnescape, toJson } from '../../model/alloy/stdlib-encoding.ts';

const VM_TEST = `package vm_test

func TestVM_Evaluate_Literals(t *testing.T) {
	tt := map[string]struct {
		input  string
		expect any
	}{
		"number to string":  {\`24\`, string("24")},
		"string to int":     {\`"12"\`, int(12)},
	}
}

func TestVM_Evaluate(t *testing.T) {
	tt := []struct {
		input  string
		expect any
	}{
		{\`3 + 5 * 2\`, int(13)},
		{\`7 / 2\`, int(4)},
		{\`{ a = 5, b = 10 }\`, map[string]int{"b": 10, "a": 5}},
		{\`foobar\`, int(42)},
	}
}
`;
const STDLIB_TEST = `package vm_test

func TestVM_Stdlib_Errors(t *testing.T) {
	tt := []struct {
		name        string
		input       string
		expectedErr string
	}{
		{"encoding.to_json", \`encoding.to_json(12)\`, \`encoding.to_json jsonEncode only supports map\`},
	}
}

func TestStdlibCoalesce(t *testing.T) {
	tt := []struct {
		name   string
		input  string
		expect any
	}{
		{"coalesce()", \`coalesce()\`, value.Null},
		{"coalesce(list, list)", \`coalesce([], ["fallback"])\`, []string{"fallback"}},
	}
}
`;

describe("the reader of Alloy's expression tests", () => {
  it('reads each table, decodes into the type the test names, and counts a wrong answer and a value it does not work out against the gate', () => {
    const { rows, unread } = alloyEvaluateRows({ vm: VM_TEST, stdlib: STDLIB_TEST });
    expect(unread).toEqual([]);
    expect(rows.map((r) => `${r.test}/${r.name}`)).toEqual([
      'TestVM_Evaluate_Literals/number to string',
      'TestVM_Evaluate_Literals/string to int',
      'TestVM_Evaluate/3 + 5 * 2',
      'TestVM_Evaluate/7 / 2',
      'TestVM_Evaluate/{ a = 5, b = 10 }',
      'TestVM_Evaluate/foobar',
      'TestVM_Stdlib_Errors/encoding.to_json (row 1)',
      'TestStdlibCoalesce/coalesce() (row 1)',
      'TestStdlibCoalesce/coalesce(list, list) (row 2)',
    ]);
    const agreement = alloyEvaluateAgreement(alloyEvaluateCases(rows, unread));
    // 7 / 2 is 3 in the vm's integer arithmetic: the table's 4 is a disagreement; foobar reads the test's scope.
    expect([agreement.agree, agreement.total]).toEqual([7, 9]);
  });
});

describe("the standard library's functions of text, as Go computes them", () => {
  it('encodes JSON as encoding/json does: keys sorted, the HTML characters escaped; only an object', () => {
    expect(goJsonMarshal({ b: [1, 2.5, null], a: '<a&b>\n' })).toBe('{"a":"\\u003ca\\u0026b\\u003e\\n","b":[1,2.5,null]}');
    expect(toJson(12)).toEqual({ error: 'jsonEncode only supports map' });
  });

  it('decodes base64 strictly, escapes and unescapes a query, reads YAML by the core schema', () => {
    expect(fromBase64('Zm9v', 'std')).toEqual({ value: 'foo' });
    expect(fromBase64('Zm9', 'std')).toEqual({ error: 'illegal base64 data' });
    expect(fromBase64('c3RyaW5nMTIzIT8kKiYoKSctPUB-', 'url')).toEqual({ value: "string123!?$*&()'-=@~" });
    expect(queryEscape("a b!'()*~")).toEqual({ value: 'a+b%21%27%28%29%2A~' });
    expect(queryUnescape('a+b%21')).toEqual({ value: 'a b!' });
    expect(queryUnescape('a%zz')).toEqual({ error: 'invalid URL escape "%zz"' });
    expect(fromYaml('a: yes\nb: 0x1F')).toEqual({ value: { a: 'yes', b: 31 } });
    expect(fromYaml('a: [')).toMatchObject({ error: expect.stringContaining('invalid YAML') });
  });

  it("formats the common verbs, and leaves any other to Go's fmt", () => {
    expect(format('Hello %s, %d%% %q %#v %#v', ['World', 5, 'x', true, 'y'])).toEqual({ value: 'Hello World, 5% "x" true "y"' });
    expect(format('%x', [255])).toBeUndefined();
    expect(format('%s %s', ['a'])).toBeUndefined();
  });
});
