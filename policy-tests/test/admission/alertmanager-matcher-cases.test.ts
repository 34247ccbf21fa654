/**
 * The readers of Alertmanager's classic matchers parser tests (upstream/alertmanager-config-cases.ts) and of its
 * inhibition tests (upstream/alertmanager-inhibit-cases.ts), on files written in their form; and the gate's port of
 * that parser (model/alertmanager/matchers.ts) where those tests say nothing.
 */
import { describe, expect, it } from 'vitest';
import { alertmanagerConfigAgreement, alertmanagerMatcherCases } from '../../admission/upstream/alertmanager-config-cases.ts';
import { matcherMatches, parseMatchers } from '../../model/alertmanager/matchers.ts';
import { alertmanagerInhibitAgreement, alertmanagerInhibitCases } from '../../admission/upstream/alertmanager-inhibit-cases.ts';

const TEST = `
func TestMatchers(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  []*Matcher
		err   string
	}{
		{
			input: \`{}\`,
			want:  make([]*Matcher, 0),
		},
		{
			input: \`{foo="bar", baz!~"quux.*"}\`,
			want: func() []*Matcher {
				ms := []*Matcher{}
				m, _ := NewMatcher(MatchEqual, "foo", "bar")
				m2, _ := NewMatcher(MatchNotRegexp, "baz", "quux.*")
				return append(ms, m, m2)
			}(),
		},
		{
			input: "{foo=\\\\\\"}",
			want: func() []*Matcher {
				ms := []*Matcher{}
				m, _ := NewMatcher(MatchEqual, "foo", "\\"")
				return append(ms, m)
			}(),
		},
		{
			input: \`job="value\`,
			err:   \`matcher value contains unescaped double quote: "value\`,
		},
		{
			input: \`{foo=~"invalid[regexp"}\`,
			err:   "error parsing regexp: missing closing ]: \`[regexp)$\`",
		},
	} {
		t.Run(tc.input, func(t *testing.T) {
		})
	}
}
`;

describe("the reader of Alertmanager's matchers parser tests", () => {
  it('reads each row, the matchers it wants in order or its error, and the port agrees with all of them', () => {
    const table = alertmanagerMatcherCases(TEST);
    expect(table.unread).toEqual([]);
    expect(table.cases.map((c) => [c.name, c.want])).toEqual([
      ['{}', '[]'],
      ['{foo="bar", baz!~"quux.*"}', '[["foo","=","bar"],["baz","!~","quux.*"]]'],
      ['{foo=\\"}', '[["foo","=","\\""]]'],
      ['job="value', 'matcher value contains unescaped double quote: "value'],
      ['{foo=~"invalid[regexp"}', 'error parsing regexp: missing closing ]: `[regexp)$`'],
    ]);
    const a = alertmanagerConfigAgreement(table);
    expect([a.agree, a.total, a.disagreements]).toEqual([5, 5, []]);
  });

  it('counts a row the port answers otherwise as a disagreement', () => {
    const wrong = alertmanagerMatcherCases(TEST.replace('NewMatcher(MatchEqual, "foo", "bar")', 'NewMatcher(MatchNotEqual, "foo", "bar")'));
    const a = alertmanagerConfigAgreement(wrong);
    expect(a.agree).toBe(4);
    expect(a.disagreements.map((d) => d.file)).toEqual(['TestMatchers/{foo="bar", baz!~"quux.*"}']);
  });
});

describe("the port of Alertmanager's classic matchers parser", () => {
  it('reads a value unquoted or quoted, whitespace around each part, a trailing comma, a colon in a name', () => {
    expect(parseMatchers(' team = "db" , env=~prod|stage , ')).toEqual([
      { type: '=', name: 'team', value: 'db' },
      { type: '=~', name: 'env', value: 'prod|stage' },
    ]);
    expect(parseMatchers('a:b!=""')).toEqual([{ type: '!=', name: 'a:b', value: '' }]);
  });

  it('refuses a label name Prometheus does not take, and a regex Go does not compile (lookahead)', () => {
    expect(parseMatchers('team-name="db"')).toEqual({ error: 'bad matcher format: team-name="db"' });
    expect(parseMatchers('team=~"(?=db)"')).toEqual({ error: expect.stringContaining('error parsing regexp') });
    // Go's \\s is ASCII: a no-break space before the operator is no whitespace to it.
    expect(parseMatchers('team\u00a0="db"')).toEqual({ error: 'bad matcher format: team\u00a0="db"' });
  });

  it('matches a regex whole, and a label the alert lacks as the empty value', () => {
    const one = (line: string) => {
      const parsed = parseMatchers(line);
      if ('error' in parsed) throw new Error(parsed.error);
      return parsed[0]!;
    };
    expect(matcherMatches(one('severity=~"crit"'), 'critical')).toBe(false);
    expect(matcherMatches(one('team!~".+"'), '')).toBe(true);
  });
});

const INHIBIT_TEST = `
func TestInhibitRuleMatchers(t *testing.T) {
	t.Parallel()

	rule1 := amcommoncfg.InhibitRule{
		SourceMatchers: amcommoncfg.Matchers{&labels.Matcher{Type: labels.MatchEqual, Name: "s1", Value: "1"}},
		TargetMatchers: amcommoncfg.Matchers{&labels.Matcher{Type: labels.MatchNotEqual, Name: "t1", Value: "1"}},
		Equal:          []string{"e"},
	}

	ih := NewInhibitor(nil, []amcommoncfg.InhibitRule{rule1}, nopLogger, eventrecorder.NopRecorder())
	sourceAlert1 := &alert.Alert{
		Alert: model.Alert{
			Labels:   model.LabelSet{"s1": "1", "t1": "2", "e": "1"},
		},
	}
	ih.rules[0].scache.Set(sourceAlert1)

	cases := []struct {
		target   model.LabelSet
		expected bool
	}{
		{
			target:   model.LabelSet{"t1": "0", "e": "1"},
			expected: true,
		},
		{
			target:   model.LabelSet{"t1": "1", "e": "1"},
			expected: false,
		},
		{
			target:   model.LabelSet{"t1": "0", "e": "0"},
			expected: false,
		},
	}
}
`;

describe("the reader of Alertmanager's inhibition tests", () => {
  it("reads the rules, the source alert in each rule's cache and each target, and the port agrees", () => {
    const table = alertmanagerInhibitCases(INHIBIT_TEST);
    expect(table.unread).toEqual([{ name: 'TestInhibitRuleMatches', why: 'the test is not in the file' }]);
    expect(table.cases.map((c) => [c.name, c.want])).toEqual([
      ['{"t1":"0","e":"1"}', 'muted'],
      ['{"t1":"1","e":"1"}', 'not muted'],
      ['{"t1":"0","e":"0"}', 'not muted'],
    ]);
    const a = alertmanagerInhibitAgreement(table);
    expect([a.agree, a.total]).toEqual([3, 4]);
  });

  it('counts an expectation the port does not meet as a disagreement', () => {
    const a = alertmanagerInhibitAgreement(
      alertmanagerInhibitCases(
        INHIBIT_TEST.replace(
          'expected: false,\n\t\t},\n\t\t{\n\t\t\ttarget:   model.LabelSet{"t1": "0", "e": "0"}',
          'expected: true,\n\t\t},\n\t\t{\n\t\t\ttarget:   model.LabelSet{"t1": "0", "e": "0"}',
        ),
      ),
    );
    expect(a.disagreements.map((d) => d.file)).toContain('TestInhibitRuleMatchers/{"t1":"1","e":"1"}');
  });
});
