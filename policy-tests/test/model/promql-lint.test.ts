/**
 * What Prometheus's parser refuses of an expression beyond its grammar (model/monitoring/promql-lint.ts): types and
 * argument counts (the web UI's linter), the checks Go's parser makes on its AST, and the features `parser.Options{}`
 * leaves off.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSER_FEATURES, promqlProblems } from '../../model/monitoring/promql-lint.ts';
import { parsePromQL } from '../../model/monitoring/promql.ts';

const ALL_ON = { experimentalFunctions: true, durationExpressions: true, extendedRangeSelectors: true, fillModifiers: true };

describe("Prometheus's parser, beyond the grammar", () => {
  it('admits what Prometheus admits', () => {
    for (const ok of [
      'rate(up[5m])',
      'sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) / sum by (job) (rate(http_requests_total[5m])) > 0.05',
      'histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))',
      'up offset -5m',
      'foo @ 1609746000 offset 5m',
      '(foo + bar @ 123)[5m:] @ 456',
      '{__name__="a", __name__="b"}',
      '{"metric.with.dots"}',
      'absent(up{job="x"})',
      'label_replace(up, "a", "$1", "instance", "(.*):.*")',
    ])
      expect(promqlProblems(ok), ok).toEqual([]);
  });

  it('lints the whole expression, however long (an editor state parses 3,000 characters, for 20 ms, at first)', () => {
    const long = Array.from({ length: 100 }, (_, i) => `sum(rate(http_requests_total{job="j${i}"}[5m]))`).join(' + ');
    expect(long.length).toBeGreaterThan(3000);
    expect(promqlProblems(long)).toEqual([]);
    expect(promqlProblems(`${long} + rate(up)`)).toEqual(['expected type matrix in call to function "rate", got vector']);
  });

  it('reads a number ending in a dot as Go does (the grammar does not), its selectors where they are written', () => {
    expect(promqlProblems('up > 5.')).toEqual([]);
    expect(promqlProblems('foo @ 3.')).toEqual([]);
    const parsed = parsePromQL('rate(x[5m]) > 0. and y{a="1."} == 1');
    expect(parsed.error).toBeUndefined();
    expect(parsed.selectors.map((sel) => [sel.name, sel.from])).toEqual([
      ['x', 5],
      ['y', 21],
    ]);
  });

  it('refuses types and argument counts', () => {
    expect(promqlProblems('rate(up)')).toEqual(['expected type matrix in call to function "rate", got vector']);
    expect(promqlProblems('abs(up, 1)')).toEqual(['expected 1 argument(s) in call to "abs", got 2']);
    expect(promqlProblems('1 and 2')[0]).toMatch(/set operator/);
  });

  it("refuses what Go's parser refuses of its AST", () => {
    expect(promqlProblems('rate(x[5m]) offset 1m')).toEqual([
      'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery',
    ]);
    expect(promqlProblems('foo offset 1m offset 2m')).toEqual(['offset may not be set multiple times']);
    expect(promqlProblems('foo @ 1 @ 2')).toEqual(['@ <timestamp> may not be set multiple times']);
    expect(promqlProblems('foo @ +Inf')).toEqual(['timestamp out of bounds for @ modifier']);
    expect(promqlProblems('foo offset 1m[5m]')).toEqual(['no offset modifiers allowed before range']);
    expect(promqlProblems('(foo)[5m]')).toEqual(['ranges only allowed for vector selectors']);
    expect(promqlProblems('-foo[5m]')[0]).toMatch(/^unary expression only allowed on expressions of type scalar or instant vector/);
    expect(promqlProblems('{job=~".*"}')).toEqual(['vector selector must contain at least one non-empty matcher']);
    expect(promqlProblems('{job!=""}')).toEqual([]);
    expect(promqlProblems('foo{__name__="bar"}')).toEqual(['metric name must not be set twice: "foo" or "bar"']);
    expect(promqlProblems('foo{a=~"("}')[0]).toMatch(/^error parsing regexp/);
    expect(promqlProblems('foo{a="\\q"}')).toEqual(['error unquoting string "\\"\\\\q\\"": invalid syntax']);
    expect(promqlProblems('foo[0m]')).toEqual(['duration must be greater than 0']);
    expect(promqlProblems('foo offset 9.5e10')).toEqual(['duration out of range']);
  });

  it("says an unpaired parenthesis in Prometheus's lexer's words", () => {
    expect(promqlProblems('vector(1))')).toEqual(["unexpected right parenthesis ')'"]);
    expect(promqlProblems('sum(rate(x[5m])')).toEqual(['unclosed left parenthesis']);
    expect(promqlProblems('foo{')[0]).toMatch(/^syntax error near/);
    expect(promqlProblems('')[0]).toMatch(/^syntax error/);
  });

  it('refuses each feature parser.Options{} leaves off, and only that one where it alone is off', () => {
    const cases: [string, keyof typeof ALL_ON, string][] = [
      ['sort_by_label(up, "job")', 'experimentalFunctions', 'function "sort_by_label" is not enabled'],
      ['limitk(2, up)', 'experimentalFunctions', 'limitk() is experimental and must be enabled with --enable-feature=promql-experimental-functions'],
      ['rate(up[5m+1m])', 'durationExpressions', 'experimental duration expression is not enabled'],
      ['rate(up[5m] anchored)', 'extendedRangeSelectors', 'anchored modifier is experimental and not enabled'],
      ['up + fill(0) up', 'fillModifiers', 'binop fill modifiers are experimental and not enabled'],
    ];
    for (const [expr, feature, message] of cases) {
      expect(promqlProblems(expr, DEFAULT_PARSER_FEATURES), expr).toContain(message);
      expect(promqlProblems(expr, { ...ALL_ON, [feature]: false }), expr).toContain(message);
      expect(promqlProblems(expr, ALL_ON), expr).not.toContain(message);
    }
    expect(promqlProblems('foo[5s/0d]', ALL_ON)).toEqual(['division by zero']);
    expect(promqlProblems('foo[-step()]', ALL_ON)).toEqual([]);
  });
});
