/** A rule's exceptions as Falco 0.44 reads, checks and compiles them (rule_loader_reader, _collector and _compiler). */
import { describe, expect, it } from 'vitest';
import { exceptionRefusals, ruleExceptions } from '../../model/falco/exceptions.ts';
import { parseTuning } from '../../model/falco/tuning.ts';

const items = (yaml: string) => parseTuning('rules.yaml', 'rules.yaml', yaml).items;
const RULE = (exceptions: string) => `- rule: r\n  desc: d\n  condition: evt.type = open\n  output: o\n  priority: INFO\n  exceptions:\n${exceptions}`;
/** The clauses Falco appends to each rule, in order (refused exceptions give their first message). */
const clauses = (yaml: string) =>
  [...ruleExceptions(items(yaml)).values()].flat().map((ex) => ex.clause ?? `! ${ex.problems[0]!.path.join('.')}: ${ex.problems[0]!.message}`);
const refusals = (yaml: string, fields?: ReadonlyMap<string, 'none' | 'allowed' | 'required'>) =>
  exceptionRefusals(items(yaml), fields).map((r) => `${r.path.join('.')}: ${r.message}`);
const FIELDS = new Map<string, 'none' | 'allowed' | 'required'>([
  ['proc.name', 'none'],
  ['proc.pname', 'none'],
  ['fd.name', 'none'],
  ['proc.aname', 'allowed'],
]);

