/**
 * A CRD as the API server's ValidateCustomResourceDefinition judges it beyond its schema's structure and rules: its
 * group, scope, versions, names, subresources, printer columns, selectable fields, conversion and approval, and the
 * schema keywords it refuses in any node. Each case one cause, in field.Error's words, at its path.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { definitionProblems } from '../../admission/validation/crd-definition.ts';
import { schemaFieldProblems } from '../../admission/validation/crd-schema-fields.ts';
import { judgeCrd } from '../../admission/checks/crd-accepted.ts';
import { crdYaml } from '../../../test-support/crd-fixture.ts';

type Obj = Record<string, any>;
const base = (): Obj =>
  parse(
    crdYaml({ group: 'backups.homelab.example', kind: 'Drill', plural: 'drills', specProperties: '                target:\n                  type: string' }),
  );
const said = (edit: (crd: Obj) => void) => {
  const crd = base();
  edit(crd);
  return definitionProblems(crd).map((p) => `${p.at.join('.')}: ${p.detail}`);
};
const version = (crd: Obj) => crd.spec.versions[0];

describe("a CRD's definition, as the API server validates it on a create", () => {
  it('passes the fixture, as a chart writes one', () => {
    expect(said(() => {})).toEqual([]);
  });

  it.each([
    ['a group with no dot', (c: Obj) => (c.spec.group = 'backups'), 'spec.group: Invalid value: "backups": should be a domain with at least one dot'],
    ['no scope', (c: Obj) => delete c.spec.scope, 'spec.scope: Required value'],
    [
      'a scope of another case',
      (c: Obj) => (c.spec.scope = 'namespaced'),
      'spec.scope: Unsupported value: "namespaced": supported values: "Cluster", "Namespaced"',
    ],
    [
      'no version for storage',
      (c: Obj) => (version(c).storage = false),
      'spec.versions: Invalid value: must have exactly one version marked as storage version',
    ],
    ['a version with no schema', (c: Obj) => delete version(c).schema, 'spec.versions.0.schema.openAPIV3Schema: Required value'],
    [
      'a version name in capitals',
      (c: Obj) => (version(c).name = 'V1'),
      expect.stringMatching(/^spec\.versions\.0\.name: Invalid value: "V1": a DNS-1035 label/),
    ],
    [
      'a deprecation warning on a version not deprecated',
      (c: Obj) => (version(c).deprecationWarning = 'use v2'),
      'spec.versions.0.deprecationWarning: Invalid value: "use v2": can only be set for deprecated versions',
    ],
    [
      'a deprecation warning with a tab, counted in bytes as Go counts',
      (c: Obj) => Object.assign(version(c), { deprecated: true, deprecationWarning: 'é\tv2' }),
      'spec.versions.0.deprecationWarning: Invalid value: "é\\tv2": must only contain printable UTF-8 characters; non-printable character found at index 2',
    ],
    [
      'a scale subresource whose replicas are read outside .spec',
      (c: Obj) => (version(c).subresources = { scale: { specReplicasPath: '.replicas', statusReplicasPath: '.status.replicas' } }),
      'spec.versions.0.subresources.scale.specReplicasPath: Invalid value: ".replicas": should be a json path under .spec',
    ],
    [
      'a printer column of a type the API server does not print',
      (c: Obj) => (version(c).additionalPrinterColumns = [{ name: 'Age', type: 'time', jsonPath: '.metadata.creationTimestamp' }]),
      'spec.versions.0.additionalPrinterColumns.0.type: Invalid value: "time": must be one of boolean,date,integer,number,string',
    ],
    [
      'a selectable field in metadata',
      (c: Obj) => {
        version(c).schema.openAPIV3Schema.properties.metadata = { type: 'object', properties: { name: { type: 'string' } } };
        version(c).selectableFields = [{ jsonPath: '.metadata.name' }];
      },
      'spec.versions.0.selectableFields.0.jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata',
    ],
    [
      'a kind whose list kind is itself',
      (c: Obj) => (c.spec.names.listKind = 'Drill'),
      'spec.names.listKind: Invalid value: "Drill": kind and listKind may not be the same',
    ],
    ['no plural', (c: Obj) => delete c.spec.names.plural, 'spec.names.plural: Required value'],
    [
      'a webhook conversion with no review versions',
      (c: Obj) => (c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'conv', namespace: 'backups' } } } }),
      'spec.conversion.webhook.conversionReviewVersions: Required value',
    ],
    [
      'a webhook conversion over plain http',
      (c: Obj) =>
        (c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://conv.example.net/' }, conversionReviewVersions: ['v1'] } }),
      `spec.conversion.webhook.clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    ],
    [
      'a webhook set under conversion None',
      (c: Obj) => (c.spec.conversion = { strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } }),
      'spec.conversion.webhook.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ],
    [
      'preserveUnknownFields',
      (c: Obj) => (c.spec.preserveUnknownFields = true),
      'spec.preserveUnknownFields: Invalid value: "true": cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ],
  ])('refuses %s', (_why, edit, expected) => {
    expect(said(edit as (c: Obj) => void)).toEqual([expected]);
  });

  it('defaults singular and listKind from the kind before judging them, as the v1 defaults do', () => {
    expect(
      said((c) => {
        delete c.spec.names.singular;
        delete c.spec.names.listKind;
      }),
    ).toEqual([]);
  });

  it("asks a protected group's CRD for its approval: a URL, or a reason starting with unapproved", () => {
    const group = (annotation?: string) =>
      said((c) => {
        c.spec.group = 'snapshot.storage.k8s.io';
        if (annotation !== undefined) c.metadata.annotations = { 'api-approved.kubernetes.io': annotation };
      });
    expect(group()).toEqual([
      expect.stringMatching(/^metadata\.annotations\.api-approved\.kubernetes\.io: Required value: protected groups must have approval annotation/),
    ]);
    expect(group('approved')).toEqual([
      expect.stringMatching(
        /Invalid value: "approved": protected groups must have approval annotation .* with either a URL or a reason starting with "unapproved"/,
      ),
    ]);
    expect([group('https://github.com/kubernetes-csi/external-snapshotter/pull/955'), group('unapproved, experimental')]).toEqual([[], []]);
    expect(said((c) => (c.spec.group = 'gateway.networking.x-k8s.io'))).toEqual([]);
  });
});

describe("a CRD schema's keywords, as the API server refuses them in any node", () => {
  const fields = (schema: Obj, status = false) => schemaFieldProblems(schema, status).map((p) => `${p.at.join('.')}: ${p.detail}`);

  it('refuses uniqueItems, a type OpenAPI v3 lacks, $ref and additionalProperties beside properties, each at its node', () => {
    expect(
      fields({
        type: 'object',
        properties: {
          hosts: { type: 'array', uniqueItems: true, items: { type: 'string' } },
          when: { type: 'date' },
          other: { $ref: '#/definitions/x' },
          labels: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
          open: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
          kept: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
        },
      }),
    ).toEqual([
      'properties.hosts.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      'properties.when.type: Unsupported value: "date": supported values: "array", "boolean", "integer", "number", "object", "string"',
      'properties.other.$ref: Forbidden: $ref is not supported',
      'properties.labels.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
      'properties.kept.x-kubernetes-preserve-unknown-fields: Invalid value: "false": must be true or undefined',
    ]);
  });

  it('keeps the root of a version with a status subresource to the fields status keeps, and never nullable', () => {
    const root = { type: 'object', properties: { spec: { type: 'object' } } };
    expect(fields(root, true)).toEqual([]);
    expect(fields({ ...root, 'x-kubernetes-map-type': 'atomic' }, true)).toEqual([
      expect.stringMatching(/^: Invalid value: x-kubernetes-map-type: only \[Description Type .*\] fields are allowed at the root/),
    ]);
    expect(fields({ ...root, 'x-kubernetes-map-type': 'atomic' }, false)).toEqual([]);
    expect(fields({ ...root, nullable: true })).toEqual(['nullable: Forbidden: nullable cannot be true at the root']);
  });

  it("forbids an embedded resource inside a resource's metadata and a default in the root's own metadata", () => {
    expect(
      fields({
        type: 'object',
        properties: {
          metadata: { type: 'object', default: {} },
          embedded: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            properties: { kind: { type: 'string', properties: { foo: { type: 'object', 'x-kubernetes-embedded-resource': true } } } },
          },
        },
      }),
    ).toEqual([
      'properties.metadata.default: Forbidden: must not be set in top-level metadata',
      'properties.embedded.properties.kind.properties.foo.x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta',
    ]);
  });
});

describe('a CRD refused as the API server names it (judgeCrd)', () => {
  const judged = (edit: (crd: Obj) => void) => {
    const crd = base();
    edit(crd);
    return judgeCrd(crd, crd.metadata.name).map((s) => ({ path: s.path.join('.'), field: s.field, type: s.type }));
  };
  const second = (c: Obj, schema = structuredClone(version(c).schema)) => c.spec.versions.push({ name: 'v2', served: true, storage: false, schema });
  const untyped = (c: Obj) => (version(c).schema.openAPIV3Schema.properties.spec.properties.target = {});

  it('names a schema every version holds alike spec.validation, once, at the first version in the file', () => {
    expect(
      judged((c) => {
        untyped(c);
        second(c);
      }),
    ).toEqual([
      {
        path: 'spec.versions.0.schema.openAPIV3Schema.properties.spec.properties.target.type',
        field: 'spec.validation.openAPIV3Schema.properties[spec].properties[target].type',
        type: 'Required value',
      },
    ]);
  });

  it('names each version where their schemas differ, and a printer column every version shares at the top level', () => {
    const said = judged((c) => {
      second(c);
      untyped(c);
      for (const v of c.spec.versions) v.additionalPrinterColumns = [{ name: 'Age', type: 'time', jsonPath: '.metadata.creationTimestamp' }];
    });
    expect(said.map((s) => s.field)).toEqual([
      'spec.additionalPrinterColumns[0].type',
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[target].type',
    ]);
  });

  it("names a webhook conversion's fields by the internal object's names", () => {
    expect(
      judged(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { service: { name: 'conv', namespace: 'backups', port: 0 } }, conversionReviewVersions: ['v1'] },
          }),
      ),
    ).toEqual([
      { path: 'spec.conversion.webhook.clientConfig.service.port', field: 'spec.conversion.webhookClientConfig.service.port', type: 'Invalid value' },
    ]);
  });

  it('judges nothing structural, no default and no rule of a schema NewStructural cannot read', () => {
    expect(
      judged((c) => {
        untyped(c);
        const spec = version(c).schema.openAPIV3Schema.properties.spec;
        spec['x-kubernetes-preserve-unknown-fields'] = false;
        spec['x-kubernetes-validations'] = [{ rule: 'self.nothing == 1' }];
      }).map((s) => s.field),
    ).toEqual(['spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-preserve-unknown-fields']);
  });

  it('compiles no rule of a schema with a structural problem, and none at a node with a schema error under it', () => {
    const rule = (c: Obj) => (version(c).schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'self.nothing == 1' }]);
    expect(judged(rule).map((s) => s.field)).toEqual(['spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule']);
    expect(
      judged((c) => {
        rule(c);
        untyped(c);
      }).map((s) => s.field),
    ).toEqual(['spec.validation.openAPIV3Schema.properties[spec].properties[target].type']);
    expect(
      judged((c) => {
        rule(c);
        version(c).schema.openAPIV3Schema.properties.spec.properties.target = { type: 'array', uniqueItems: true, items: { type: 'string' } };
      }).map((s) => s.field),
    ).toEqual(['spec.validation.openAPIV3Schema.properties[spec].properties[target].uniqueItems']);
  });

  it('warns of a schema pattern Go cannot compile, which the API server admits, refusing every object that sets the field', () => {
    const crd = base();
    version(crd).schema.openAPIV3Schema.properties.spec.properties.target.pattern = '^(a)\\1$';
    expect(judgeCrd(crd, crd.metadata.name)).toEqual([
      {
        path: ['spec', 'versions', 0, 'schema', 'openAPIV3Schema', 'properties', 'spec', 'properties', 'target', 'pattern'],
        field: 'spec.validation.openAPIV3Schema.properties[spec].properties[target].pattern',
        message: expect.stringMatching(
          /the pattern "\^\(a\)\\\\1\$" is not RE2 \(.*\): the API server admits the CRD, and refuses every object that sets spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[target\]$/,
        ),
        warning: true,
      },
    ]);
  });

  it('names the costliest rules beside the total, when their total is over the CRD limit', () => {
    const said = judged((c) => {
      const spec = version(c).schema.openAPIV3Schema.properties.spec;
      spec.properties.target = { type: 'array', items: { type: 'string' } };
      spec['x-kubernetes-validations'] = [{ rule: 'self.target.all(x, self.target.all(y, x == y))' }];
    });
    expect(said.map((s) => [s.field, s.type])).toEqual([
      ['spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule', 'Forbidden'],
      ['spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule', 'Forbidden'],
      ['spec.validation.openAPIV3Schema', 'Forbidden'],
    ]);
  });
});
