/**
 * A list's label selector as the API server reads it (model/programs/label-selectors.ts), and the conformance reader of
 * apimachinery's label selector tests (admission/upstream/label-selector-cases.ts), on tables written as
 * pkg/labels/selector_test.go writes them.
 */
import { describe, expect, it } from 'vitest';
import { labelSelectorAgreement, labelSelectorCases } from '../../admission/upstream/label-selector-cases.ts';
import { labelSelectorString, parseLabelSelector } from '../../model/programs/label-selectors.ts';

const GO = `package labels

func TestSelectorParse(t *testing.T) {
	testGoodStrings := []string{
		"x=a,y=b,z=c",
		"x= ,z= ",
	}
	testBadStrings := []string{
		"!x=a",
	}
}

func TestLexer(t *testing.T) {
	testcases := []struct {
		s string
		t Token
	}{
		{"!=", NotEqualsToken},
		{"||", IdentifierToken},
	}
}

func TestLexerSequence(t *testing.T) {
	testcases := []struct {
		s string
		t []Token
	}{
		{"key in ( value )", []Token{IdentifierToken, InToken, OpenParToken, IdentifierToken, ClosedParToken}},
	}
}

func TestRequirementConstructor(t *testing.T) {
	requirementConstructorTests := []struct {
		Key     string
	}{
		{
			Key:  "x16",
			Op:   selection.Equals,
			Vals: sets.NewString(strings.Repeat("a", 254)),
			WantErr: field.ErrorList{
				&field.Error{
					Type:     field.ErrorTypeInvalid,
					Field:    "values[0][x16]",
					BadValue: strings.Repeat("a", 254),
				},
			},
		},
		{
			Key: "x6",
			Op:  selection.Exists,
		},
	}
}

func TestSetSelectorParser(t *testing.T) {
	setSelectorParserTests := []struct {
		In    string
	}{
		{"x notin (abc,,def),bar,z in (),w", internalSelector{
			getRequirement("bar", selection.Exists, nil, t),
			getRequirement("w", selection.Exists, nil, t),
			getRequirement("x", selection.NotIn, sets.NewString("abc", "", "def"), t),
			getRequirement("z", selection.In, sets.NewString(""), t),
		}, true, true},
		{"x,,y", nil, true, false},
	}
}
`;

describe('a label selector as the API server reads a list of it', () => {
  it('parses the set-based and exact requirements, sorted by key, and reads them back', () => {
    const parsed = parseLabelSelector('x in (b,a,b), !y ,z==c,n>1,app.kubernetes.io/name notin ()');
    expect(parsed).toEqual({
      requirements: [
        { key: 'app.kubernetes.io/name', operator: 'notin', values: [''] },
        { key: 'n', operator: 'gt', values: ['1'] },
        { key: 'x', operator: 'in', values: ['a', 'b'] },
        { key: 'y', operator: '!', values: [] },
        { key: 'z', operator: '==', values: ['c'] },
      ],
    });
    expect('requirements' in parsed && labelSelectorString(parsed.requirements)).toBe('app.kubernetes.io/name notin (),n>1,x in (a,b),!y,z==c');
  });

  it('refuses what labels.Parse refuses, in its words', () => {
    expect(parseLabelSelector('app in (a')).toEqual({ error: "unable to parse requirement: found '', expected: ',' or ')'" });
    expect(parseLabelSelector('app=a,')).toEqual({ error: "found '', expected: identifier after ','" });
    expect(parseLabelSelector('app>=1')).toEqual({ error: "unable to parse requirement: found '=', expected: identifier" });
    expect(parseLabelSelector('app>one')).toEqual({
      error: "unable to parse requirement: values[0]: Invalid value: \"one\": for 'Gt', 'Lt' operators, the value must be an integer",
    });
    expect(parseLabelSelector('-app')).toMatchObject({ error: expect.stringMatching(/^unable to parse requirement: <nil>: Invalid value: "-app": name part/) });
    expect(parseLabelSelector('app=a b')).toEqual({ error: "found 'b', expected: ',' or 'end of string'" });
    expect(parseLabelSelector('app=a|b')).toMatchObject({
      error: expect.stringMatching(/^unable to parse requirement: values\[0\]\[app\]: Invalid value: "a\|b"/),
    });
  });
});

describe("the reader of apimachinery's label selector tests", () => {
  it('reads each table and holds the gate to it', () => {
    const table = labelSelectorCases(GO);
    expect(table.cases.map((c) => `${c.test}/${c.name}`)).toEqual([
      'TestLexer/"!="',
      'TestLexer/"||"',
      'TestLexerSequence/"key in ( value )"',
      'TestSelectorParse/good "x=a,y=b,z=c"',
      'TestSelectorParse/good "x= ,z= "',
      'TestSelectorParse/bad "!x=a"',
      'TestSetSelectorParser/"x notin (abc,,def),bar,z in (),w"',
      'TestSetSelectorParser/"x,,y"',
      'TestRequirementConstructor/x16',
      'TestRequirementConstructor/x6',
    ]);
    expect(labelSelectorAgreement(table)).toMatchObject({ agree: 10, total: 10 });
  });

  it('counts a case the gate answers otherwise against it', () => {
    const wrong = GO.replace('{"||", IdentifierToken}', '{"||", ErrorToken}').replace('"!x=a",', '"!x",');
    expect(labelSelectorAgreement(labelSelectorCases(wrong))).toMatchObject({ agree: 8, total: 10 });
  });
});
