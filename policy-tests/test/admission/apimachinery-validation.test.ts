/** apimachinery's validation_test.go read as data (admission/upstream/apimachinery-validation.ts), on tests in its shape. */
import { describe, expect, it } from 'vitest';
import { syntaxAgreement, syntaxCases } from '../../admission/upstream/apimachinery-validation.ts';

const GO = `
func TestIsDNS1123Label(t *testing.T) {
	goodValues := []string{
		"a", "a-1",
		strings.Repeat("a", 63),
	}
	for _, val := range goodValues {
		if msgs := IsDNS1123Label(val); len(msgs) != 0 {
			t.Errorf("expected true for '%s': %v", val, msgs)
		}
	}

	badValues := []string{"", "A", string(rune(1)) + "a", strings.Repeat("a", 64), "fine-on-purpose"}
	for _, val := range badValues {
		if msgs := IsDNS1123Label(val); len(msgs) == 0 {
			t.Errorf("expected false for '%s'", val)
		}
	}
}

func TestIsConfigMapKey(t *testing.T) {
	failureCases := []string{"..bad", "a/b"}
	for i := range failureCases {
		if errs := IsConfigMapKey(failureCases[i]); len(errs) == 0 {
			t.Errorf("[%d] expected failure", i)
		}
	}
}

func TestIsHTTPHeaderName(t *testing.T) {
	goodValues := []string{"X-Header"}
	for _, val := range goodValues {
		if msgs := IsHTTPHeaderName(val); len(msgs) != 0 {
			t.Errorf("expected true")
		}
	}
}

func TestIsDNS1123SubdomainWithUnderscore(t *testing.T) {
	tests := []struct {
		name     string
		value    string
		expected []string
	}{
		{name: "underscore", value: "_sip.example.com", expected: nil},
		{name: "too long", value: "a." + string(make([]byte, 251)) + ".com", expected: []string{MaxLenError(DNS1123SubdomainMaxLength)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result := IsDNS1123SubdomainWithUnderscore(tt.value)
		})
	}
}
`;

describe("apimachinery's name and value rules, read as data", () => {
  it('reads each good and bad list with the function its loop calls, and a table by its expected messages', () => {
    const table = syntaxCases(GO);
    expect(table.unported).toEqual(['IsHTTPHeaderName']);
    expect(table.unread).toEqual([]);
    expect(table.cases.filter((c) => c.fn === 'IsDNS1123Label').map((c) => [c.value, c.valid])).toEqual([
      ['a', true],
      ['a-1', true],
      ['a'.repeat(63), true],
      ['', false],
      ['A', false],
      ['\u0001a', false],
      ['a'.repeat(64), false],
      ['fine-on-purpose', false],
    ]);
    expect(table.cases.filter((c) => c.fn === 'IsDNS1123SubdomainWithUnderscore').map((c) => c.valid)).toEqual([true, false]);
  });

  it('holds each value to its list through the gate, and says where it differs', () => {
    const a = syntaxAgreement(syntaxCases(GO));
    expect([a.agree, a.total]).toEqual([11, 12]);
    expect(a.disagreements.map((d) => d.file)).toEqual(['TestIsDNS1123Label/"fine-on-purpose"']);
  });
});
