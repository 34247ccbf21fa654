/**
 * `conformance --alloy`'s reading of Alloy's decoder tests: a test function's cases (`t.Run`), its shared types, a
 * table-driven test's rows, each input against the struct it decodes into; what it cannot read said as unread; and the
 * agreement bites (an expectation the port does not meet is a disagreement).
 */
import { describe, expect, it } from 'vitest';
import { alloyDecoderRows, alloyExprErrorRows } from '../monitoring/alloy-decoder-tests.ts';
import { hoistAnonymousStructs } from '../lib/go-structs.ts';
import { conformance } from '../../policy-tests/index.ts';

const BT = '`';
const GO = `package vm_test

func TestDecode(t *testing.T) {
	type child struct {
		Name string ${BT}alloy:"name,attr"${BT}
	}

	t.Run("Takes a child block", func(t *testing.T) {
		type block struct {
			Child child ${BT}alloy:"child,block"${BT}
		}

		input := ${BT}some_block {
			child {
				name = "a"
			}
		}${BT}
		eval := vm.New(parseBlock(t, input))

		var actual block
		require.NoError(t, eval.Evaluate(nil, &actual))
	})

	t.Run("Refuses an unknown attribute", func(t *testing.T) {
		type block struct{}

		input := ${BT}some_block {
			other = 1
		}${BT}
		eval := vm.New(parseBlock(t, input))

		err := eval.Evaluate(nil, &block{})
		require.EqualError(t, err, ${BT}2:4: unrecognized attribute name "other"${BT})
	})

	t.Run("Built at run time", func(t *testing.T) {
		input := fmt.Sprintf(${BT}x = %d${BT}, 1)
		require.NoError(t, err)
	})
}

func TestMap(t *testing.T) {
	type outer struct {
		Settings map[string]any ${BT}alloy:"settings,block"${BT}
	}

	tt := []struct {
		name        string
		input       string
		expectError string
	}{
		{
			name: "takes attributes",
			input: ${BT}settings {
				a = 1
			}${BT},
		},
		{
			name: "refuses a nested block",
			input: ${BT}settings {
				inner {
				}
			}${BT},
			expectError: "nested blocks not supported",
		},
	}

	for _, tc := range tt {
		t.Run(tc.name, func(t *testing.T) {
			file, err := parser.ParseFile(t.Name(), []byte(tc.input))
			eval := vm.New(file)

			var actual outer
			err = eval.Evaluate(nil, &actual)

			if tc.expectError == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.expectError)
			}
		})
	}
}
`;

describe("Alloy's decoder tests, read as conformance rows", () => {
  it('reads each case with its struct and expectation, a table row by row, and says what it cannot read', async () => {
    const { rows, unread } = await alloyDecoderRows(GO);
    expect(rows.map((r) => [r.test, r.name, r.mode, r.want])).toEqual([
      ['TestDecode', 'Takes a child block', 'block', 'ok'],
      ['TestDecode', 'Refuses an unknown attribute', 'block', '2:4: unrecognized attribute name "other"'],
      ['TestMap', 'takes attributes', 'file', 'ok'],
      ['TestMap', 'refuses a nested block', 'file', 'nested blocks not supported'],
    ]);
    expect(rows[0]!.schemas[rows[0]!.root]).toEqual({ child: 'block required test.child' });
    expect(unread).toEqual([{ name: 'TestDecode/Built at run time', why: 'its input is built at run time (fmt.Sprintf or a table)' }]);
    const { table, outOfScope } = conformance.alloyDecoderCases(rows, unread);
    const agreement = conformance.alloyDecoderAgreement(table);
    expect([agreement.agree, agreement.total, outOfScope.length]).toEqual([4, 5, 0]);
  });

  it('bites: an expectation the port does not meet is a disagreement', async () => {
    const { rows } = await alloyDecoderRows(GO.replace('unrecognized attribute name "other"', 'unrecognized attribute name "another"'));
    const agreement = conformance.alloyDecoderAgreement(conformance.alloyDecoderCases(rows, []).table);
    expect(agreement.disagreements.map((d) => d.file)).toEqual(['TestDecode/Refuses an unknown attribute']);
  });
});

const ERRORS_GO = `package vm_test

func TestVM_ExprErrors(t *testing.T) {
	type Target struct {
		Key struct {
			Field1 []int ${BT}alloy:"field1,attr"${BT}
		} ${BT}alloy:"key,attr"${BT}
	}

	tt := []struct {
		name   string
		input  string
		into   any
		scope  *vm.Scope
		expect string
	}{
		{
			name:   "basic wrong type",
			input:  ${BT}key = true${BT},
			into:   &Target{},
			expect: "test:1:7: true should be object, got bool",
		},
		{
			name:  "indirect",
			input: ${BT}key = key_value${BT},
			into:  &Target{},
			scope: vm.NewScope(map[string]any{}),
			expect: ${BT}test:1:7: key_value.field1[2] should be number, got string${BT},
		},
		{
			name:  "complex expr",
			input: ${BT}key = [0, 1, 2]${BT},
			into: &struct {
				Key string ${BT}alloy:"key,attr"${BT}
			}{},
			expect: ${BT}test:1:7: [0, 1, 2] should be string, got array${BT},
		},
	}

	for _, tc := range tt {
	}
}
`;

describe("Alloy's expression error tests (vm_errors_test.go), read as conformance rows", () => {
  it('reads each row with its struct (an anonymous field hoisted, an inline struct named) and says a scoped row unread', async () => {
    const { rows, unread } = await alloyExprErrorRows(ERRORS_GO);
    expect(rows.map((r) => [r.name, r.input, r.schemas[r.root], r.want])).toEqual([
      ['basic wrong type', 'key = true', { key: 'attr required object(test.Target_Key)' }, 'test:1:7: true should be object, got bool'],
      ['complex expr', 'key = [0, 1, 2]', { key: 'attr required string' }, 'test:1:7: [0, 1, 2] should be string, got array'],
    ]);
    expect(rows[0]!.schemas['test.Target_Key']).toEqual({ field1: 'attr required list(number)' });
    expect(unread).toEqual([{ name: 'TestVM_ExprErrors/indirect', why: 'it evaluates in a scope of Go values' }]);
    const agreement = conformance.alloyDecoderAgreement(conformance.alloyDecoderCases(rows, unread).table);
    expect([agreement.agree, agreement.total]).toEqual([2, 3]);
  });

  it('hoists nested anonymous structs each into a type of its own', () => {
    expect(hoistAnonymousStructs('type A struct {\n\tB struct {\n\t\tC struct {\n\t\t\tD int\n\t\t} `t`\n\t} `u`\n}')).toEqual([
      'type A struct {\n\tB A_B `u`\n}',
      'type A_B struct {\n\tC A_B_C `t`\n}',
      'type A_B_C struct {\n\tD int\n}',
    ]);
  });
});
