/**
 * The prometheus-operator's PrometheusRule validation (admission/webhooks/prometheus-rules.ts: v0.93's ValidateRule
 * over Prometheus 3.13's rulefmt), each refusal at its field and in rulefmt's words, and the check that says it.
 */
import { describe, expect, it } from 'vitest';
import { prometheusRuleRefusals, WEBHOOK_PARSE } from '../../admission/webhooks/prometheus-rules.ts';
import { featuresOf } from '../../model/monitoring/promql-lint.ts';
import { prometheusOperatorWebhookCheck } from '../../admission/checks/prometheus-operator-webhook.ts';
import { runChecks } from '../../model/checks/runner.ts';
import {
  goTemplateAgreement,
  goTemplateCases,
  operatorAdmissionAgreement,
  operatorAdmissionCases,
  promqlAgreement,
  promqlCases,
  ruleFileAgreement,
  ruleFileCases,
} from '../../admission/upstream/prometheus-rule-cases.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { copyGateOptions, copyRepo } from '../support/helpers.ts';
import { runGate } from '../../gate/gate.ts';
import { allFindings } from '../../gate/result.ts';
import { nonStringPatches } from '../../model/prometheus-operator/mutation.ts';
import { PLATFORM_RULES } from '../mutations/edits.ts';

const STACK_VALUES = 'monitoring/kube-prometheus-stack/values.yaml';

const alert = (extra: object = {}) => ({
  alert: 'Down',
  expr: 'up == 0',
  labels: { severity: 'warning' },
  annotations: { summary: '{{ $labels.instance }} is down' },
  ...extra,
});
const refusals = (rules: object[], group: object = {}) =>
  prometheusRuleRefusals({ groups: [{ name: 'g', rules, ...group }] }).map((r) => `${r.path.slice(3).join('.')}: ${r.message}`);

