/**
 * The two glob dialects Argo CD's project rules are written in, held to their makers' own cases: Go's
 * path/filepath.Match (match_test.go's table, Linux) for kinds, groups and names, and what gobwas/glob refuses to
 * compile for the impersonation globs.
 */
import { describe, expect, it } from 'vitest';
import { argoGlobError, argoGlobMatch, doublestarMatch, goFilepathMatch, matchStringInList } from '../../model/core/glob.ts';

describe("Go's filepath.Match", () => {
  it("agrees with match_test.go's table", () => {
    const table: [string, string, boolean][] = [
      ['abc', 'abc', true],
      ['*', 'abc', true],
      ['*c', 'abc', true],
      ['a*', 'a', true],
      ['a*', 'abc', true],
      ['a*', 'ab/c', false],
      ['a*/b', 'abc/b', true],
      ['a*/b', 'a/c/b', false],
      ['a*b*c*d*e*/f', 'axbxcxdxe/f', true],
      ['a*b*c*d*e*/f', 'axbxcxdxexxx/f', true],
      ['a*b*c*d*e*/f', 'axbxcxdxe/xxx/f', false],
      ['a*b*c*d*e*/f', 'axbxcxdxexxx/fff', false],
      ['a*b?c*x', 'abxbbxdbxebxczzx', true],
      ['a*b?c*x', 'abxbbxdbxebxczzy', false],
      ['ab[c]', 'abc', true],
      ['ab[b-d]', 'abc', true],
      ['ab[e-g]', 'abc', false],
      ['ab[^c]', 'abc', false],
      ['ab[^b-d]', 'abc', false],
      ['ab[^e-g]', 'abc', true],
      ['a\\*b', 'a*b', true],
      ['a\\*b', 'ab', false],
      ['a?b', 'a☺b', true],
      ['a[^a]b', 'a☺b', true],
      ['a???b', 'a☺b', false],
      ['a[^a][^a][^a]b', 'a☺b', false],
      ['[a-ζ]*', 'α', true],
      ['*[a-ζ]', 'A', false],
      ['a?b', 'a/b', false],
      ['a*b', 'a/b', false],
      ['[\\]a]', ']', true],
      ['[\\-]', '-', true],
      ['[x\\-]', 'x', true],
      ['[x\\-]', '-', true],
      ['[x\\-]', 'z', false],
      ['[\\-x]', 'x', true],
      ['[\\-x]', '-', true],
      ['[\\-x]', 'a', false],
      ['*x', 'xxx', true],
    ];
    for (const [pattern, name, match] of table) expect(goFilepathMatch(pattern, name), `${pattern} ${name}`).toBe(match);
  });

  it('matches nothing with a pattern Go calls bad (ErrBadPattern)', () => {
    for (const pattern of ['[]a]', '[-]', '[x-]', '[-x]', '\\', '[a-b-c]', '[', '[^', '[^bc', 'a[', 'ab[c'])
      for (const name of ['a', '-', ']', 'abc']) expect(goFilepathMatch(pattern, name), `${pattern} ${name}`).toBe(false);
  });
});

describe('what gobwas/glob does not compile', () => {
  it('an open class or list, or an escape with nothing after it', () => {
    expect(argoGlobError('e[[a*')).toMatch(/character class/);
    expect(argoGlobError('{a,b')).toMatch(/alternatives/);
    expect(argoGlobError('a\\')).toMatch(/escape/);
    for (const ok of ['*', 'test*', '{a,b}', '[a-z]*', 'https://kubernetes.default.svc']) expect(argoGlobError(ok), ok).toBeUndefined();
  });
});

describe("doublestar's globs (values files)", () => {
  it('reads ** as any folders, none included, and * and ? within a segment', () => {
    const m = (pattern: string, path: string) => doublestarMatch(pattern, path);
    expect([
      m('prod/**/*.yaml', 'prod/a.yaml'),
      m('prod/**/*.yaml', 'prod/x/y/a.yaml'),
      m('**/*.yaml', 'a.yaml'),
      m('**/nested/*.yaml', 'nested/c.yaml'),
    ]).toEqual([true, true, true, true]);
    expect([m('prod/**', 'prod'), m('prod/**', 'prod/x/y'), m('prod/*', 'prod/x/y'), m('a**b', 'a/b'), m('a**b', 'axxb')]).toEqual([
      true,
      true,
      false,
      false,
      true,
    ]);
    expect([m('*.yaml', '.hidden.yaml'), m('[!a]*', 'b'), m('[^a]*', 'a'), m('{x,y}/*.yaml', 'y/v.yaml'), m('v\\*.yaml', 'v*.yaml')]).toEqual([
      true,
      true,
      false,
      true,
      true,
    ]);
  });

  it('calls an open class or list a syntax error, as doublestar refuses it', () => {
    expect(() => doublestarMatch('values/[a*.yaml', 'values/a.yaml')).toThrow(/syntax error in pattern/);
    expect(() => doublestarMatch('values/{a,b.yaml', 'values/a.yaml')).toThrow(/syntax error in pattern/);
  });
});

describe('a hostile pattern over a hostile name', () => {
  // A pull request writes both: with a backtracking engine each of these runs for hours; RE2 answers at once.
  const name = `${'a'.repeat(60)}c`;
  const star = `${'*a'.repeat(12)}*b`;
  it('is answered, not left to backtrack, in every dialect', () => {
    expect(argoGlobMatch(star, name)).toBe(false);
    expect(argoGlobMatch(star, name, '/')).toBe(false);
    expect(goFilepathMatch(star, name)).toBe(false);
    expect(doublestarMatch(star, name)).toBe(false);
    expect(doublestarMatch(`${'*a'.repeat(12)}*c`, name)).toBe(true);
  });
});

describe("Argo CD's MatchStringInList (glob.REGEXP)", () => {
  it('reads a /wrapped/ entry as a regular expression found anywhere, any other as a glob, and one that does not compile as no match', () => {
    expect(matchStringInList(['team-*'], 'team-media')).toBe(true);
    expect(matchStringInList(['/media/'], 'team-media-2')).toBe(true);
    expect(matchStringInList(['/^media$/'], 'team-media')).toBe(false);
    expect(matchStringInList(['/(/', 'x*'], 'team')).toBe(false);
    expect(matchStringInList([], 'team')).toBe(false);
    // A pull request writes the pattern and the name: RE2 runs it in linear time, where a backtracking engine hangs.
    expect(matchStringInList(['/^(a+)+$/'], `${'a'.repeat(60)}b`)).toBe(false);
  });
});
