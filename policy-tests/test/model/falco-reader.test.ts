/** Falco's rules reader (rule_loader_reader.cpp) and its macro scope, as the tuning file is read, and its own loader tests read. */
import { describe, expect, it } from 'vitest';
import { macroVisible, orphanUpdates, readerProblems, undefinedMacros, yamlCppBool } from '../../model/falco/reader.ts';
import { parseTuning } from '../../model/falco/tuning.ts';
import { parseCondition } from '../../model/falco/expr.ts';
import { falcoLoaderAgreement, falcoLoaderCases, loaderRefusal } from '../../admission/upstream/falco-loader-cases.ts';

const items = (yaml: string) => parseTuning('rules.yaml', 'rules.yaml', yaml).items;
const problems = (yaml: string) => items(yaml).flatMap((i) => readerProblems(i).map((p) => `${p.path.join('.')}: ${p.message}`));
const RULE = (extra = '', priority = 'INFO') => `- rule: r\n  desc: d\n  condition: evt.type = open\n  output: o\n  priority: ${priority}\n${extra}`;

describe("Falco's rules reader", () => {
  it('decodes a boolean as yaml-cpp does: its four pairs of words, in lower, upper or capitalised case', () => {
    for (const yes of [true, false, 'yes', 'Yes', 'YES', 'on', 'Off', 'y', 'N', 'TRUE', 'False']) expect(yamlCppBool(yes)).toBe(true);
    for (const no of ['flase', 'yEs', 'tRUE', '1', 1, '', null, 'enabled']) expect(yamlCppBool(no)).toBe(false);
  });

  it("takes Falco's priorities case aside, Info for Informational, and refuses any other", () => {
    for (const priority of ['INFO', 'informational', 'Critical', 'debug', 'EMERGENCY', 'notice']) expect(problems(RULE('', priority))).toEqual([]);
    expect(problems(RULE('', 'CRTICAL'))).toEqual([expect.stringMatching(/^priority: Invalid priority "CRTICAL": Falco's are Emergency/)]);
    expect(problems(RULE('  enabled: flase\n  capture_duration: soon\n'))).toEqual([
      expect.stringMatching(/^capture_duration: 'capture_duration' is "soon"/),
      expect.stringMatching(/^enabled: 'enabled' is "flase", which yaml-cpp cannot decode as a boolean/),
    ]);
  });

  it('reads a required engine version as a count (the minor) or "x.y.z", and refuses one the engine (0.62.0) is older than', () => {
    for (const ok of ['26', '0.62.0', '0.10.0', '0x3e', '0.62.0-rc1', ' 0.5.7']) expect(problems(`- required_engine_version: "${ok}"\n`)).toEqual([]);
    expect(problems('- required_engine_version: 62\n')).toEqual([]);
    expect(problems('- required_engine_version: seven\n')).toEqual([
      'required_engine_version: Unable to parse engine version "seven" as a semver string. Expected "x.y.z" semver format.',
    ]);
    expect(problems('- required_engine_version: 0.26\n')).toEqual([expect.stringMatching(/Unable to parse engine version "0.26"/)]);
    expect(problems('- required_engine_version: 0.63.0\n')).toEqual([
      'required_engine_version: Rules require engine version 0.63.0, but engine version is 0.62.0 (Falco 0.44.1)',
    ]);
    expect(problems('- required_engine_version: 63\n')).toEqual([expect.stringMatching(/require engine version 0.63.0/)]);
    expect(problems('- required_engine_version: 1.0.0\n')).toEqual([expect.stringMatching(/require engine version 1.0.0/)]);
  });

  it("wants a rule's tags and a list's items as sequences of scalars", () => {
    expect(problems(RULE('  tags: container, host\n'))).toEqual(["tags: 'tags': Value is not a sequence"]);
    expect(problems(RULE('  tags: [container, [host]]\n'))).toEqual(["tags.1: 'tags': sequence value is not scalar"]);
    expect(problems(RULE('  tags: [container, 1611]\n'))).toEqual([]);
    expect(problems('- rule: r\n  tags: x\n  override:\n    tags: append\n')).toEqual(["tags: 'tags': Value is not a sequence"]);
    expect(problems('- list: l\n  items: [a, {b: c}, ~]\n')).toEqual([
      "items.1: 'items': sequence value is not scalar",
      "items.2: 'items': sequence value is not scalar",
    ]);
  });

  it('wants each of condition, output, desc and priority of a rule that defines itself, and enabled of one that sets none', () => {
    expect(problems('- rule: r\n  desc: d\n  condition: evt.type = open\n  priority: INFO\n')).toEqual([
      ": Item has no mapping for key 'output': a rule that defines itself sets each of condition, output, desc and priority",
    ]);
    expect(problems('- rule: r\n  desc: d\n  condition: evt.type = open\n  output: ""\n  priority: ~\n')).toEqual([
      "output: the value of 'output' must be non-empty: a rule that defines itself sets each of condition, output, desc and priority",
      "priority: Mapping for key 'priority' is empty: a rule that defines itself sets each of condition, output, desc and priority",
    ]);
    expect(problems('- rule: r\n  enabled: false\n')).toEqual([]);
    expect(problems('- rule: r\n  tags: [a]\n')).toEqual([
      ": Item has no mapping for key 'enabled': a rule that sets none of condition, output, desc and priority sets enabled",
    ]);
    expect(problems('- macro: m\n- list: l\n  items: x\n')).toEqual([
      ": Item has no mapping for key 'condition'",
      "items: the value of 'items' is not a sequence",
    ]);
  });

  it("holds an override's operations and keys to what each kind of item takes", () => {
    expect(problems('- rule: r\n  condition: and proc.name = x\n  override:\n    condition: append\n')).toEqual([]);
    expect(problems('- rule: r\n  priority: WARNING\n  enabled: yes\n  override:\n    priority: replace\n    enabled: replace\n')).toEqual([]);
    expect(problems('- rule: r\n  condition: and proc.name = x\n  override:\n    condition: apend\n')).toEqual([
      'override.condition: Invalid override operation for key \'condition\': "apend". Allowed values are: append replace',
    ]);
    expect(problems('- rule: r\n  priority: INFO\n  override:\n    priority: append\n')).toEqual([
      "override.priority: Key 'priority' cannot be appended to, use 'replace' instead",
    ]);
    expect(problems('- rule: r\n  desc: x\n  priority: NOPE\n  override:\n    priority: replace\n    output: replace\n')).toEqual([
      "override.output: An override for 'output' was specified but 'output' is not defined",
      "desc: Unexpected key 'desc': no corresponding entry under 'override' is defined",
      'priority: Invalid priority "NOPE": Falco\'s are Emergency, Alert, Critical, Error, Warning, Notice, Informational (or Info) and Debug',
    ]);
    expect(problems('- macro: m\n  condition: x\n  override:\n    items: append\n')).toEqual([
      "override.items: Key 'items' cannot be appended to, use 'replace' instead",
    ]);
  });

  it('finds an append, or a rule replace, to nothing defined before it, upstream or in the file', () => {
    const upstream = { rules: new Set(['Up']), macros: new Set(['up_macro']), lists: new Set(['up_list']) };
    const file = items(
      [
        '- macro: up_macro\n  condition: or a\n  override:\n    condition: append',
        '- list: mine\n  items: [a]',
        '- list: mine\n  items: [b]\n  override:\n    items: append',
        '- list: not_yet\n  items: [a]\n  append: true',
        '- rule: Up\n  priority: INFO\n  override:\n    priority: replace',
        '- rule: Down\n  priority: INFO\n  override:\n    priority: replace',
        '- rule: Gone\n  condition: and a\n  override:\n    condition: append',
      ].join('\n'),
    );
    expect(orphanUpdates(file, upstream).map((o) => `${o.item.name}: ${o.message}`)).toEqual([
      "not_yet: List uses 'append' or 'override.items: append' but no list by that name already exists",
      "Down: An 'override.<key>: replace' to a rule was requested but no rule by that name already exists",
      "Gone: Rule uses 'append' or 'override.<key>: append' but no rule by that name already exists",
    ]);
  });

  it('lets a macro see the macros before it, and a rule every macro', () => {
    const file = items('- macro: a\n  condition: b\n- macro: b\n  condition: evt.type = open\n- rule: r\n  condition: a and b and c and upstream_one\n');
    const scope = (i: number) => macroVisible({ upstream: new Set(['upstream_one']), items: file, others: [], at: file[i]! });
    expect(undefinedMacros(parseCondition(file[0]!.condition!), scope(0))).toEqual(['b']);
    expect(undefinedMacros(parseCondition(file[2]!.condition!), scope(2))).toEqual(['c']);
  });

  it('reads every document of the file, in order, as one list, each item placed in its own document, and stops at a document it cannot read', () => {
    const text = '- macro: a\n  condition: evt.type = open\n---\n\n---\n- ~\n- rule: r\n  condition: a\n';
    const file = parseTuning('rules.yaml', 'rules.yaml', text);
    expect(file.errors).toEqual([]);
    expect(file.items.map((i) => [i.type, i.name, i.index])).toEqual([
      ['macro', 'a', 0],
      ['rule', 'r', 1],
    ]);
    expect(file.at([1, 'condition'])).toEqual({ line: 8, col: 3 });
    expect(file.at([0, 'condition'])).toEqual({ line: 2, col: 3 });
    const scope = macroVisible({ upstream: new Set(), items: file.items, others: [], at: file.items[1]! });
    expect(undefinedMacros(parseCondition(file.items[1]!.condition!), scope)).toEqual([]);
    const refused = parseTuning('rules.yaml', 'rules.yaml', '- macro: a\n  condition: evt.type = open\n---\nrule: r\n');
    expect([refused.items, refused.errors.map((e) => [e.message, e.pos.line])]).toEqual([
      [],
      [['a Falco rules file is a YAML list of rule, macro and list items', 4]],
    ]);
  });
});

describe("Falco's own loader tests, read", () => {
  const CPP = `static std::string s_base = R"END(
- rule: base
  desc: d
  condition: evt.type = open
  output: o
  priority: INFO
)END";
TEST_F(test_falco_engine, loads) {
	std::string rules_content = R"END(
- rule: r
  desc: d
  condition: evt.type = open
  output: o
  priority: INFO
)END";
	ASSERT_TRUE(load_rules(rules_content, "rules.yaml"));
}
TEST_F(test_falco_engine, refused_priority) {
	auto rules_content = s_base + R"END(  enabled: flase
)END";
	ASSERT_FALSE(load_rules(rules_content, "rules.yaml"));
	ASSERT_TRUE(check_error_message("Can't decode YAML scalar value"));
}
TEST_F(test_falco_engine, refused_other) {
	std::string rules_content = R"END(
- rule: r
  desc: d
  condition: evt.type = open
  output: "%evt.nope"
  priority: INFO
)END";
	ASSERT_FALSE(load_rules(rules_content, "rules.yaml"));
	ASSERT_TRUE(check_error_message("invalid formatting token"));
}
TEST_F(test_falco_engine, two_loads) {
	ASSERT_TRUE(load_rules(a, "a.yaml"));
	ASSERT_TRUE(load_rules(b, "b.yaml"));
}
`;

  it('reads each test with one rules file (a named base joined in) and its verdict, and counts the rest apart', () => {
    const read = falcoLoaderCases(CPP);
    expect(read.cases.map((c) => [c.test, c.loads, c.messages])).toEqual([
      ['loads', true, []],
      ['refused_priority', false, ["Can't decode YAML scalar value"]],
      ['refused_other', false, ['invalid formatting token']],
    ]);
    expect(read.cases[1]!.rules).toContain('- rule: base');
    expect(read.unread.map((u) => u.test)).toEqual(['two_loads']);
    expect(loaderRefusal(read.cases[1]!.rules)).toMatch(/'enabled' is "flase"/);
    const a = falcoLoaderAgreement(read);
    expect([a.agree, a.total]).toEqual([2, 4]);
    expect(a.byGroup.get('refused for what the gate does not read')).toEqual({ cases: 1, agree: 0 });
  });
});
