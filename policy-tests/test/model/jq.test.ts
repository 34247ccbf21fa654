/**
 * jq's own engine on the jq path expressions of ignoreDifferences (model/compare/jq.ts): the fields each deletes as
 * Argo CD runs it (`del(<expression>)`), its compile and run errors told apart, and a pull request's expression that
 * never ends or reads outside the sandbox stopped, as Argo CD stops it at 1 s.
 */
import { describe, expect, it } from 'vitest';
import { runJq } from '../../model/compare/jq.ts';

const deployment = {
  spec: {
    replicas: 3,
    template: {
      spec: {
        containers: [
          { name: 'app', image: 'a:1' },
          { name: 'sidecar', image: 's:1' },
        ],
      },
    },
  },
};

describe('runJq', () => {
  it('names the fields an expression deletes, a select over a list at its index', async () => {
    expect(
      await runJq([
        { expression: '.spec.replicas', input: deployment },
        { expression: '.spec.template.spec.containers[] | select(.name == "sidecar") | .image', input: deployment },
        { expression: '.spec.replicas, .metadata.annotations', input: deployment },
        { expression: '.spec.template.spec.containers[-1]', input: deployment },
      ]),
    ).toEqual([
      { paths: [['spec', 'replicas']] },
      { paths: [['spec', 'template', 'spec', 'containers', 1, 'image']] },
      {
        paths: [
          ['spec', 'replicas'],
          ['metadata', 'annotations'],
        ],
      },
      { paths: [['spec', 'template', 'spec', 'containers', -1]] },
    ]);
  });

  it("tells a compile error (Argo CD's comparison fails) from a run error (Argo CD skips the expression), compiled alone or on an object", async () => {
    const [broken, brokenAlone, fails, compiles] = await runJq([
      { expression: '.spec.(', input: deployment },
      { expression: '.spec.(' },
      { expression: '.spec | keys', input: deployment },
      { expression: '.spec | keys' },
    ]);
    expect(broken).toEqual({ compileError: expect.stringMatching(/^jq: error: syntax error, unexpected '\('.*del\(\.spec\.\(\)$/) });
    expect(brokenAlone).toEqual(broken);
    // In Argo CD's program's words: no `empty | ` of the gate's, no hint for a shell.
    expect(JSON.stringify(broken)).not.toMatch(/empty \||Unix shell/);
    expect(fails).toEqual({ runError: expect.stringMatching(/Invalid path expression with result \["replicas","template"\]/) });
    expect(compiles).toEqual({ paths: [] });
  });

  it("stops an expression that never ends at Argo CD's 1 s, and answers the next one on a new thread", async () => {
    const answers = await runJq([
      { expression: 'def f: f; f', input: deployment },
      { expression: '.spec.replicas', input: deployment },
    ]);
    expect(answers).toEqual([{ unanswered: 'did not end in 1 s' }, { paths: [['spec', 'replicas']] }]);
  });

  it('runs no more once three programs did not end: a pull request may write many that never end', async () => {
    const loops = ['f', 'g', 'h', 'i', 'j'].map((name) => ({ expression: `def ${name}: ${name}; ${name}`, input: deployment }));
    expect(await runJq([...loops, { expression: '.spec.replicas', input: deployment }])).toEqual([
      ...Array.from({ length: 3 }, () => ({ unanswered: 'did not end in 1 s' })),
      ...Array.from({ length: 3 }, () => ({ unanswered: 'not run: 3 jq programs before it did not end' })),
    ]);
  });

  it('takes no expression that does not stand alone as one (it would read otherwise inside del()), nor a module', async () => {
    const [escaped, closed, module] = await runJq([
      // del(.spec) | (.spec.replicas): Argo CD's program is not the path it seems to name.
      { expression: '.spec) | (.spec.replicas', input: deployment },
      { expression: '.spec) , (.spec', input: deployment },
      { expression: 'include "/etc/passwd"; .spec', input: deployment },
    ]);
    // Run as Argo CD runs it: one result that deletes something has no paths to name; two results Argo CD skips.
    expect([escaped, closed]).toEqual([{ unanswered: 'does not read as one expression' }, { runError: 'returned 2 results where Argo CD takes one' }]);
    expect(module).toEqual({ compileError: expect.stringMatching(/syntax error, unexpected include/) });
  });

  it('runs one expression over many objects at once, each failure apart, and object by object where jq halts', async () => {
    const named = (name: string, replicas: unknown) => ({ metadata: { name }, spec: { replicas } });
    const many = Array.from({ length: 300 }, (_, i) => named(`w${i}`, i));
    const answers = await runJq(many.map((input) => ({ expression: 'select(.spec.replicas % 100 == 0) | .spec.replicas', input })));
    expect(answers.filter((a) => 'paths' in a && a.paths.length).length).toBe(3);
    expect(answers[100]).toEqual({ paths: [['spec', 'replicas']] });
    const [fails, works] = await runJq([
      { expression: '.spec.replicas | keys', input: named('a', 1) },
      { expression: '.spec.replicas | keys', input: named('b', { x: 1 }) },
    ]);
    expect(fails).toEqual({ runError: expect.stringMatching(/has no keys/) });
    expect(works).toEqual({ runError: expect.stringMatching(/Invalid path expression/) });
    const halting = 'if .spec.replicas == 1 then halt_error else .spec end';
    expect(await runJq([named('a', 1), named('b', 2)].map((input) => ({ expression: halting, input })))).toEqual([
      { runError: expect.any(String) },
      { paths: [['spec']] },
    ]);
  });
});

/**
 * Argo CD's own cases for its jq normalizer (util/argo/normalizers/diff_normalizer_test.go at v3.5.1), ported by hand:
 * what Argo CD does with each expression, and what the gate reads of it.
 */
describe("Argo CD's jq normalizer cases", () => {
  const withInits = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx-deployment' },
    spec: { template: { spec: { initContainers: [{ name: 'init-container-0' }, { name: 'init-container-1' }], containers: [{ name: 'nginx' }] } } },
  };
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'my-configmap' }, data: { 'config.yaml': 'auth: x' } };

  it('TestNormalizeJQPathExpression: the first init container is ignored, the second kept', async () => {
    const [answer] = await runJq([{ expression: '.spec.template.spec.initContainers[] | select(.name == "init-container-0")', input: withInits }]);
    expect(answer).toEqual({ paths: [['spec', 'template', 'spec', 'initContainers', 0]] });
  });

  it('TestNormalizeIllegalJQPathExpression: a missing quote does not compile, and the normalizer is refused', async () => {
    const [answer] = await runJq([{ expression: '.spec.template.spec.containers[] | select(.name == "missing-quote)' }]);
    expect(answer).toEqual({ compileError: expect.stringMatching(/syntax error/) });
  });

  it('TestNormalizeJQPathExpressionWithError: a path through a missing field fails, and the object is left as it is', async () => {
    expect(await runJq([{ expression: '.spec.fakeField.foo[]', input: withInits }])).toEqual([{ runError: expect.stringMatching(/Cannot iterate over null/) }]);
  });

  it('TestJqPathExpressionFailWithTimeout: an expression that never ends is stopped at 1 s', async () => {
    expect(await runJq([{ expression: 'until(true==false; [.] + [1])', input: withInits }])).toEqual([{ unanswered: 'did not end in 1 s' }]);
  });

  it('TestJQPathExpressionReturnsHelpfulError: an expression that closes del() and fails is skipped (the error in jq words; gojq says "fromjson cannot be applied")', async () => {
    const [answer] = await runJq([{ expression: '.nothing) | .data["config.yaml"] |= (fromjson | del(.auth) | tojson', input: configMap }]);
    expect(answer).toEqual({ runError: expect.stringMatching(/while parsing 'auth: x'/) });
  });
});
