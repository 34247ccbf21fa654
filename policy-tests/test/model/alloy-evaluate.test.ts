/**
 * Alloy's expressions worked out before Alloy runs (model/alloy/evaluate.ts and stdlib.ts), the values decoded by
 * their type (values.ts), and the argument types' own validation (validators.ts), on bodies as the check reads them.
 */
import { describe, expect, it } from 'vitest';
import { parseAlloy, type AlloyExpr } from '../../model/alloy/parser.ts';
import { evaluate, type EvalScope } from '../../model/alloy/evaluate.ts';
import { plainValue } from '../../model/alloy/evaluated.ts';
import { decodeProblems, type Unjudged } from '../../model/alloy/values.ts';
import { argumentProblems } from '../../model/alloy/arguments.ts';

const SCOPE: EvalScope = {
  nodeValue: (names) => {
    if (names[0] !== 'loki') return undefined;
    return names.join('.') === 'loki.write.default.receiver' ? { type: 'opaque(loki.LogsReceiver)' } : { why: 'not typed' };
  },
};
const expr = (text: string): AlloyExpr => {
  const { body, errors } = parseAlloy(`a = ${text}`);
  expect(errors).toEqual([]);
  return (body[0] as { value: AlloyExpr }).value;
};
const run = (text: string) => evaluate(expr(text), SCOPE);
const valueOf = (text: string) => plainValue(run(text));

describe("Alloy's expressions, worked out as the vm works them out", () => {
  it("computes operators as transform's BinaryOp does: an integer's arithmetic unless a float takes part", () => {
    const table: [string, unknown][] = [
      ['true || false', true],
      ['true && false', false],
      ['3 == 3.0', true],
      ['3 != 5', true],
      ['3 <= 5', true],
      ['"a" < "b"', true],
      ['3 + 5 * 2', 13],
      ['3 - 5', -2],
      ['7 / 2', 3],
      ['3.0 / 5.0', 0.6],
      ['5 % 3', 2],
      ['3 ^ 5', 243],
      ['0 ^ 1', 0],
      ['42.0^-2', 0.0005668934240362812],
      ['{ a = { b = 12 } }.a.b', 12],
      ['{}["foo"]', null],
      ['[[1,2,3]][0][2]', 3],
      ['(15)', 15],
      ['!true', false],
      ['-15', -15],
      ['"spec.nodeName=" + "x"', 'spec.nodeName=x'],
      ['[1, "a"] == [1, "a"]', true],
    ];
    for (const [text, value] of table) expect(valueOf(text), text).toEqual(value);
    // A power past the integers a double holds exactly is not worked out, and a hostile one ends at once.
    expect(run('2 ^ 999999999')).toMatchObject({ kind: 'unread' });
    expect(run('9007199254740991 + 2')).toMatchObject({ kind: 'unread' });
    expect(valueOf('(-1) ^ 999999999')).toBe(-1);
  });

  it("refuses in the vm's words what it refuses whatever the values", () => {
    const failed = (text: string) => {
      const e = run(text);
      return e.kind === 'failed' ? e.message : `${e.kind}`;
    };
    expect(failed('1 + "a"')).toBe('"a" should be number, got string');
    expect(failed('true + 1')).toBe('true should be one of [number string capsule] for binop +, got bool');
    expect(failed('"a" - 1')).toBe('"a" should be one of [number] for binop -, got string');
    expect(failed('5 / 0')).toBe('0 divide by zero error');
    expect(failed('[1][3]')).toBe('3 index 3 is out of range of array with length 1');
    expect(failed('!1')).toBe('1 should be bool, got number');
    expect(failed('sys.env("X") + 1')).toBe('1 should be string, got number');
    expect(failed('{ a = 1 }.b')).toBe('field "b" does not exist');
  });

  it('knows a value read at run time by its type, and the standard library by what it returns', () => {
    expect(run('"spec.nodeName=" + coalesce(sys.env("HOSTNAME"), constants.hostname)')).toMatchObject({
      kind: 'typed',
      type: 'string',
      from: expect.stringContaining('sys.env("HOSTNAME")'),
    });
    expect(valueOf('coalesce("", null, "b")')).toBe('b');
    expect(valueOf('coalesce([], 0, false)')).toBe(false);
    expect(valueOf('coalesce()')).toBe(null);
    expect(run('coalesce(sys.env("A"), 5)')).toMatchObject({ kind: 'unread' });
    expect(valueOf('string.to_upper("a") + to_lower("B")')).toBe('Ab');
    expect(valueOf('string.join(["a", "b"], ",")')).toBe('a,b');
    expect(valueOf('string.split("a,b", ",")')).toEqual(['a', 'b']);
    expect(valueOf('string.trim("xxaxx", "x")')).toBe('a');
    expect(valueOf('string.trim_suffix("a.alloy", ".alloy")')).toBe('a');
    expect(valueOf('array.concat([1], [2, 3])')).toEqual([1, 2, 3]);
    expect(valueOf('string.format("%s-%d", "a", 1)')).toBe('a-1');
    // A verb the gate does not print as Go does, or a decode of text read at run time: its type alone, or nothing.
    expect(run('string.format("%x", 255)')).toMatchObject({ kind: 'typed', type: 'string' });
    expect(valueOf('encoding.from_json("{\\"a\\": [1]}")')).toEqual({ a: [1] });
    expect(run('encoding.from_json(sys.env("J"))')).toMatchObject({ kind: 'unread' });
    expect(run('encoding.to_json(1)')).toMatchObject({ kind: 'failed', message: 'encoding.to_json jsonEncode only supports map' });
    expect(run('loki.write.default.receiver')).toMatchObject({ kind: 'typed', type: 'opaque(loki.LogsReceiver)' });
    expect(run('loki.write.other.thing')).toMatchObject({ kind: 'unread', why: 'not typed' });
  });
});

