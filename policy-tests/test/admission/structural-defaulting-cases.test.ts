/** apiextensions-apiserver's defaulting cases read as data (admission/upstream/structural-defaulting-cases.ts), on a file in algorithm_test.go's shape. */
import { describe, expect, it } from 'vitest';
import { defaultingAgreement, defaultingCases } from '../../admission/upstream/structural-defaulting-cases.ts';

const GO = `
func TestDefault(t *testing.T) {
	tests := []struct {
		name     string
		json     string
		schema   *structuralschema.Structural
		expected string
	}{
		{"empty", "null", nil, "null"},
		{"object", \`{"a":1}\`, &structuralschema.Structural{
			Properties: map[string]structuralschema.Structural{
				"b": {
					Generic: structuralschema.Generic{
						Default: structuralschema.JSON{Object: "B"},
					},
				},
			},
		}, \`{"a":1,"b":"B"}\`},
		{"three cells", "null", nil},
	}
}

func TestPruneNonNullableNullsWithoutDefaults(t *testing.T) {
	tests := []struct {
		name     string
		json     string
		schema   *structuralschema.Structural
		expected string
	}{
		{"nullable kept", \`{"a":null,"b":null}\`, &structuralschema.Structural{
			Properties: map[string]structuralschema.Structural{
				"a": {Generic: structuralschema.Generic{Nullable: true}},
				"b": {},
			},
		}, \`{"a":null}\`},
	}
}
`;

describe("apiextensions-apiserver's defaulting cases, read as data", () => {
  it('reads each row, its Structural as the CRD schema it stands for, and says a row of another shape', () => {
    const { cases, unread } = defaultingCases([GO]);
    expect(cases.map((c) => [c.test, c.step, c.schema])).toEqual([
      ['TestDefault/empty', 'Default', undefined],
      ['TestDefault/object', 'Default', { properties: { b: { default: 'B' } } }],
      ['TestPruneNonNullableNullsWithoutDefaults/nullable kept', 'PruneNonNullableNullsWithoutDefaults', { properties: { a: { nullable: true }, b: {} } }],
    ]);
    expect(unread).toEqual([{ test: 'TestDefault/three cells', why: 'a row of another shape' }]);
  });

  it('agrees where the schema layer does what the API server does, and counts a row it does not', () => {
    const { cases, unread } = defaultingCases([GO]);
    expect([defaultingAgreement(cases, unread).agree, defaultingAgreement(cases, unread).total]).toEqual([3, 4]);
    const wrong = defaultingAgreement([{ ...cases[1]!, expected: { a: 1 } }]);
    expect(wrong.disagreements).toEqual([expect.objectContaining({ file: 'TestDefault/object' })]);
  });
});
