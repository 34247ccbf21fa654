/**
 * The reader of Alertmanager's classic matchers parser tests (upstream/alertmanager-config-cases.ts), on a file written
 * in their form; and the gate's port of that parser (model/alertmanager/matchers.ts) where those tests say nothing.
 */
import { describe, expect, it } from 'vitest';
import { alertmanagerConfigAgreement, alertmanagerMatcherCases } from '../../admission/upstream/alertmanager-config-cases.ts';
import { matcherMatches, parseMatchers } from '../../model/alertmanager/matchers.ts';

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