describe('values decoded by their type', () => {
  const decode = (text: string, type: string) => decodeProblems(run(text), type, {});
  it('holds a value known by its type to what that type converts to, and says what it cannot tell', () => {
    expect(decode('sys.env("A")', 'string')).toEqual({ problems: [], unjudged: [] });
    expect(decode('sys.env("A")', 'bool').problems).toEqual([{ line: 1, message: 'sys.env("A") should be bool, got string' }]);
    expect(decode('sys.env("A")', 'number').unjudged).toEqual([{ line: 1, why: 'sys.env("A"), a string read at run time, given to a number' }]);
    expect(decode('sys.env("A")', 'duration').unjudged).toHaveLength(1);
    expect(decode('loki.write.default.receiver', 'list(opaque(loki.LogsReceiver))').problems).toEqual([
      { line: 1, message: 'loki.write.default.receiver should be array, got capsule' },
    ]);
    expect(decode('[loki.write.default.receiver]', 'list(opaque(loki.LogsReceiver))')).toEqual({ problems: [], unjudged: [] });
    expect(decode('[loki.write.default.receiver]', 'list(opaque(other.Type))').unjudged).toHaveLength(1);
    expect(decode('"http://x"', 'text').unjudged).toEqual([{ line: 1, why: `"http://x" parsed by the argument type's own UnmarshalText` }]);
    // A URL the reference names (config.URL): parsed as its UnmarshalText parses it, url.Parse.
    const URL = 'text(internal/component/common/config.URL)';
    expect(decode('"https://kubernetes.default.svc:443"', URL)).toEqual({ problems: [], unjudged: [] });
    expect(decode('"http://api:6443x"', URL).problems).toEqual([
      { line: 1, message: '"http://api:6443x" parse "http://api:6443x": invalid port ":6443x" after host' },
    ]);
    expect(decode('sys.env("API")', URL).unjudged).toHaveLength(1);
    expect(decode('"x"', 'text(other.Level)').unjudged).toEqual([{ line: 1, why: `"x" parsed by other.Level's own UnmarshalText` }]);
  });
});

