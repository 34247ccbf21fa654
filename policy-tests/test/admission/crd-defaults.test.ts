/** What the API server refuses of a CRD schema's defaults at create (pkg/apiserver/schema/defaulting/validation.go). */
import { describe, expect, it } from 'vitest';
import { defaultProblems, prunedField } from '../../admission/validation/crd-defaults.ts';

const problems = (schema: unknown) => defaultProblems(schema).map((p) => `${p.at.join('.')}: ${p.detail}`);
const root = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('defaults', () => {
  it('passes defaults their schema and rules accept', () => {
    expect(
      problems(
        root({
          mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
          replicas: { type: 'integer', minimum: 1, default: 2, 'x-kubernetes-validations': [{ rule: 'self < 10' }] },
          spec: { type: 'object', properties: { on: { type: 'boolean' } }, default: { on: true } },
          labels: { type: 'object', additionalProperties: { type: 'string' }, default: { a: 'b' } },
        }),
      ),
    ).toEqual([]);
  });

  it('refuses one its schema refuses, one its rules refuse, and one with a field it would prune, where the default stands', () => {
    expect(problems(root({ mode: { type: 'string', enum: ['a', 'b'], default: 'c' } }))).toEqual([
      'properties.mode.default: Unsupported value: "c": supported values: "a", "b"',
    ]);
    expect(problems(root({ replicas: { type: 'integer', default: 'two' } }))).toEqual(['properties.replicas.default: Invalid value: "two": must be integer']);
    expect(problems(root({ replicas: { type: 'integer', default: 12, 'x-kubernetes-validations': [{ rule: 'self < 10', message: 'at most 9' }] } }))).toEqual([
      'properties.replicas.default: Invalid value: at most 9',
    ]);
    expect(problems(root({ spec: { type: 'object', properties: { on: { type: 'boolean' } }, default: { on: true, off: false } } }))).toEqual([
      'properties.spec.default: Invalid value: {"on":true,"off":false}: must not have unknown fields (off)',
    ]);
  });

  it('prunes as the API server prunes: declared properties, map values, kept unknown fields, an embedded resource’s type and metadata', () => {
    expect(prunedField({ type: 'object', properties: { a: { type: 'object', properties: {} } } }, { a: { b: 1 } })).toEqual(['a', 'b']);
    expect(prunedField({ type: 'array', items: { type: 'object', properties: { x: {} } } }, [{ x: 1 }, { y: 2 }])).toEqual(['1', 'y']);
    expect(prunedField({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { any: 1 })).toBeUndefined();
    // A kept object still prunes inside what it declares; additionalProperties: true keeps an entry, not its fields.
    const kept = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'object', properties: {} } } };
    expect(prunedField(kept, { any: { deep: 1 }, a: { b: 1 } })).toEqual(['a', 'b']);
    expect(prunedField({ type: 'object', additionalProperties: true }, { a: 1, b: { c: 1 } })).toEqual(['b', 'c']);
    // A list that keeps unknown fields keeps its items' (skipPrune), and still prunes inside their declared fields.
    const list = {
      type: 'array',
      'x-kubernetes-preserve-unknown-fields': true,
      items: { type: 'object', properties: { x: { type: 'object', properties: {} } } },
    };
    expect(prunedField(list, [{ y: 1 }])).toBeUndefined();
    expect(prunedField(list, [{ x: { z: 1 } }])).toEqual(['0', 'x', 'z']);
    expect(
      prunedField({ type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }),
    ).toBeUndefined();
  });

  const placed = (schema: unknown) => defaultProblems(schema).map((p) => ({ at: p.at.join('.'), value: p.inValue?.text, detail: p.detail }));

  it('names an error inside a default where kube-openapi names it, in field.ErrorType words', () => {
    const spec = {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, ports: { type: 'array', maxItems: 1, items: { type: 'object', properties: { port: { type: 'integer' } } } } },
    };
    expect(placed(root({ spec: { ...spec, default: { name: 'a', ports: [{ port: 'http' }] } } }))).toEqual([
      { at: 'properties.spec.default.ports.0.port', value: '.ports.0.port', detail: 'Invalid value: "http": must be integer' },
    ]);
    expect(placed(root({ spec: { ...spec, default: { ports: [{}, {}] } } })).map((p) => [p.value, p.detail])).toEqual([
      ['.name', 'Required value'],
      ['.ports', 'Too many: 2: must have at most 1 items'],
    ]);
  });

  it("judges an embedded resource's type and metadata in a default, as objectmeta does", () => {
    const embedded = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true };
    expect(placed(root({ pod: { ...embedded, default: { apiVersion: 'v1', metadata: { labels: { 'bad key!': 'x' } } } } }))).toEqual([
      { at: 'properties.pod.default.kind', value: '.kind', detail: 'Required value' },
      { at: 'properties.pod.default.metadata.labels', value: '.metadata.labels', detail: expect.stringMatching(/^Invalid value: label key "bad key!": /) },
    ]);
    // Coerce comes first, and stops at its first error: a metadata that is no ObjectMeta.
    expect(placed(root({ pod: { ...embedded, default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 42 } } } }))).toEqual([
      {
        at: 'properties.pod.default.metadata',
        value: '.metadata',
        detail: 'Invalid value: {"name":42}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string',
      },
    ]);
    expect(placed(root({ pods: { type: 'array', items: embedded, default: [{ apiVersion: 'a/b/c', kind: 'Pod' }] } })).map((p) => p.value)).toEqual([
      '[0].apiVersion',
    ]);
  });

  it("sets a default inside a resource's metadata into that resource, which must then hold valid metadata", () => {
    const metadata = (properties: Record<string, unknown>) => ({ type: 'object', properties });
    expect(placed(root({ metadata: metadata({ name: { type: 'string', default: 'a/b' } }) }))).toEqual([
      {
        at: 'properties.metadata.properties.name.default',
        value: undefined,
        detail: `Invalid value: "a/b": must result in valid metadata: [Invalid value: "a/b": may not contain '/']`,
      },
    ]);
    expect(placed(root({ metadata: metadata({ name: { type: 'string', default: 'fine' } }) }))).toEqual([]);
  });

  it('walks items and properties only, as ValidateDefaults does: a default under additionalProperties is not its to judge', () => {
    expect(placed(root({ labels: { type: 'object', additionalProperties: { type: 'integer', default: 'x' } } }))).toEqual([]);
  });
});
