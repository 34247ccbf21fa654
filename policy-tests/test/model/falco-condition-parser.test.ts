/** Falco's condition language as libsinsp's parser reads it. */
import { describe, expect, it } from 'vitest';
import { parseFalcoCondition } from '../../model/falco/condition-parser.ts';
import { falcoParserAgreement, falcoParserCases } from '../../admission/upstream/falco-parser-cases.ts';
import { fieldProblems } from '../../model/falco/policy.ts';
import { parseCondition } from '../../model/falco/expr.ts';

const refusal = (source: string) => {
  try {
    parseFalcoCondition(source);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

describe("libsinsp's filter parser, ported", () => {
  it('reads fields with arguments, transformers, val(), lists and modifiers into the tree the tuning checks walk', () => {
    expect(parseFalcoCondition("toupper(proc.name) = val(proc.pname) and proc.aname[2] in (sh, 'bash')")).toEqual({
      kind: 'and',
      left: { kind: 'compare', field: 'toupper(proc.name)', op: '=', value: 'val(proc.pname)', valueIsField: true },
      right: { kind: 'list', field: 'proc.aname[2]', op: 'in', items: ['sh', 'bash'], lists: [] },
    });
    expect(parseFalcoCondition('not (a or b)')).toEqual({
      kind: 'not',
      expr: { kind: 'group', expr: { kind: 'or', left: { kind: 'macro', name: 'a' }, right: { kind: 'macro', name: 'b' } } },
    });
    expect(parseFalcoCondition('proc.name = oneof (a, b)')).toEqual({ kind: 'list', field: 'proc.name', op: '= oneof', items: ['a', 'b'], lists: [] });
    expect(parseFalcoCondition("fd.name = 'it\\'s'")).toEqual({ kind: 'compare', field: 'fd.name', op: '=', value: "it's" });
  });

  it('refuses what Falco refuses at start, which the gate used to take', () => {
    expect(refusal('macro > 12')).toBe("unexpected token after 'macro', expecting 'or', 'and'");
    expect(refusal('proc.name in (a,)')).toBe('expected a string value');
    expect(refusal('evt.arg[] = x')).toBe('expected a valid field argument: a quoted string or a bare string');
    expect(refusal('fd.name = "a\\q"')).toBe('unsupported string escape sequence: \\q');
    // libsinsp 0.25.4, which Falco 0.44.1 links, has no hex escape (0.26 reads one).
    expect(refusal('fd.name = "\\x41"')).toBe('unsupported string escape sequence: \\x');
    expect(refusal('a andb')).toBe("expected blank or '(' after 'and'");
    expect(refusal('')).toBe('filter input string is empty');
  });

  it('refuses a condition nested past its depth limit with its message, not a blown stack', () => {
    expect(refusal('('.repeat(100000))).toBe('exceeded max depth limit of 100');
    expect(refusal(`${'('.repeat(10)}a${')'.repeat(10)}`)).toBeUndefined();
  });
});

describe("libsinsp's parser tests, read as data", () => {
  const CPP = `
TEST(parser, parse_smoke_test) {
\ttest_accept("a and b");
\ttest_reject("a andb");
\ttest_reject_msg(std::string(3, '('), "expected a '(' token, a field check, or an identifier");
\ttest_accept("a.b = \\"x\\"", &pos);
\ttest_equal_ast("not a", expr);
\ttest_accept(built);
}`;

  it('reads each call, plays test_accept with its blanks as that helper does, and counts a run-time input apart', () => {
    const read = falcoParserCases(CPP);
    expect(read.cases.map((c) => [c.input, c.accept, c.message])).toEqual([
      ['a and b', true, undefined],
      [' a and b ', true, undefined],
      ['\na\nand\nb\n', true, undefined],
      ['\ta\tand\tb\t', true, undefined],
      ['a andb', false, undefined],
      ['(((', false, "expected a '(' token, a field check, or an identifier"],
      ['a.b = "x"', true, undefined],
      ['not a', true, undefined],
    ]);
    expect(read.unread.map((u) => u.why)).toEqual(['an input built at run time']);
    const a = falcoParserAgreement(read);
    expect([a.agree, a.total]).toEqual([8, 9]);
  });
});

describe('the fields a condition reads, against the fields the deployed sensor knows', () => {
  const fields = new Map<string, 'none' | 'allowed' | 'required'>([
    ['proc.name', 'none'],
    ['proc.aname', 'allowed'],
    ['evt.arg', 'required'],
    ['container.image.repository', 'allowed'],
  ]);
  const problems = (condition: string) => fieldProblems(parseCondition(condition), fields);

  it('takes known fields, an argument where one is allowed, evt.arg with its argument after a dot, and fields a transformer or val() reads', () => {
    expect(
      problems('proc.name = x and proc.aname[2] = y and evt.arg.fd = 3 and evt.arg[0] = 1 and toupper(proc.name) = val(container.image.repository)'),
    ).toEqual([]);
  });

  it('refuses an unknown field, with the nearest known one, an argument to a field that takes none, and none where one is needed', () => {
    expect(problems('container.image.repositry = x')).toEqual([
      'field container.image.repositry is not one Falco knows (did you mean "container.image.repository"?)',
    ]);
    expect(problems('proc.name[1] = x')).toEqual(['field proc.name takes no argument, and proc.name[1] gives one']);
    expect(problems('evt.arg = x')).toEqual(['field evt.arg needs an argument (evt.arg[...])']);
    expect(problems('proc.name = val(proc.nmae)')).toEqual([expect.stringMatching(/^field proc\.nmae is not one Falco knows/)]);
  });
});
