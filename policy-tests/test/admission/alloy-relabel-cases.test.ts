/** The conformance reader of Alloy's relabelling tests (admission/upstream/alloy-relabel-cases.ts), on tables written as relabel_test.go writes them. */
import { describe, expect, it } from 'vitest';
import { alloyRelabelAgreement, alloyRelabelCases } from '../../admission/upstream/alloy-relabel-cases.ts';

const GO = `package relabel

func TestRelabelValidate(t *testing.T) {
	tests := []struct {
		config   Config
		expected string
	}{
		{
			config:   Config{},
			expected: \`relabel action cannot be empty\`,
		},
		{
			config: Config{
				Action: Replace,
			},
			expected: \`requires 'target_label' value\`,
		},
		{
			config: Config{
				SourceLabels: []string{"a"},
				Regex:        MustNewRegexp("some-([^-]+)-([^,]+)"),
				Action:       Replace,
				Replacement:  "\${1}",
				TargetLabel:  "\${3}",
			},
		},
		{
			config: Config{
				Action:      Lowercase,
				Replacement: "x",
				TargetLabel: "y",
			},
			expected: \`'replacement' can not be set\`,
		},
	}
}

func TestTargetLabelValidity(t *testing.T) {
	tests := []struct {
		str   string
		valid bool
	}{
		{"-label", false},
		{"label\${1}", true},
	}
}
`;

describe("the reader of Alloy's relabelling tests", () => {
  it('reads each rule as the test builds it (Go zero values, not the decoder defaults) and each target label', () => {
    const table = alloyRelabelCases(GO);
    expect(table.cases.map((c) => `${c.test}/${c.name}: ${c.want}`)).toEqual([
      'TestRelabelValidate/case 0: relabel action cannot be empty',
      "TestRelabelValidate/case 1: requires 'target_label' value",
      'TestRelabelValidate/case 2: valid',
      "TestRelabelValidate/case 3: 'replacement' can not be set",
      'TestTargetLabelValidity/-label: false',
      'TestTargetLabelValidity/label${1}: true',
    ]);
    expect(alloyRelabelAgreement(table)).toMatchObject({ agree: 6, total: 6 });
  });

  it('counts a case the gate answers otherwise against it', () => {
    const wrong = GO.replace('{"-label", false}', '{"-label", true}').replace('Replacement: "x"', 'Replacement: DefaultRelabelConfig.Replacement');
    expect(alloyRelabelAgreement(alloyRelabelCases(wrong))).toMatchObject({ agree: 4, total: 6 });
  });
});
