/**
 * Alloy's constant values (model/alloy/parser.ts keeps them, model/alloy/values.ts decodes them): each rule of
 * syntax/internal/value/decode.go's conversions, in the vm's words, on a component's body as the check reads it.
 */
import { describe, expect, it } from 'vitest';
import { parseAlloy, type AlloyExpr } from '../../model/alloy/parser.ts';
import { argumentProblems } from '../../model/alloy/arguments.ts';
import { constantProblems } from '../../model/alloy/values.ts';

const SCHEMAS = {
  'write.Endpoint': {
    url: 'attr required string',
    batch_wait: 'attr duration',
    max_backoff_retries: 'attr number',
    retry_on_http_429: 'attr bool',
    headers: 'attr map',
    api_server: 'attr text',
    bearer_token: 'attr secret',
    batch_size: 'attr opaque',
    names: 'attr list(string)',
    waits: 'attr list(duration)',
    key: 'attr object(write.Key)',
  },
  'write.Key': { object: 'attr object(write.Object)' },
  'write.Object': { field1: 'attr list(number)' },
};
const problems = (text: string) => {
  const { body, errors } = parseAlloy(text);
  expect(errors).toEqual([]);
  return argumentProblems(body, 'write.Endpoint', SCHEMAS).map((p) => `${p.line}: ${p.message}`);
};
const constantOf = (text: string) => {
  const value = (parseAlloy(`a = ${text}`).body[0] as { value: AlloyExpr }).value;
  return value.kind === 'other' ? value.constant : undefined;
};

describe("Alloy's constant values", () => {
  it('keeps the value of a literal, a list or object of them, a negation and a sum, with its text; nothing else', () => {
    expect(constantOf('"a\\tb"')).toMatchObject({ value: 'a\tb', text: '"a\\tb"', line: 1 });
    expect(constantOf('[1, -2.5, true, null, `raw`]')?.value).toEqual([1, -2.5, true, null, 'raw']);
    expect(constantOf('{ a = 1, "b c" = ["x"] }')).toMatchObject({ value: { a: 1, 'b c': ['x'] }, keys: ['a', 'b c'] });
    expect(constantOf('"spec.nodeName=" + "x"')?.value).toBe('spec.nodeName=x');
    expect(constantOf('(1 + 2)')?.value).toBe(3);
    expect(constantOf('!false')?.value).toBe(true);
    // A reference, a call, a mixed sum, another operator: worked out by the vm from other values, not here.
    for (const text of ['loki.write.default.receiver', 'sys.env("HOSTNAME")', '"a" + 1', '2 * 3', '[1, x]', '"a" + coalesce(x, "b")'])
      expect(constantOf(text), text).toBeUndefined();
  });

  it('passes what the decoder converts: a number to text, text that reads whole as a number, a duration Go parses, null anywhere', () => {
    expect(
      problems(
        'url = 8080\nmax_backoff_retries = "10"\nbatch_wait = "1m30s"\nretry_on_http_429 = true\nheaders = { a = "b" }\nnames = ["a", 1]\nwaits = ["5s"]\nbatch_wait = null',
      ).filter((p) => !p.includes('may only be provided once')),
    ).toEqual([]);
    expect(problems('url = "u"\nmax_backoff_retries = "-3"\napi_server = "http://x"\nbearer_token = "t"\nbatch_size = "1MiB"')).toEqual([]);
  });

  it("refuses in the vm's words, at the line of the value at fault", () => {
    expect(problems('url = true')).toEqual(['1: true should be string, got bool']);
    expect(problems('url = "u"\nbatch_wait = "5"')).toEqual(['2: "5" time: missing unit in duration "5"']);
    expect(problems('url = "u"\nbatch_wait = 5')).toEqual(['2: 5 time: missing unit in duration "5"']);
    expect(problems('url = "u"\nmax_backoff_retries = "ten"')).toEqual(['2: "ten" should be number, got string']);
    expect(problems('url = "u"\nmax_backoff_retries = "1_0"')).toEqual(['2: "1_0" should be number, got string']);
    expect(problems('url = "u"\nretry_on_http_429 = "true"')).toEqual(['2: "true" should be bool, got string']);
    expect(problems('url = "u"\nheaders = ["a"]')).toEqual(['2: ["a"] should be object, got array']);
    expect(problems('url = [0, 1, 2]')).toEqual(['1: [0, 1, 2] should be string, got array']);
    expect(problems('url = "u"\nnames = ["a",\n  false,\n]')).toEqual(['3: false should be string, got bool']);
    expect(problems('url = "u"\napi_server = false')).toEqual(['2: false should be string, got bool']);
    // An object decoded into a struct: each field by its tag, a key it has no field for refused.
    expect(problems('url = "u"\nkey = {\n  object = {\n    field1 = [15, 30, "Hello, world!"],\n  },\n}')).toEqual([
      '4: "Hello, world!" should be number, got string',
    ]);
    expect(problems('url = "u"\nkey = { objekt = 1 }')).toEqual(['2: 1 does not have field named "objekt"']);
    expect(problems('url = "u"\nkey = true')).toEqual(['2: true should be object, got bool']);
  });

  it('judges no type it has no rule for', () => {
    const constant = constantOf('true')!;
    expect(['opaque', 'any', 'secret'].flatMap((t) => constantProblems(constant, t, SCHEMAS))).toEqual([]);
    // An object into a struct the reference does not hold: its fields are not judged.
    expect(constantProblems(constantOf('{ a = true }')!, 'object(unknown.Schema)', SCHEMAS)).toEqual([]);
  });
});