describe("the prometheus-operator's PrometheusRule validation", () => {
  it('admits alerting and recording rules Prometheus loads', () => {
    expect(
      refusals([alert(), { record: 'job:up:sum', expr: 'sum by (job) (up)', labels: { team: 'x' } }, alert({ for: '5m', keep_firing_for: '1m' })]),
    ).toEqual([]);
    // The Thanos-only field is dropped before the parse; an empty `for` is no `for`.
    expect(refusals([{ record: 'a:b', expr: '1', for: '' }], { partial_response_strategy: 'warn' })).toEqual([]);
    // A number expression (the CRD's int-or-string) is its text.
    expect(refusals([{ record: 'one', expr: 1 }])).toEqual([]);
  });

  it("refuses a rule's shape in rulefmt's words, at the field", () => {
    expect(refusals([{ expr: 'up' }])).toEqual(['rules.0: group "g", rule 1, "": one of \'record\' or \'alert\' must be set']);
    expect(refusals([{ record: 'a', alert: 'A', expr: 'up' }])).toEqual([
      'rules.0.record: group "g", rule 1, "A": only one of \'record\' and \'alert\' must be set',
    ]);
    expect(refusals([alert({ expr: '' })])).toEqual(['rules.0: group "g", rule 1, "Down": field \'expr\' must be set in rule']);
    expect(refusals([{ record: 'a', expr: 'up', for: '5m', keep_firing_for: '1m', annotations: { x: 'y' } }])).toEqual([
      'rules.0.annotations: group "g", rule 1, "a": invalid field \'annotations\' in recording rule',
      'rules.0.for: group "g", rule 1, "a": invalid field \'for\' in recording rule',
      'rules.0.keep_firing_for: group "g", rule 1, "a": invalid field \'keep_firing_for\' in recording rule',
    ]);
    expect(refusals([{ record: 'job.up', expr: 'up' }])).toEqual(['rules.0.record: group "g", rule 1, "job.up": invalid recording rule name: job.up']);
    expect(refusals([{ record: 'a{b="c"}', expr: 'up' }])).toHaveLength(2);
    expect(refusals([alert({ labels: { 'team-name': 'x', __name__: 'y' }, annotations: { 'run-book': 'z' } })])).toEqual([
      'rules.0.labels.team-name: group "g", rule 1, "Down": invalid label name: team-name',
      'rules.0.labels.__name__: group "g", rule 1, "Down": invalid label name: __name__',
      'rules.0.annotations.run-book: group "g", rule 1, "Down": invalid annotation name: run-book',
    ]);
  });

  it('refuses an expression the parser refuses, and a template that does not parse, on an alert only', () => {
    expect(refusals([alert({ expr: 'rate(up)' })])).toEqual([
      'rules.0.expr: group "g", rule 1, "Down": could not parse expression: parse error: expected type matrix in call to function "rate", got vector',
    ]);
    expect(refusals([alert({ expr: 'sort_by_label(up, "job")' })])[0]).toMatch(/function "sort_by_label" is not enabled/);
    expect(refusals([alert({ annotations: { summary: '{{ $value | humanise }}' } })])).toEqual([
      'rules.0.annotations.summary: group "g", rule 1, "Down": annotation "summary": template: __alert_Down:1: function "humanise" not defined',
    ]);
    expect(refusals([alert({ labels: { severity: '{{ $sev }}' } })])[0]).toMatch(/label "severity": template: __alert_Down:1: undefined variable "\$sev"/);
    // A recording rule's labels are not templates.
    expect(refusals([{ record: 'a', expr: 'up', labels: { x: '{{ oops' } }])).toEqual([]);
  });

  it('refuses groups without a name or named twice, and a rule file over half a Secret', () => {
    expect(
      prometheusRuleRefusals({
        groups: [
          { name: '', rules: [] },
          { name: 'a', rules: [] },
          { name: 'a', rules: [] },
        ],
      }).map((r) => r.message),
    ).toEqual(['Groupname must not be empty', 'groupname: "a" is repeated in the same file']);
    expect(prometheusRuleRefusals({ groups: [{ name: 'g', labels: { 'a-b': 'x' }, rules: [] }] })[0]?.message).toBe('invalid label name: a-b');
    const big = Array.from({ length: 4000 }, (_, i) => ({
      record: `r${i}`,
      expr: `sum(rate(some_fairly_long_metric_name_total{job="a-job-name"}[5m])) by (instance) # ${i}`,
    }));
    expect(prometheusRuleRefusals({ groups: [{ name: 'g', rules: big }] })[0]?.message).toMatch(
      /^the length of rendered Prometheus Rule is \d+ bytes which is above the maximum limit of 524288 bytes$/,
    );
  });

  it('parses as the operator itself loads a rule where asked: the Prometheus name scheme, the features it enables', () => {
    const spec = { groups: [{ name: 'g', rules: [{ record: 'job.up', expr: 'sort_by_label(up, "job")' }] }] };
    expect(prometheusRuleRefusals(spec).map((r) => r.message.replace(/^group "g", rule 1, "job.up": /, ''))).toEqual([
      'could not parse expression: parse error: function "sort_by_label" is not enabled',
      'invalid recording rule name: job.up',
    ]);
    expect(prometheusRuleRefusals(spec, { scheme: 'utf8', features: featuresOf(['promql-experimental-functions']) })).toEqual([]);
    expect(featuresOf(['promql-duration-expr', 'exemplar-storage'])).toEqual({
      experimentalFunctions: false,
      durationExpressions: true,
      extendedRangeSelectors: false,
      fillModifiers: false,
    });
  });

  it('reads names as UTF-8 where asked (rulefmt tests parse either way)', () => {
    expect(prometheusRuleRefusals({ groups: [{ name: 'g', rules: [{ record: 'job.up', expr: 'up' }] }] }, { ...WEBHOOK_PARSE, scheme: 'utf8' })).toEqual([]);
  });
});

/** The real repository with the restart alert's range dropped, and its stack's values changed as `values` says. */
async function judged(values: (text: string) => string): Promise<string[]> {
  const copy = copyRepo();
  try {
    copy.write(PLATFORM_RULES, copy.read(PLATFORM_RULES).replace('restarts_total[1h]) > 5', 'restarts_total) > 5'));
    copy.write(STACK_VALUES, values(copy.read(STACK_VALUES)));
    return runChecks(await loadRepo(copy.root), [prometheusOperatorWebhookCheck]).findings.map((f) => f.message);
  } finally {
    copy.dispose();
  }
}

