/** apimachinery's validation_test.go read as data (admission/upstream/apimachinery-validation.ts), on tests in its shape. */
import { describe, expect, it } from 'vitest';
import { ipCases, metadataMapCases, syntaxAgreement, syntaxCases } from '../../admission/upstream/apimachinery-validation.ts';

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

  it("reads ip_test.go's tables by their legacy, non-strict column: leading zeros admitted, a zone refused", () => {
    const IP = `
func TestIsValidIP(t *testing.T) {
	testCases := []struct {
		name string
		in   string

		err             string
		legacyErr       string
		legacyStrictErr string
	}{
		{name: "ipv4", in: "1.2.3.4"},
		{name: "ipv4, leading 0s", in: "1.002.3.4", err: "must not have leading 0s", legacyStrictErr: "must not have leading 0s"},
		{name: "ipv6 with zone", in: "1234::abcd%eth0", err: "zone", legacyErr: "must be a valid IP address", legacyStrictErr: "must be a valid IP address"},
	}
	for _, tc := range testCases {}
}

func TestIsValidCIDR(t *testing.T) {
	testCases := []struct {
		name string
		in   string

		err             string
		legacyErr       string
		legacyStrictErr string
	}{
		{name: "ipv4, leading 0s", in: "1.1.01.0/24", err: "leading 0s", legacyStrictErr: "leading 0s"},
		{name: "bad prefix", in: "1.2.3.4/33", err: "prefix", legacyErr: "must be a valid CIDR value", legacyStrictErr: "must be a valid CIDR value"},
	}
	for _, tc := range testCases {}
}
`;
    const table = ipCases(IP);
    expect(table.cases.map((c) => [c.fn, c.value, c.valid])).toEqual([
      ['IsValidIPForLegacyField', '1.2.3.4', true],
      ['IsValidIPForLegacyField', '1.002.3.4', true],
      ['IsValidIPForLegacyField', '1234::abcd%eth0', false],
      ['IsValidCIDRForLegacyField', '1.1.01.0/24', true],
      ['IsValidCIDRForLegacyField', '1.2.3.4/33', false],
    ]);
    const a = syntaxAgreement(table);
    expect([a.agree, a.total]).toEqual([5, 5]);
  });

  it('reads the label and annotation maps, success maps admitted and error maps refused, the size limit by its constant', () => {
    const GO = `
func TestValidateAnnotations(t *testing.T) {
	successCases := []map[string]string{
		{"simple": "bar"},
		{"a": strings.Repeat("b", TotalAnnotationSizeLimitB-1)},
	}
	nameErrorCases := []struct {
		annotations map[string]string
		expect      string
	}{
		{map[string]string{"only/one/slash": "bar"}, nameErrMsg},
	}
	totalSizeErrorCases := []map[string]string{
		{"a": strings.Repeat("b", TotalAnnotationSizeLimitB)},
	}
}
`;
    const table = metadataMapCases([GO]);
    expect(table.cases.map((c) => [c.fn, Object.keys(c.value as object)[0], c.valid])).toEqual([
      ['ValidateAnnotations', 'simple', true],
      ['ValidateAnnotations', 'a', true],
      ['ValidateAnnotations', 'only/one/slash', false],
      ['ValidateAnnotations', 'a', false],
    ]);
    const a = syntaxAgreement(table);
    expect([a.agree, a.total]).toEqual([4, 4]);
  });
});