describe("Falco's rule exceptions", () => {
  it('compiles one field with its values into one list comparison, `in` where no comp is given', () => {
    expect(clauses(RULE('    - name: e\n      fields: proc.name\n      values: [cat, "my tool"]\n'))).toEqual(['(proc.name in (cat, "my tool"))']);
    expect(clauses(RULE('    - name: e\n      fields: proc.name\n      comps: startswith oneof\n      values: [a]\n'))).toEqual([
      '(proc.name startswith oneof (a))',
    ]);
  });

  it('compiles a list of fields into one alternative per value, `=` where no comps are given, lists and list operators in parentheses', () => {
    expect(
      clauses(RULE('    - name: e\n      fields: [proc.name, fd.name]\n      values:\n        - [sh, /etc/passwd]\n        - [bash, /tmp/x y]\n')),
    ).toEqual(['(( proc.name = sh and  fd.name = /etc/passwd) or ( proc.name = bash and  fd.name = "/tmp/x y"))']);
    expect(
      clauses(RULE('    - name: e\n      fields: [proc.name, fd.name]\n      comps: [in, startswith oneof]\n      values:\n        - [sh, [/etc, /tmp]]\n')),
    ).toEqual(['(( proc.name in (sh) and  fd.name startswith oneof (/etc, /tmp)))']);
    expect(clauses(RULE('    - name: e\n      fields: [proc.name]\n'))).toEqual(['']);
  });

  it("refuses what Falco's collector refuses: an operator of no grammar, a modifier after a list or numeric operator, comps and values of the wrong shape", () => {
    const one = (body: string) => clauses(RULE(body))[0];
    expect(one('    - name: e\n      fields: [proc.name]\n      comps: [frobulate oneof]\n      values: [[[a]]]\n')).toBe(
      "! exceptions.0.comps: 'frobulate oneof' is not a supported comparison operator",
    );
    expect(one('    - name: e\n      fields: [proc.name]\n      comps: [in oneof]\n')).toMatch(/'in oneof' is not a supported/);
    expect(one('    - name: e\n      fields: [proc.name]\n      comps: [">= oneof"]\n')).toMatch(/'>= oneof' is not a supported/);
    expect(one('    - name: e\n      fields: [proc.name]\n      comps: [oneof]\n')).toMatch(/'oneof' is not a supported/);
    expect(one('    - name: e\n      fields: proc.name\n      comps: "="\n')).toMatch(/When fields is a single value, comps must be one of/);
    expect(one('    - name: e\n      fields: proc.name\n      comps: [in]\n')).toMatch(/Fields and comps must both be strings/);
    expect(one('    - name: e\n      fields: [proc.name, fd.name]\n      comps: [=]\n')).toMatch(/Fields and comps lists must have equal length/);
    expect(one('    - name: e\n      fields: [proc.name, fd.name]\n      values: [[sh]]\n')).toMatch(/Fields and values lists must have equal length/);
    expect(one('    - name: e\n      fields: proc.name\n      values: [[sh]]\n')).toMatch(/Expected values array to contain a list of strings/);
    expect(one('    - name: e\n      comps: [=]\n')).toBe("! exceptions.0: Item has no mapping for key 'fields'");
    expect(one('    - name: e\n      fields: []\n')).toMatch(/must have fields property/);
    expect(clauses(RULE('    name: e\n'))).toEqual(['! exceptions: Rule exceptions must be a sequence']);
    expect(clauses(RULE('    - e\n'))).toEqual(['! exceptions.0: Rule exception must be a mapping']);
    expect(clauses(RULE('    - fields: [proc.name]\n'))).toEqual(["! exceptions.0: Item has no mapping for key 'name'"]);
  });

  it('appends values to an exception the file defined, and refuses new fields or comps for it, or a new one without fields and values', () => {
    const base = RULE('    - name: e\n      fields: [proc.name]\n      values: [[sh]]\n');
    const append = (body: string) => `${base}- rule: r\n  exceptions:\n${body}  override:\n    exceptions: append\n`;
    expect(clauses(append('    - name: e\n      values: [[bash]]\n'))).toEqual(['(( proc.name = sh))', '(( proc.name = bash))']);
    expect(clauses(append('    - name: e\n      fields: [fd.name]\n      values: [[x]]\n'))[1]).toBe(
      '! exceptions.0.fields: Can not append exception fields to existing exception, only values',
    );
    expect(clauses(append('    - name: f\n      values: [[x]]\n'))[1]).toMatch(/must have fields property/);
    expect(clauses(append('    - name: f\n      fields: [fd.name]\n'))[1]).toMatch(/must have values property/);
    // To a rule the file does not define (an upstream one): a values-only append is not judged.
    expect(clauses('- rule: upstream\n  exceptions:\n    - name: e\n      values: [[x]]\n  override:\n    exceptions: append\n')).toEqual([]);
    // A rule that only enables another: its exceptions are not read.
    expect(clauses('- rule: upstream\n  enabled: false\n  exceptions:\n    - name: e\n      comps: [frobulate]\n')).toEqual([]);
    // A replace is read as a definition: its fields are required.
    expect(clauses(`${base}- rule: r\n  exceptions:\n    - name: e\n      values: [[id]]\n  override:\n    exceptions: replace\n`)[1]).toBe(
      "! exceptions.0: Item has no mapping for key 'fields'",
    );
  });

  it('holds each field, and the compiled clause, to the fields the sensor knows', () => {
    expect(refusals(RULE('    - name: e\n      fields: [proc.nmae]\n      values: [[sh]]\n'), FIELDS)).toEqual([
      'exceptions.0.fields: \'proc.nmae\' is not a supported filter field: field proc.nmae is not one Falco knows (did you mean "proc.name"?)',
    ]);
    expect(refusals(RULE('    - name: e\n      fields: [tolower(proc.name), proc.aname[2]]\n      values: [[sh, bash]]\n'), FIELDS)).toEqual([]);
    expect(refusals(RULE('    - name: e\n      fields: [proc.name]\n      values: [[toupper(proc.pnmae)]]\n'), FIELDS)).toEqual([
      'exceptions.0.values: the condition Falco compiles for the exception reads field proc.pnmae is not one Falco knows (did you mean "proc.pname"?)',
    ]);
    expect(refusals(RULE('    - name: e\n      fields: [proc.name]\n      comps: [exists]\n      values: [[sh]]\n'), FIELDS)).toEqual([
      expect.stringMatching(/^exceptions\.0\.values: the condition Falco compiles for the exception, "\(\( proc\.name exists sh\)\)", does not parse/),
    ]);
  });
});