describe('prometheus-operator-webhook', () => {
  it("says the webhook's denial where the stack deploys the operator with its webhook, and the operator's refusal without it", async () => {
    const [denied] = await judged((v) => v);
    expect(denied).toMatch(
      /^PrometheusRule platform: admission webhook "prometheusrulevalidate.monitoring.coreos.com" denied the request: Rules are not valid: group "platform", rule 1, "ContainerRestartingFrequently": could not parse expression: parse error: expected type matrix/,
    );
    const [left] = await judged((v) => v.replace('  admissionWebhooks:\n', '  admissionWebhooks:\n    enabled: false\n'));
    expect(left).toMatch(/^PrometheusRule platform: the prometheus-operator leaves it out of Prometheus: group "platform"/);
    expect(await judged((v) => v.replace(/^prometheusOperator:\n/m, 'prometheusOperator:\n  enabled: false\n'))).toEqual([]);
  });
});

describe("the readers of the webhook's upstream tests, on snippets shaped as upstream writes them", () => {
  it("reads Go's parser tables: rows that parse, errors they carry, numbers' kinds; a wrong expectation disagrees", () => {
    const table = goTemplateCases(
      [
        'var numberTests = []numberTest{',
        '\t{"73", true, true, true, false, 73, 73, 73, 0},',
        '\t{"-1.2+4.2i", false, false, false, true, 0, 0, 0, -1.2 + 4.2i},',
        '\t{text: "+-2"},',
        '}',
        'var parseTests = []parseTest{',
        '\t{"field", "{{.X}}", noError,\n\t\t`{{.X}}`},',
        '\t{"unknown function", "{{foo}}", hasError, ""},',
        '\t{"wrongly expected", "{{printf}}", hasError, ""},',
        '}',
        'var errorTests = []parseTest{',
        '\t{"unclosed1",\n\t\t"line1\\n{{",\n\t\thasError, `unclosed1:2: unclosed action`},',
        '}',
      ].join('\n'),
    );
    expect(table.cases.map((c) => `${c.test}/${c.name}=${c.want}`)).toEqual([
      'parseTests/field=parses',
      'parseTests/unknown function=refused',
      'parseTests/wrongly expected=refused',
      'errorTests/unclosed1=unclosed1:2: unclosed action',
      'numberTests/73=int,uint,float',
      'numberTests/-1.2+4.2i=complex',
      'numberTests/+-2=refused',
    ]);
    const agreement = goTemplateAgreement(table);
    expect([agreement.agree, agreement.total]).toEqual([6, 7]);
    expect(agreement.disagreements[0]?.file).toBe('parseTests/wrongly expected');
  });

  it("reads PromQL's testExpr inputs, joined literals among them, declining bytes no manifest holds", () => {
    const table = promqlCases(
      [
        'var testExpr = []struct {\n\tinput string\n\tfail bool\n}{',
        '\t{\n\t\tinput: "rate(up[5m])",\n\t\texpected: &Call{},\n\t},',
        '\t{\n\t\t// A comment.\n\t\tinput: `rate(` + "up" + `)`,\n\t\tfail: true,\n\t},',
        '\t{\n\t\tinput: "foo{a=\\"\\xff\\"}",\n\t\tfail: true,\n\t},',
        '\t{\n\t\tinput: fmt.Sprintf("%d", 1),\n\t},',
        '}',
      ].join('\n'),
    );
    expect(table.cases.map((c) => `${c.name}=${c.want}`)).toEqual(['rate(up[5m])=parses', 'rate(up)=fails']);
    expect([table.declined.length, table.unread.length]).toEqual([1, 1]);
    const agreement = promqlAgreement(table);
    expect([agreement.agree, agreement.total]).toEqual([2, 3]);
  });

  it("reads rulefmt's tests and the operator's, each file from the checkout", () => {
    const rulefmt = ruleFileCases(
      [
        'func TestParseFileSuccess(t *testing.T) {\n\t_, errs := ParseFile("testdata/test.yaml", false, model.UTF8Validation, testParser, testLogger)\n}',
        'func TestParseFileSuccessWithAliases(t *testing.T) {}',
        'func TestParseFileFailure(t *testing.T) {\n\tfor _, c := range []struct{}{\n\t\t{\n\t\t\tfilename: "noexpr.bad.yaml",\n\t\t\terrMsg:   "field \'expr\' must be set in rule",\n\t\t},\n\t\t{\n\t\t\tfilename: "bad_field.bad.yaml",\n\t\t\terrMsg:   "field annotation not found",\n\t\t},\n\t}',
        'func TestTemplateParsing(t *testing.T) {\n\t\t{\n\t\t\truleString: `\ngroups:\n- name: g\n  rules:\n  - alert: A\n    expr: up\n    annotations:\n      s: "{{ $label.x }}"\n`,\n\t\t\tshouldPass: false,\n\t\t},',
        'func TestUniqueErrorNodes(t *testing.T) {}',
      ].join('\n'),
      (file) =>
        ({ 'test.yaml': 'groups:\n- name: g\n  rules:\n  - record: a:b\n    expr: up\n', 'noexpr.bad.yaml': 'groups:\n- name: g\n  rules:\n  - record: a\n' })[
          file
        ],
    );
    expect(rulefmt.declined.map((d) => d.name)).toEqual(['bad_field.bad.yaml']);
    expect(ruleFileAgreement(rulefmt)).toMatchObject({ agree: 3, total: 3 });
    const review = (spec: object) => JSON.stringify({ request: { object: { spec } } });
    const operator = operatorAdmissionCases(
      [
        'func TestAdmitGoodRule(t *testing.T) {\n\tts := server(api().servePrometheusRulesValidate)\n\tresp := sendAdmissionReview(t, ts, golden.Get(t, "good.golden"))\n\tif !resp.Response.Allowed {\n\t}\n}',
        'func TestAdmitBadRule(t *testing.T) {\n\tts := server(api().servePrometheusRulesValidate)\n\tresp := sendAdmissionReview(t, ts, golden.Get(t, "bad.golden"))\n\tif resp.Response.Allowed {\n\t}\n\t\texp := `unexpected right parenthesis \')\'`\n}',
      ].join('\n'),
      (file) =>
        ({
          'good.golden': review({ groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up' }] }] }),
          'bad.golden': review({ groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'vector(1))' }] }] }),
        })[file],
    );
    expect(operator.cases.map((c) => [c.name, c.allowed, c.causes])).toEqual([
      ['TestAdmitGoodRule', true, []],
      ['TestAdmitBadRule', false, ["unexpected right parenthesis ')'"]],
    ]);
    expect(operatorAdmissionAgreement(operator)).toMatchObject({ agree: 2, total: 2 });
  });
});

