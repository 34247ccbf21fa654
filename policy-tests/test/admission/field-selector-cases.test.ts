/** The conformance reader of apimachinery's field selector tests (admission/upstream/field-selector-cases.ts), on tables written as pkg/fields/selector_test.go writes them. */
import { describe, expect, it } from 'vitest';
import { fieldSelectorAgreement, fieldSelectorCases } from '../../admission/upstream/field-selector-cases.ts';

const GO = `package fields

func TestSplitTerms(t *testing.T) {
	testcases := map[string][]string{
		\`a=avalue,b==bvalue\`: {\`a=avalue\`, \`b==bvalue\`},
		\`\`:                   nil,
		\`k=\\,,k2=v2\`:        {\`k=\\,\`, \`k2=v2\`},
	}
}

func TestSplitTerm(t *testing.T) {
	testcases := map[string]struct {
		lhs string
	}{
		\`c!=value\`: {lhs: \`c\`, op: \`!=\`, rhs: \`value\`, ok: true},
		\`a\`:        {lhs: \`\`, op: \`\`, rhs: \`\`, ok: false},
	}
}

func TestEscapeValue(t *testing.T) {
	testcases := map[string]string{
		\`=\`: \`\\=\`,
	}
	invalidTestcases := []string{
		\`\\a\`,
	}
}

func TestSelectorParse(t *testing.T) {
	testGoodStrings := []string{
		"x!=a,y=b",
		\`x=a\\=\\=b\`,
	}
	testBadStrings := []string{
		"x=a,b",
		"x",
	}
}
`;

describe("the reader of apimachinery's field selector tests", () => {
  it('reads each table and holds the gate to it', () => {
    const table = fieldSelectorCases(GO);
    expect(table.cases.map((c) => `${c.test}/${c.name}`)).toEqual([
      'TestSplitTerms/a=avalue,b==bvalue',
      'TestSplitTerms/',
      'TestSplitTerms/k=\\,,k2=v2',
      'TestSplitTerm/c!=value',
      'TestSplitTerm/a',
      'TestEscapeValue/unescape \\=',
      'TestEscapeValue/refuse \\a',
      'TestSelectorParse/good x!=a,y=b',
      'TestSelectorParse/good x=a\\=\\=b',
      'TestSelectorParse/bad x=a,b',
      'TestSelectorParse/bad x',
    ]);
    expect(fieldSelectorAgreement(table)).toMatchObject({ agree: 11, total: 11 });
  });

  it('counts a case the gate answers otherwise against it', () => {
    const wrong = GO.replace('"x",\n', '"x=y",\n');
    expect(fieldSelectorAgreement(fieldSelectorCases(wrong))).toMatchObject({ agree: 10, total: 11 });
  });
});
