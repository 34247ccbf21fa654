/** apiextensions-apiserver's pruning cases read as data (admission/upstream/crd-pruning-cases.ts), on a file in algorithm_test.go's shape. */
import { describe, expect, it } from 'vitest';
import { pruningAgreement, pruningCases } from '../../admission/upstream/crd-pruning-cases.ts';

const GO = `
func TestPrune(t *testing.T) {
	tests := []struct {
		name           string
		json           string
		isResourceRoot bool
		schema         *structuralschema.Structural
		expectedObject string
		expectedPruned []string
	}{
		{name: "nil schema", json: \`{"a":1,"b":{"c":1}}\`, expectedObject: \`{}\`, expectedPruned: []string{"a", "b"}},
		{name: "preserved", json: \`{"a":{"x":1},"b":1}\`, schema: &structuralschema.Structural{
			Extensions: structuralschema.Extensions{XPreserveUnknownFields: true},
			Properties: map[string]structuralschema.Structural{
				"a": {Generic: structuralschema.Generic{Type: "object"}},
			},
		}, expectedObject: \`{"a":{},"b":1}\`, expectedPruned: []string{"a.x"}},
		{name: "root", json: \`{"apiVersion":"v1","kind":"K","metadata":{"x":1},"spec":1}\`, isResourceRoot: true, expectedObject: \`{}\`, expectedPruned: []string{"spec"}},
		{name: "unreadable", json: someFunction()},
	}
}
`;

describe("apiextensions-apiserver's pruning cases, read as data", () => {
  it('reads each row and its Structural as the CRD schema it stands for, and says a row it cannot read', () => {
    const { cases, unread } = pruningCases(GO);
    expect(cases.map((c) => [c.test, c.isResourceRoot, c.schema, c.expected])).toEqual([
      ['TestPrune/nil schema', false, undefined, ['a', 'b']],
      ['TestPrune/preserved', false, { 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'object' } } }, ['a.x']],
      ['TestPrune/root', true, undefined, ['spec']],
    ]);
    expect(unread.map((u) => u.test)).toEqual(['TestPrune/unreadable']);
  });

  it('agrees where the schema layer finds the paths the API server prunes, and counts a row where it does not', () => {
    const { cases, unread } = pruningCases(GO);
    const a = pruningAgreement(cases, unread);
    expect([a.agree, a.total]).toEqual([3, 4]);
    const wrong = pruningAgreement([{ ...cases[1]!, expected: [] }]);
    expect(wrong.disagreements).toEqual([expect.objectContaining({ why: 'finds ["a.x"], the API server prunes []' })]);
  });
});