describe("the operator's mutating webhook, before the CRD's schema", () => {
  it("turns a label or annotation that is no string into Go's %v of it", () => {
    expect(
      nonStringPatches({
        groups: [{ name: 'g', rules: [{ alert: 'A', labels: { priority: 2, team: 'x', 'a/b': true }, annotations: { ratio: 0.5, big: 1e21 } }] }],
      }),
    ).toEqual([
      { pointer: '/spec/groups/0/rules/0/annotations/ratio', path: ['spec', 'groups', 0, 'rules', 0, 'annotations', 'ratio'], value: '0.5' },
      { pointer: '/spec/groups/0/rules/0/annotations/big', path: ['spec', 'groups', 0, 'rules', 0, 'annotations', 'big'], value: '1e+21' },
      { pointer: '/spec/groups/0/rules/0/labels/priority', path: ['spec', 'groups', 0, 'rules', 0, 'labels', 'priority'], value: '2' },
      { pointer: '/spec/groups/0/rules/0/labels/a~1b', path: ['spec', 'groups', 0, 'rules', 0, 'labels', 'a/b'], value: 'true' },
    ]);
  });

  it("makes the schema's refusal a warning where the stack deploys the webhook, and leaves it an error where it does not", async () => {
    const copy = copyRepo();
    try {
      copy.write(
        PLATFORM_RULES,
        copy
          .read(PLATFORM_RULES)
          .replace('          labels:\n            severity: warning\n', '          labels:\n            severity: warning\n            priority: 2\n'),
      );
      const withWebhook = await runGate(copyGateOptions(copy.root));
      expect(allFindings(withWebhook).filter((f) => f.file === PLATFORM_RULES)).toEqual([]);
      expect(withWebhook.warnings.filter((f) => f.file === PLATFORM_RULES).map((f) => f.message)).toEqual([
        expect.stringMatching(
          /\/labels\/priority: must be string: the operator's mutating webhook writes it as the string "2" before the API server validates it, but only while the operator runs \(failurePolicy Ignore\)/,
        ),
      ]);
      copy.write(STACK_VALUES, copy.read(STACK_VALUES).replace('  admissionWebhooks:\n', '  admissionWebhooks:\n    enabled: false\n'));
      const without = await runGate(copyGateOptions(copy.root));
      expect(
        allFindings(without)
          .filter((f) => f.file === PLATFORM_RULES)
          .map((f) => f.check),
      ).toEqual(['schema']);
    } finally {
      copy.dispose();
    }
  });
});
