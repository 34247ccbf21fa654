/** kube-openapi's format cases read as data (admission/upstream/kube-openapi-formats.ts), on files in its tests' shapes. */
import { describe, expect, it } from 'vitest';
import { extendedFormatCases, formatAgreement, strfmtCases } from '../../admission/upstream/kube-openapi-formats.ts';

const FIXTURE = JSON.stringify([
  {
    description: 'validation of CIDRs',
    schema: { format: 'cidr' },
    tests: [
      { description: 'a CIDR', data: '192.0.2.0/24', valid: true },
      { description: 'an address', data: '192.0.2.1', valid: false },
      { description: 'not a string', data: 12, valid: true },
    ],
  },
]);

const DEFAULT_TEST = `
func TestFormatHostname(t *testing.T) {
	hostname := Hostname("somewhere.com")
	str := string("somewhere.com")
	longStr := strings.Repeat("a", 64)
	invalid := []string{
		"www.-d.org", // a dash
		strings.Join([]string{"x", longStr}, "."),
	}
	testStringFormat(t, &hostname, "hostname", str, []string{"a.b.com"}, invalid)
}

func TestFormatUUID(t *testing.T) {
	first := uuid.NewSHA1(uuid.NameSpaceURL, []byte("somewhere.com"))
	testStringFormat(t, &u, "uuid", first.String(), []string{}, []string{"not-a-uuid"})
}

func testStringFormat(t *testing.T, what testableFormat, format, with string, validSamples, invalidSamples []string) {
	testStringFormatWithRegistry(t, Default, what, format, with, validSamples, invalidSamples)
}
`;

const DATE_TEST = `
func TestDate_IsDate(t *testing.T) {
	tests := []struct {
		value string
		valid bool
	}{
		{"2000-02-29", true},
		{"2017-02-29", false},
	}
}

func TestIsDuration_Caveats(t *testing.T) {
	e := IsDuration("45 weeks")
	assert.True(t, e)
	e = IsDuration("12 phours")
	assert.False(t, e)
}
`;

describe("kube-openapi's format cases, read as data", () => {
  it('reads the fixture, each test call with its variables, the date table and the asserted literals', () => {
    expect(extendedFormatCases(FIXTURE).map((c) => [c.value, c.valid])).toEqual([
      ['192.0.2.0/24', true],
      ['192.0.2.1', false],
      [12, true],
    ]);
    const { cases, unread } = strfmtCases([
      { name: 'default_test.go', source: DEFAULT_TEST },
      { name: 'date_test.go', source: DATE_TEST },
    ]);
    expect(cases.map((c) => `${String(c.schema.format)} ${String(c.value)} ${c.valid}`)).toEqual([
      'hostname a.b.com true',
      'hostname somewhere.com true',
      'hostname www.-d.org false',
      `hostname x.${'a'.repeat(64)} false`,
      'date 2000-02-29 true',
      'date 2017-02-29 false',
      'duration 45 weeks true',
      'duration 12 phours false',
    ]);
    // A call with a value built at run time (a generated UUID) is said, not guessed, samples and all; the helper's own call is no case.
    expect(unread).toEqual([expect.stringMatching(/^default_test\.go:15: unknown function first\.String/)]);
  });

  it('agrees where the schema layer judges each value as kube-openapi does, and counts what it does not', () => {
    const { cases, unread } = strfmtCases([{ name: 'default_test.go', source: DEFAULT_TEST }]);
    const a = formatAgreement([...cases, ...extendedFormatCases(FIXTURE)], unread);
    expect([a.agree, a.total]).toEqual([7, 8]);
    const wrong = formatAgreement([{ test: 'flipped', schema: { format: 'cidr' }, value: '192.0.2.1', valid: true }]);
    expect(wrong.disagreements).toEqual([expect.objectContaining({ file: 'flipped', why: expect.stringMatching(/^refused: must match format "cidr"/) })]);
  });
});