describe("the argument types' own validation", () => {
  // The events source's arguments, under its own id (ported) and under one the gate has no port for.
  const EVENTS_SCHEMA = { '(runs)': 'Validate', job_name: 'attr string', log_format: 'attr string' };
  const SCHEMAS = {
    'events.Arguments': EVENTS_SCHEMA,
    'internal/component/loki/source/kubernetes_events.Arguments': EVENTS_SCHEMA,
    'internal/component/loki/write.EndpointOptions': {
      '(runs)': 'Validate',
      url: 'attr required string',
      bearer_token: 'attr secret',
      basic_auth: 'block internal/component/common/config.BasicAuth',
    },
    'internal/component/common/config.BasicAuth': { '(runs)': 'Validate', password: 'attr secret', password_file: 'attr string' },
    'internal/component/loki/write.WalArguments': { '(runs)': 'Validate', min_read_frequency: 'attr duration', max_read_frequency: 'attr duration' },
    'internal/component/remote/kubernetes.Arguments': {
      '(runs)': 'Validate',
      namespace: 'attr required string',
      name: 'attr required string',
      poll_frequency: 'attr duration',
      poll_timeout: 'attr duration',
    },
    'internal/component/common/relabel.Config': {
      '(runs)': 'Validate',
      source_labels: 'attr list(string)',
      separator: 'attr string',
      regex: 'attr text(internal/component/common/relabel.Regexp)',
      modulus: 'attr number',
      target_label: 'attr string',
      replacement: 'attr string',
      action: 'attr text(internal/component/common/relabel.Action)',
    },
    'internal/component/common/kubernetes.ClientArguments': {
      '(runs)': 'Validate',
      api_server: 'attr text',
      kubeconfig_file: 'attr string',
      follow_redirects: 'attr bool',
    },
  };
  const check = (id: string, text: string) => {
    const unjudged: Unjudged[] = [];
    const problems = argumentProblems(parseAlloy(text).body, id, SCHEMAS, { unjudged, line: 7 }).map((p) => p.message);
    return { problems, unjudged: unjudged.map((u) => `${u.line}: ${u.why}`) };
  };
  const EVENTS = 'internal/component/loki/source/kubernetes_events.Arguments';
  const ENDPOINT = 'internal/component/loki/write.EndpointOptions';
  it('refuses what the ported Validate refuses, in its words, and passes the defaults', () => {
    expect(check(EVENTS, '')).toEqual({ problems: [], unjudged: [] });
    expect(check(EVENTS, 'log_format = "text"').problems).toEqual(['supported values of log_format are logfmt and json']);
    expect(check(EVENTS, 'job_name = ""').problems).toEqual(['job_name must not be an empty string']);
    const REMOTE = 'internal/component/remote/kubernetes.Arguments';
    expect(check(REMOTE, 'namespace = "a"\nname = "b"')).toEqual({ problems: [], unjudged: [] });
    expect(check(REMOTE, 'namespace = "a"\nname = "b"\npoll_frequency = "0s"').problems).toEqual(['poll_frequency must be greater than 0']);
    // Its second message as Alloy words it, for a timeout that is not above 0.
    expect(check(REMOTE, 'namespace = "a"\nname = "b"\npoll_timeout = "-1s"').problems).toEqual(['poll_timeout must not be greater than 0']);
    expect(check(ENDPOINT, 'url = "http://loki:3100/push"')).toEqual({ problems: [], unjudged: [] });
    expect(check(ENDPOINT, 'url = "http://loki:31OO/push"').problems).toEqual([
      'failed to parse remote url "http://loki:31OO/push": parse "http://loki:31OO/push": invalid port ":31OO" after host',
    ]);
    expect(check(ENDPOINT, 'url = "u"\nbearer_token = "t"\nbasic_auth {\n  password = "p"\n}').problems).toEqual([
      'at most one of basic_auth, authorization, oauth2, bearer_token & bearer_token_file must be configured',
    ]);
    expect(check(ENDPOINT, 'url = "u"\nbasic_auth {\n  password = "p"\n  password_file = "/f"\n}').problems).toEqual([
      'at most one of basic_auth password & password_file must be configured',
    ]);
    expect(check('internal/component/loki/write.WalArguments', 'min_read_frequency = "2s"').problems).toEqual([
      'WAL min read frequency should be lower than max read frequency',
    ]);
    expect(check('internal/component/common/kubernetes.ClientArguments', 'kubeconfig_file = "/k"\nfollow_redirects = false').problems).toEqual([
      'custom HTTP client configuration is not allowed when kubeconfig_file is set',
    ]);
    expect(check('internal/component/common/kubernetes.ClientArguments', 'follow_redirects = true')).toEqual({ problems: [], unjudged: [] });
  });

  it("ports a relabelling rule's own code: relabel.Action's names as written, and relabel.Config's Validate after its defaults", () => {
    const RULE = 'internal/component/common/relabel.Config';
    expect(check(RULE, 'target_label = "a"')).toEqual({ problems: [], unjudged: [] });
    expect(check(RULE, 'action = "KEEP"').problems).toEqual(['"KEEP" unrecognized action type "KEEP"']);
    expect(check(RULE, 'action = "keep"\nsource_labels = ["a"]')).toEqual({ problems: [], unjudged: [] });
    // relabel.Regexp compiles the text anchored, `^(?s:` + text + `)$`, by Go's syntax: Go's error, the anchored form in it.
    expect(check(RULE, 'action = "keep"\nsource_labels = ["a"]\nregex = "(a"').problems).toEqual(['"(a" error parsing regexp: missing closing ): `^(?s:(a)$`']);
    expect(check(RULE, 'action = "drop"\nsource_labels = ["a"]\nregex = "a**"').problems).toEqual([
      '"a**" error parsing regexp: invalid nested repetition operator: `**`',
    ]);
    // Balanced across the anchor, `^(?s:a)(b)$` compiles: Alloy loads it, as the gate says.
    expect(check(RULE, 'action = "keep"\nsource_labels = ["a"]\nregex = "a)(b"')).toEqual({ problems: [], unjudged: [] });
    expect(check(RULE, 'action = "keep"\nsource_labels = ["a"]\nregex = sys.env("RE")').unjudged).toEqual([expect.stringContaining('relabel.Regexp')]);
    expect(check(RULE, '').problems).toEqual(["relabel configuration for replace action requires 'target_label' value"]);
    expect(check(RULE, 'action = "hashmod"\ntarget_label = "h"').problems).toEqual(['relabel configuration for hashmod requires non-zero modulus']);
    expect(check(RULE, 'target_label = "$1-x"').problems).toEqual([`"$1-x" is invalid 'target_label' for replace action`]);
    expect(check(RULE, 'action = "lowercase"\ntarget_label = "l"\nreplacement = "x"').problems).toEqual(["'replacement' can not be set for lowercase action"]);
    expect(check(RULE, 'action = "labelmap"\nreplacement = "-"').problems).toEqual([`"-" is invalid 'replacement' for labelmap action`]);
    expect(check(RULE, 'action = "labeldrop"\nsource_labels = []').problems).toEqual(["labeldrop action requires only 'regex', and no other fields"]);
    expect(check(RULE, 'action = "keepequal"\ntarget_label = "t"\nseparator = ","').problems).toEqual([
      "keepequal action requires only 'source_labels' and 'target_label', and no other fields",
    ]);
    // A label name outside the legacy scheme turns on the scheme Alloy's build sets: not judged.
    expect(check(RULE, 'target_label = "a.b"').unjudged).toEqual([
      `7: what ${RULE}'s own Validate refuses: its rules read target_label "a.b", a label name outside the legacy scheme`,
    ]);
  });

  it('says unjudged a type whose code it has not ported, and a rule that reads a value it does not work out', () => {
    expect(check('events.Arguments', 'log_format = "text"').unjudged).toEqual(["7: what events.Arguments's own Validate refuses"]);
    expect(check(EVENTS, 'log_format = sys.env("FORMAT")').unjudged).toEqual([
      `7: what ${EVENTS}'s own Validate refuses: its rules read log_format (sys.env("FORMAT"))`,
    ]);
    // A body the decoder already refuses never reaches its Validate.
    expect(check(EVENTS, 'log_format = true\njob_name = ""')).toEqual({ problems: ['true should be string, got bool'], unjudged: [] });
  });
});
