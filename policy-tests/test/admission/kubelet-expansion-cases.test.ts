/**
 * The reader of the kubelet's `$(NAME)` expansion tests (upstream/kubelet-expansion-cases.ts), on a file written in
 * their form: the mapping's context, the cases with Go's escapes, the env list each entry of which reads the ones before.
 */
import { describe, expect, it } from 'vitest';
import { kubeletExpansionAgreement, kubeletExpansionCases } from '../../admission/upstream/kubelet-expansion-cases.ts';

const TEST = `
func TestMapReference(t *testing.T) {
	envs := []api.EnvVar{
		{
			Name:  "FOO",
			Value: "bar",
		},
		{
			Name:  "ZOO",
			Value: "$(FOO)-1",
		},
	}

	expectedEnv := map[string]string{
		"FOO": "bar",
		"ZOO": "bar-1",
	}
}

func TestMapping(t *testing.T) {
	context := map[string]string{
		"VAR_A":     "A",
		"VAR_EMPTY": "",
	}
	mapping := MappingFuncFor(context)
}

func doExpansionTest(t *testing.T, mapping func(string) string) {
	cases := []struct {
		name     string
		input    string
		expected string
	}{
		{
			name:     "backslash escape ignored",
			input:    "foo\\\\$(VAR_A)bar",
			expected: "foo\\\\Abar",
		},
		{
			name:     "newline not expanded",
			input:    "\\n$(VAR_EMPTY)",
			expected: "\\n",
		},
		{
			name:     "a case the gate would miss",
			input:    "$(VAR_A)",
			expected: "B",
		},
	}
}
`;

describe("the reader of the kubelet's expansion tests", () => {
  const cases = kubeletExpansionCases(TEST);

  it("reads each case with Go's escapes, and the env list with what each entry expands to", () => {
    expect(cases.map((c) => `${c.test} ${c.name} ${JSON.stringify(c.expected)}`)).toEqual([
      'TestMapping backslash escape ignored "foo\\\\Abar"',
      'TestMapping newline not expanded "\\n"',
      'TestMapping a case the gate would miss "B"',
      'TestMapReference FOO "bar"',
      'TestMapReference ZOO "bar-1"',
    ]);
  });

  it('counts a case the gate expands otherwise as a disagreement, with both answers', () => {
    const agreement = kubeletExpansionAgreement(cases);
    expect([agreement.agree, agreement.total]).toEqual([4, 5]);
    expect(agreement.disagreements).toEqual([
      { group: 'TestMapping', file: 'TestMapping/a case the gate would miss', why: 'the gate gives "A", the kubelet "B"' },
    ]);
  });
});
