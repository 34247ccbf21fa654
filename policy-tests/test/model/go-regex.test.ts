/** Prometheus' and Alertmanager's label regexes as Go compiles them, and Go's regexp.Expand. */
import { describe, expect, it } from 'vitest';
import { alertmanagerRegex, goExpand, prometheusMatch, prometheusRegex, topLevelAlternatives } from '../../model/core/re2.ts';
import { route, type AmConfig } from '../../model/monitoring/alertmanager.ts';
import { relabelJob } from '../../model/monitoring/scrape-jobs.ts';

describe("Prometheus' and Alertmanager's regexes", () => {
  it("take Go's inline flags, match whole, and Prometheus' dot matches a newline", () => {
    expect(prometheusRegex('(?i)critical').test('CRITICAL')).toBe(true);
    expect(prometheusRegex('crit').test('critical')).toBe(false);
    expect(prometheusRegex('a.b').test('a\nb')).toBe(true);
    expect(alertmanagerRegex('a.b').test('a\nb')).toBe(false);
    // Linear time: a pattern that backtracks for minutes in JavaScript returns at once.
    expect(prometheusRegex('(a+)+$').test(`${'a'.repeat(40)}!`)).toBe(false);
    expect(() => prometheusRegex('(?=a)')).toThrow();
  });

  it('a pattern both engines read alike runs in JavaScript; any other (a quantified group, Go syntax) in RE2, alike', () => {
    expect(prometheusMatch('etcd-backup|.+-db-backup')).toBeInstanceOf(RegExp);
    expect(prometheusMatch('.+-db-backup').test('media-db-backup')).toBe(true);
    expect(prometheusMatch('a.b').test('a\nb')).toBe(true);
    for (const goOnly of ['(a+)+b', '(?i)x', 'a\\sb', 'x{2}', '.*a.*b.*c', '.*a.*b.*c|x', '(x|.*a.*b.*c)'])
      expect(prometheusMatch(goOnly), goOnly).not.toBeInstanceOf(RegExp);
    expect(prometheusMatch('(a+)+b').test(`${'a'.repeat(40)}!`)).toBe(false);
    // Alertmanager's `.` stops at a newline alone, as Go's does; JavaScript's would stop at a carriage return too.
    expect(alertmanagerRegex('a.b').test('a\rb')).toBe(true);
    expect(prometheusMatch('(?i)X').test('x')).toBe(true);
  });

  it('route an alert through a matcher with (?i), and follow none through a regex Go cannot compile', () => {
    const config: AmConfig = {
      route: {
        receiver: 'default',
        routes: [
          { receiver: 'pager', matchers: ['severity=~"(?i)critical"'] },
          { receiver: 'never', matchers: ['team=~"(?=x)"'] },
        ],
      },
      receivers: [{ name: 'default' }, { name: 'pager' }, { name: 'never' }],
    } as AmConfig;
    expect(route(config, { severity: 'CRITICAL' }).map((r) => r.receiver)).toEqual(['pager']);
    expect(route(config, { team: 'x' }).map((r) => r.receiver)).toEqual(['default']);
  });
});

describe("Go's regexp.Expand, as a relabel rule's replacement", () => {
  const groups: Record<string, string> = { '0': 'all', '1': 'one', name: 'named' };
  const expand = (template: string) => goExpand(template, (n) => groups[n]);

  it('numbers and names, braced or not; $$ a dollar; $1x the group named 1x, which is none', () => {
    expect(expand('$1-${1}x-$name-$$1-$1x-${name}s-$')).toBe('one-onex-named-$1--nameds-$');
  });

  it('writes the job as Prometheus would, through a case-insensitive regex', () => {
    expect(relabelJob([{ targetLabel: 'job', sourceLabels: ['job'], regex: '(?i)NODE-(.*)', replacement: 'host-$1' }], 'node-exporter')).toBe('host-exporter');
    expect(relabelJob([{ targetLabel: 'job', sourceLabels: ['job'], regex: '(.*)', replacement: '$1x' }], 'node')).toBe('');
  });
});

describe("a regex's top-level alternatives", () => {
  it('splits at each | outside a group and a class, an escaped one aside', () => {
    expect(topLevelAlternatives('exportarr-.+|qbittorrent')).toEqual(['exportarr-.+', 'qbittorrent']);
    expect(topLevelAlternatives('node')).toEqual(['node']);
    expect(topLevelAlternatives('a(b|c)|d')).toEqual(['a(b|c)', 'd']);
    expect(topLevelAlternatives('[|]x|y')).toEqual(['[|]x', 'y']);
    expect(topLevelAlternatives('[]|]x|y')).toEqual(['[]|]x', 'y']);
    expect(topLevelAlternatives('a\\|b|c')).toEqual(['a\\|b', 'c']);
    expect(topLevelAlternatives('a||b')).toEqual(['a', '', 'b']);
  });
});
