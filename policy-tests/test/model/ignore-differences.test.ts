/** The fields Argo CD ignores in a diff (diff_normalizer.go) and what a sync under RespectIgnoreDifferences=true sends. */
import { describe, expect, it } from 'vitest';
import {
  ignoredFields,
  resolveJqExpressions,
  uncompiledJq,
  uncompiledJqOverrides,
  withLiveValues,
  withoutPointers,
} from '../../model/compare/ignore-differences.ts';

const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: 'data' }, spec: { replicas: 1 } };

describe('ignoreDifferences', () => {
  it("matches an Application's entries by group and kind globs, and by name and namespace where given", () => {
    const spec = {
      ignoreDifferences: [
        { group: 'apps', kind: 'StatefulSet', jsonPointers: ['/spec/volumeClaimTemplates'] },
        { group: 'ap*', kind: '*Set', name: 'db', jqPathExpressions: ['.spec.replicas'] },
        { group: 'apps', kind: 'StatefulSet', name: 'other', jsonPointers: ['/spec/replicas'] },
        { group: 'apps', kind: 'StatefulSet', namespace: 'elsewhere', jsonPointers: ['/spec/template'] },
        { group: '', kind: 'StatefulSet', jsonPointers: ['/spec/serviceName'] },
        { group: 'apps', kind: 'StatefulSet', managedFieldsManagers: ['kube-controller-manager'] },
      ],
    };
    // No argocd-cm is Argo CD's defaults: /status of every object ignored.
    expect(ignoredFields(sts, spec)).toEqual({
      pointers: ['/spec/volumeClaimTemplates', '/status'],
      unread: ['jq .spec.replicas', 'fields managed by kube-controller-manager'],
    });
  });

  it("reads argocd-cm's resource.customizations.ignoreDifferences.<group_kind>, `all` for every kind, and skips a value it cannot parse", () => {
    const cm = {
      'resource.customizations.ignoreDifferences.apps_StatefulSet': 'jsonPointers:\n- /spec/volumeClaimTemplates\n',
      'resource.customizations.ignoreDifferences.all': 'jsonPointers: [/metadata/labels/team]\n',
      'resource.customizations.ignoreDifferences.Service': 'jsonPointers: [/spec/clusterIP]\n',
      'resource.customizations.ignoreDifferences.batch_Job': 'jsonPointers: [/spec\n',
    };
    expect(ignoredFields(sts, {}, cm).pointers).toEqual(['/spec/volumeClaimTemplates', '/metadata/labels/team', '/status']);
  });

  it('reads the older resource.customizations map, which a split key replaces kind by kind, and ignores /status as resource.compareoptions says', () => {
    const combined = {
      'resource.customizations':
        'apps/StatefulSet:\n  ignoreDifferences: |\n    jsonPointers: [/spec/replicas]\nService:\n  ignoreDifferences: "jsonPointers: [/spec/clusterIP]"\n  health.lua: return hs\n',
    };
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } };
    expect(ignoredFields(sts, {}, combined).pointers).toEqual(['/spec/replicas', '/status']);
    expect(ignoredFields(svc, {}, combined).pointers).toEqual(['/spec/clusterIP', '/status']);
    const split = { ...combined, 'resource.customizations.ignoreDifferences.apps_StatefulSet': 'jsonPointers: [/spec/template]\n' };
    expect(ignoredFields(sts, {}, split).pointers).toEqual(['/spec/template', '/status']);
    // ignoreResourceStatusField: crd for CRDs alone, none (or off, false) for nothing.
    const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' } };
    const crdOnly = { 'resource.compareoptions': 'ignoreResourceStatusField: crd\n' };
    expect([ignoredFields(sts, {}, crdOnly).pointers, ignoredFields(crd, {}, crdOnly).pointers]).toEqual([[], ['/status']]);
    // ignoreAggregatedRoles: an aggregated ClusterRole compared without its rules, another role with them.
    const aggregated = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'view' },
      aggregationRule: { clusterRoleSelectors: [] },
    };
    const plain = { ...aggregated, aggregationRule: undefined };
    const roles = { 'resource.compareoptions': 'ignoreAggregatedRoles: true\n' };
    expect([ignoredFields(aggregated, {}, roles).pointers, ignoredFields(plain, {}, roles).pointers, ignoredFields(aggregated, {}, {}).pointers]).toEqual([
      ['/status', '/rules'],
      ['/status'],
      ['/status'],
    ]);
    for (const none of ['none', 'off', 'false'])
      expect(ignoredFields(sts, {}, { 'resource.compareoptions': `ignoreResourceStatusField: ${none}\n` }).pointers).toEqual([]);
  });

  it('sends the live value of each ignored pointer, escapes read as RFC 6901 says, and drops what the live object lacks', () => {
    const live = { spec: { a: 1, 'x/y': { '~z': 2 } } };
    const target = { spec: { a: 5, 'x/y': { '~z': 9 }, b: 3, c: 4 } };
    expect(withLiveValues(target, live, ['/spec/a', '/spec/x~1y/~0z', '/spec/b', '/nowhere/deep'])).toEqual({ spec: { a: 1, 'x/y': { '~z': 2 }, c: 4 } });
    expect(target.spec.a).toBe(5);
    // Pointers are the pull request's: none reaches a prototype.
    expect(withLiveValues({ a: 1 }, { a: 2 }, ['/__proto__/polluted', '/constructor/prototype/x', '/a/length'])).toEqual({ a: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("removes every ignored pointer at once, as the normalizer's del does: the last items of a list first", () => {
    const object = { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], replicas: 2 } };
    expect(withoutPointers(object, ['/spec/containers/0', '/spec/containers/2', '/spec/replicas', '/nowhere'])).toEqual({
      spec: { containers: [{ name: 'b' }] },
    });
    expect(withoutPointers(object, ['/spec/containers/1/name', '/spec/containers/1'])).toEqual({
      spec: { containers: [{ name: 'a' }, { name: 'c' }], replicas: 2 },
    });
    // The object itself is not changed, and a pointer into a prototype is not followed.
    expect(object.spec.containers).toHaveLength(3);
    expect(withoutPointers({ a: 1 }, ['/__proto__/polluted', '/constructor'])).toEqual({ a: 1 });
  });

  it('reads a jq expression once jq has named the fields it deletes of each object, and says what it cannot read', async () => {
    const web = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'data' },
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'web', image: 'w:1' },
              { name: 'proxy', image: 'p:1' },
            ],
          },
        },
      },
    };
    const spec = {
      ignoreDifferences: [
        {
          group: 'apps',
          kind: 'Deployment',
          jqPathExpressions: [
            '.spec.template.spec.containers[] | select(.name == "proxy") | .image',
            '.spec | keys',
            '.spec.template.spec.containers[1:]',
            '.spec.(',
          ],
        },
      ],
    };
    const cm = { 'resource.customizations.ignoreDifferences.apps_Deployment': "jqPathExpressions: ['.metadata.labels[\"team\"]', '.status.(']\n" };
    // Before jq has answered, every expression is unread.
    expect(ignoredFields(web, spec, cm).unread).toHaveLength(6);
    await resolveJqExpressions(() => [{ object: web, appSpec: spec }], [spec], cm);
    expect(ignoredFields(web, spec, cm)).toEqual({
      pointers: ['/spec/template/spec/containers/1/image', '/metadata/labels/team', '/status'],
      unread: [
        'jq .spec.template.spec.containers[1:] (a slice of a list)',
        'jq .spec.( (it does not compile, so Argo CD compares nothing of the app)',
        'jq .status.( (it does not compile, so Argo CD compares nothing of the app)',
      ],
    });
    expect(uncompiledJq(spec)).toEqual([
      { at: { path: ['ignoreDifferences', 0, 'jqPathExpressions', 3] }, expression: '.spec.(', error: expect.stringMatching(/syntax error/) },
    ]);
    expect(uncompiledJqOverrides(cm)).toEqual([
      { at: { key: 'resource.customizations.ignoreDifferences.apps_Deployment' }, expression: '.status.(', error: expect.stringMatching(/syntax error/) },
    ]);
    // What jq named is sent as the cluster holds it, the other container untouched.
    const live = structuredClone(web);
    live.spec.template.spec.containers[1]!.image = 'p:0';
    const target = structuredClone(web);
    target.spec.template.spec.containers[0]!.image = 'w:2';
    expect(withLiveValues(target, live, ignoredFields(web, spec, cm).pointers).spec).toEqual({
      template: {
        spec: {
          containers: [
            { name: 'web', image: 'w:2' },
            { name: 'proxy', image: 'p:0' },
          ],
        },
      },
    });
  });

  it('reads hostile shapes without an exception: a list that is no list, items that are no text, an override that is no map', async () => {
    const odd = [
      { ignoreDifferences: 'jsonPointers: [/spec]' },
      { ignoreDifferences: [null, 5, 'x', { group: 'apps', kind: 'StatefulSet', jqPathExpressions: 'not a list', jsonPointers: [5, '/spec/a'] }] },
      { ignoreDifferences: [{ group: 'apps', kind: 'StatefulSet', jqPathExpressions: [7, null, { a: 1 }, '.spec.b'] }] },
    ];
    const cm = {
      'resource.customizations': '- not a map\n',
      'resource.customizations.ignoreDifferences.all': 'jqPathExpressions: {a: 1}\n',
      'resource.compareoptions': '[1, 2]\n',
    };
    await resolveJqExpressions(() => odd.map((appSpec) => ({ object: sts, appSpec })), odd, cm);
    expect(odd.map((spec) => ignoredFields(sts, spec, cm))).toEqual([
      { pointers: ['/status'], unread: [] },
      { pointers: ['/spec/a', '/status'], unread: [] },
      { pointers: ['/spec/b', '/status'], unread: [] },
    ]);
    expect(odd.flatMap(uncompiledJq)).toEqual([]);
    expect(uncompiledJqOverrides(cm)).toEqual([]);
  });
});
