/** apimachinery's quantity cases read as data (admission/upstream/quantity-cases.ts), on a file in quantity_test.go's shape. */
import { describe, expect, it } from 'vitest';
import { quantityAgreement, quantityCases } from '../../admission/upstream/quantity-cases.ts';

const GO = `
func TestQuantityParse(t *testing.T) {
	table := []struct {
		input  string
		expect Quantity
	}{
		{"8Ki", decQuantity(8*1024, 0, BinarySI)},
		{"3.001n", decQuantity(4, -9, DecimalSI)},
		{"9Ei", Quantity{d: maxAllowed, Format: BinarySI}},
		{"1x", someQuantity()},
	}
	invalid := []string{
		"1.1.M",
		"1d",
	}
}

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		input       string
		wantAsInt64 *int64
		wantAsDec   *infDecAmount
		canonical   string
	}{
		{input: "-1.0E", wantAsInt64: ptr.To[int64](-1000000000000000000), wantAsDec: ptrDec("-1000000000000000000"), canonical: "-1E"},
		{input: "10.0000000000000000001E", wantAsInt64: nil, wantAsDec: ptrDec("10000000000000000000.1")},
	}
}

func TestJSONWhitespace(t *testing.T) {
	testCases := []struct {
		in     string
		expect string
	}{
		{\`" 1"\`, "1"},
		{\` -1\`, "-1"},
	}
}
`;

describe("apimachinery's quantity cases, read as data", () => {
  it('reads each row, with its - and + forms, the invalid texts and the empty one, and says a row it cannot read', () => {
    const read = quantityCases(GO);
    expect(read.cases.map((c) => [c.input, c.expected === 'refused' ? c.expected : `${c.expected.value} ${c.expected.format ?? ''}`.trim()])).toEqual([
      ['8Ki', '8192e0 BinarySI'],
      ['-8Ki', '-8192e0 BinarySI'],
      ['+8Ki', '8192e0 BinarySI'],
      ['3.001n', '4e-9 DecimalSI'],
      ['-3.001n', '-4e-9 DecimalSI'],
      ['+3.001n', '4e-9 DecimalSI'],
      ['9Ei', `${2n ** 63n - 1n}e0 BinarySI`],
      ['-9Ei', `-${2n ** 63n - 1n}e0 BinarySI`],
      ['+9Ei', `${2n ** 63n - 1n}e0 BinarySI`],
      ['', 'refused'],
      ['1.1.M', 'refused'],
      ['1d', 'refused'],
      ['-1.0E', '-1e18'],
      ['10.0000000000000000001E', '100000000000000000001e-1'],
      ['" 1"', '1e0'],
      [' -1', '-1e0'],
    ]);
    expect(read.unread.map((u) => u.test)).toEqual(['TestQuantityParse/1x']);
  });

  it('agrees where the port reads each as apimachinery does, and counts a case where it does not', () => {
    const read = quantityCases(GO);
    const a = quantityAgreement(read);
    expect([a.agree, a.total]).toEqual([16, 17]);
    const wrong = quantityAgreement({ cases: [{ test: 'TestQuantityParse/1d', input: '1d', expected: { value: '1e0' } }], unread: [] });
    expect(wrong.disagreements).toEqual([
      expect.objectContaining({ why: expect.stringMatching(/^reads refused \(quantities must match .*\), apimachinery 1e0$/) }),
    ]);
  });
});
