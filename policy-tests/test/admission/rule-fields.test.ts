/** What the API server refuses of an x-kubernetes-validations entry as written, before it compiles the rule (validation.go). */
import { describe, expect, it } from 'vitest';
import { entryProblems, validFieldPath } from '../../admission/cel/rule-fields.ts';
import type { JsonSchemaNode } from '../../admission/cel/schema-node.ts';

const node: JsonSchemaNode = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { 'a.b': { type: 'string' }, hosts: { type: 'array', items: { type: 'string' } } } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

describe('fieldPath, as ValidFieldPath walks it', () => {
  it.each([
    ['.spec', true],
    ['.spec.hosts', true],
    [".spec['a.b']", true],
    ['.labels.anything', true],
    [".labels['any.key']", true],
    ['.spec.missing', false],
    ['.spec.hosts[0]', false],
    ['spec', false],
    ['.spec.', false],
    [".spec['a.b'", false],
    [".spec['a\\qb']", false],
  ] as const)('%s: %s', (path, valid) => {
    expect(validFieldPath(path, node)).toBe(valid);
  });
});

describe("fieldPath: Kubernetes' own TestValidFieldPath cases (apiextensions-apiserver pkg/apiserver/schema/cel/validation_test.go)", () => {
  const n = { type: 'number' };
  const sts: JsonSchemaNode = {
    type: 'object',
    properties: {
      foo: { type: 'object', additionalProperties: { type: 'object', properties: { subAdd: n } } },
      'white space': n,
      "'foo'bar": n,
      a: {
        type: 'object',
        properties: {
          "foo's": n,
          'test\x07': n,
          'bb[b': n,
          bbb: { type: 'object', properties: { c: n, '34': n } },
          'bbb.c': { type: 'object', properties: { "a-b.3'4": n } },
        },
      },
      list: { type: 'array', items: { type: 'object', properties: { a: n, "a-b.3'4": n } } },
    },
  };
  it.each([
    ['.a', true],
    ["['\\'foo\\'bar']", true],
    [".\\'foo\\'bar", false],
    ['. a', false],
    ['.white space', true],
    ["['white space']", true],
    ['.a.bb[b', false],
    [".a['bbb.c']", true],
    [".a['bbb.c'", false],
    ['.', false],
    ['.foo.subAdd', true],
    [".foo['subAdd']", true],
    [".a.foo's", true],
    [".a['foo\\'s']", true],
    [".a['test\\a']", true],
    ['.a.foo', false],
    ['.a.bbb[0]', false],
    ['.a.bbb.34', true],
    [".a.bbb['34']", true],
    ['.list', true],
    ['.list[0]', false],
    ['.list. a', false],
    [".list['a']", false],
    ['a', false],
    ['.c', false],
    ['.a..b', false],
    ['.list.a-b.34', false],
  ] as const)('%s: %s', (path, valid) => {
    expect(validFieldPath(path, sts)).toBe(valid);
  });
});

describe('an entry as written', () => {
  const problems = (rule: Record<string, unknown>) => entryProblems(rule as never, node).map((p) => `${p.field}: ${p.detail}`);

  it('passes a plain rule, with its message, reason and fieldPath', () => {
    expect(problems({ rule: 'self.spec.hosts.size() > 0', message: 'needs hosts', reason: 'FieldValueRequired', fieldPath: '.spec.hosts' })).toEqual([]);
  });

  it("refuses each field in validation.go's words", () => {
    expect(problems({ rule: '  ' })).toEqual(['rule: Required value: rule is not specified']);
    expect(problems({ rule: 'true', message: ' ' })).toEqual(['message: Invalid value: " ": must be non-empty if specified']);
    expect(problems({ rule: 'true', message: 'two\nlines' })).toEqual(['message: Invalid value: "two\\nlines": must not contain line breaks']);
    expect(problems({ rule: 'true &&\ntrue' })).toEqual(['message: Required value: message must be specified if rule contains line breaks']);
    expect(problems({ rule: 'true', messageExpression: ' ' })).toEqual(['messageExpression: Required value: messageExpression must be non-empty if specified']);
    expect(problems({ rule: 'true', reason: 'FieldValueTooLong' })).toEqual([
      'reason: Unsupported value: "FieldValueTooLong": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
    ]);
    expect(problems({ rule: 'true', fieldPath: '.spec.hosts[0]' })).toEqual(['fieldPath: Invalid value: ".spec.hosts[0]": must be a valid path']);
  });
});
