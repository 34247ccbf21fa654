/** apimachinery's strategic merge patch cases read as data (admission/upstream/strategic-merge-patch-cases.ts), on a file in patch_test.go's shape. */
import { describe, expect, it } from 'vitest';
import { strategicMergePatchAgreement, strategicMergePatchCases } from '../../admission/upstream/strategic-merge-patch-cases.ts';

const GO = `
type MergeItem struct {
	Name                  string               \`json:"name,omitempty"\`
	Value                 string               \`json:"value,omitempty"\`
	MergingList           []MergeItem          \`json:"mergingList,omitempty" patchStrategy:"merge" patchMergeKey:"name"\`
	NonMergingList        []MergeItem          \`json:"nonMergingList,omitempty"\`
	MergingIntList        []int                \`json:"mergingIntList,omitempty" patchStrategy:"merge"\`
	Channel               chan int             \`json:"channel,omitempty"\`
}

var createStrategicMergePatchTestCaseData = []byte(\`
testCases:
  - description: add an item to a merging list
    original:
      mergingList:
        - name: b
        - name: a
    twoWay:
      $setElementOrder/mergingList:
        - name: a
        - name: b
        - name: c
      mergingList:
        - name: c
    modified:
      mergingList:
        - name: a
        - name: b
        - name: c
    current:
      mergingList:
        - name: a
    threeWay:
      $setElementOrder/mergingList:
        - name: a
        - name: c
      mergingList:
        - name: c
    result:
      mergingList:
        - name: a
        - name: c
\`)

var strategicMergePatchRawTestCases = []StrategicMergePatchRawTestCase{
	{
		// a comment before the description
		Description: "replace a non-merging list",
		StrategicMergePatchRawTestCaseData: StrategicMergePatchRawTestCaseData{
			Original: []byte(\`
nonMergingList:
  - name: 1
\`),
			TwoWay: []byte(\`
nonMergingList:
  - name: 2
\`),
			Modified: []byte(\`
nonMergingList:
  - name: 2
\`),
		},
	},
	{
		Description: "missing merge key",
		StrategicMergePatchRawTestCaseData: StrategicMergePatchRawTestCaseData{
			Original: []byte(\`
mergingList:
  - name: 1
\`),
			TwoWay: []byte(\`
mergingList:
  - value: 2
\`),
			ExpectedError: "does not contain declared merge key",
		},
	},
}

func TestUnknownField(t *testing.T) {
	testcases := map[string]struct {
		Original string
	}{
		"scalar": {
			Original: \`{"name":"foo","scalar":true}\`,
			Current:  \`{"name":"foo","scalar":true}\`,
			Modified: \`{"name":"foo","scalar":false}\`,

			ExpectedTwoWay:         \`{"scalar":false}\`,
			ExpectedTwoWayResult:   \`{"name":"foo","scalar":false}\`,
			ExpectedThreeWay:       \`{"scalar":false}\`,
			ExpectedThreeWayResult: \`{"name":"foo","scalar":false}\`,
		},
		"cannot be made": {
			Original: \`{"name":"foo"}\`,
			ExpectedTwoWay:         \`{}\`,
			ExpectedTwoWayResult:   \`{}\`,
			ExpectedTwoWayErr:      \`unable to find api field\`,
		},
	}
}
`;

describe("apimachinery's strategic merge patch cases, read as data", () => {
  it('reads the test struct as the schema, each table as applications, and says the field it cannot type', () => {
    const { cases, unread } = strategicMergePatchCases(GO);
    expect(unread).toEqual(['MergeItem.channel: type chan int']);
    expect(cases.map((c) => c.test)).toEqual([
      'createStrategicMergePatchTestCaseData/add an item to a merging list/TwoWay',
      'createStrategicMergePatchTestCaseData/add an item to a merging list/ThreeWay',
      'strategicMergePatchRawTestCases/replace a non-merging list/TwoWay',
      'strategicMergePatchRawTestCases/missing merge key/TwoWay',
      'TestUnknownField/scalar/TwoWay',
      'TestUnknownField/scalar/ThreeWay',
    ]);
    // The YAML tables are sorted first, as the test sorts them: the original's merging list by name.
    expect(cases[0]!.original).toEqual({ mergingList: [{ name: 'a' }, { name: 'b' }] });
    expect(cases[3]!.error).toBe('does not contain declared merge key');
  });

  it('agrees where the model applies each as apimachinery does, and counts a case it does not', () => {
    const { cases, schema, unread } = strategicMergePatchCases(GO);
    const a = strategicMergePatchAgreement(cases, schema, unread);
    expect(a.disagreements.filter((d) => d.group !== 'not read')).toEqual([]);
    expect([a.agree, a.total]).toEqual([6, 7]);
    const wrong = cases.map((c) => (c.test.endsWith('non-merging list/TwoWay') ? { ...c, expected: { nonMergingList: [{ name: 1 }, { name: 2 }] } } : c));
    const b = strategicMergePatchAgreement(wrong, schema);
    expect(b.disagreements.map((d) => d.file)).toEqual(['strategicMergePatchRawTestCases/replace a non-merging list/TwoWay']);
  });
});
