/**
 * Label selectors as the API server judges them on create (apimachinery `ValidateLabelSelector`, and the kinds that
 * hand their selectors to it: apps and batch validation, NetworkPolicy, PodDisruptionBudget, claims, webhooks,
 * aggregated ClusterRoles), through the kind validation every rendered object passes.
 */
import { describe, expect, it } from 'vitest';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const said = (kind: string, o: object) => validateBuiltin(kind, o, 35).map((p) => `${p.path.join('.')}: ${p.message}`);
const container = { containers: [{ name: 'job', image: 'job:1' }], restartPolicy: 'Never' };
const template = (labels: object) => ({ metadata: { labels }, spec: container });

describe("a workload's selector", () => {
  const deployment = (selector: object, labels: object = { app: 'web', tier: 'front' }) => ({
    metadata: { name: 'web' },
    spec: { selector, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
  });
  it('admits matchExpressions that match the template', () => {
    expect(
      said(
        'Deployment',
        deployment({
          matchExpressions: [
            { key: 'app', operator: 'In', values: ['web'] },
            { key: 'tier', operator: 'Exists' },
          ],
        }),
      ),
    ).toEqual([]);
  });
  it('refuses a requirement with a bad operator, missing values or a bad key, and does not also call it a mismatch', () => {
    expect(
      said(
        'Deployment',
        deployment({
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'Equals', values: ['front'] },
            { key: 'app', operator: 'In' },
            { key: 'bad key', operator: 'Exists' },
          ],
        }),
      ),
    ).toEqual([
      'spec.selector.matchExpressions.0.operator: selector: operator "Equals": not a valid selector operator',
      "spec.selector.matchExpressions.1.values: selector: values must be specified when `operator` is 'In' or 'NotIn'",
      expect.stringMatching(/^spec\.selector\.matchExpressions\.2\.key: selector key "bad key": /),
    ]);
  });
  it('still refuses a valid selector the template does not match', () => {
    expect(said('Deployment', deployment({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }))).toEqual([
      'spec.template.metadata.labels: `selector` does not match template `labels`',
    ]);
  });
});

describe("a Job's selector", () => {
  const job = (spec: object) => ({ metadata: { name: 'migrate' }, spec: { template: template({ app: 'migrate' }), ...spec } });
  it('admits none, a manual one that matches the template, and a given one that selects only the generated labels', () => {
    expect(said('Job', job({}))).toEqual([]);
    expect(said('Job', job({ manualSelector: true, selector: { matchLabels: { app: 'migrate' } } }))).toEqual([]);
    expect(said('Job', job({ selector: { matchLabels: { 'batch.kubernetes.io/job-name': 'migrate' } } }))).toEqual([]);
  });
  it('refuses a chosen selector without manualSelector, as the generated selector would not be its own', () => {
    expect(said('Job', job({ selector: { matchLabels: { app: 'migrate' } } }))).toEqual([
      'spec.selector: `selector` not auto-generated (give `manualSelector: true` to choose a selector)',
    ]);
  });
  it('refuses manualSelector without a selector, and a manual selector the template does not match', () => {
    expect(said('Job', job({ manualSelector: true }))).toEqual(['spec.selector: Required value (`manualSelector` is true)']);
    expect(said('Job', job({ manualSelector: true, selector: { matchLabels: { app: 'other' } } }))).toEqual([
      'spec.template.metadata.labels: `selector` does not match template `labels`',
    ]);
  });
  it("refuses a selector or manualSelector in a CronJob's job template", () => {
    const cron = { metadata: { name: 'nightly' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: template({ app: 'n' }) } } } };
    expect(said('CronJob', cron)).toEqual([]);
    cron.spec.jobTemplate.spec = { ...cron.spec.jobTemplate.spec, selector: { matchLabels: { app: 'n' } }, manualSelector: true } as never;
    expect(said('CronJob', cron)).toEqual([
      'spec.jobTemplate.spec.selector: `selector` will be auto-generated',
      'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
    ]);
  });
});

describe('the selectors of other kinds', () => {
  const badExpression = { matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }] };
  const valuesRefused = "values may not be specified when `operator` is 'Exists' or 'DoesNotExist'";
  it("refuses a bad requirement in a NetworkPolicy's pod selector and its peers, and an empty peer", () => {
    const policy = {
      metadata: { name: 'np' },
      spec: {
        podSelector: badExpression,
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'bad key': 'x' } } }, {}] }],
        egress: [{ to: [{ podSelector: badExpression }] }],
      },
    };
    expect(said('NetworkPolicy', policy)).toEqual([
      'spec.ingress.0.from.1: must specify a peer',
      `spec.podSelector.matchExpressions.0.values: podSelector: ${valuesRefused}`,
      expect.stringMatching(/^spec\.ingress\.0\.from\.0\.namespaceSelector\.matchLabels\.bad key: label key "bad key": /),
      `spec.egress.0.to.0.podSelector.matchExpressions.0.values: podSelector: ${valuesRefused}`,
    ]);
  });
  it("refuses a bad requirement in a PodDisruptionBudget's, a claim's and a webhook's selectors, and a webhook timeout over 30 s", () => {
    expect(said('PodDisruptionBudget', { metadata: { name: 'pdb' }, spec: { maxUnavailable: 1, selector: badExpression } })).toEqual([
      `spec.selector.matchExpressions.0.values: selector: ${valuesRefused}`,
    ]);
    const claim = {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, selector: badExpression },
    };
    expect(said('PersistentVolumeClaim', claim)).toEqual([`spec.selector.matchExpressions.0.values: selector: ${valuesRefused}`]);
    const hook = {
      name: 'check.example.com',
      admissionReviewVersions: ['v1'],
      clientConfig: { url: 'https://check.example.com' },
      timeoutSeconds: 31,
      objectSelector: badExpression,
    };
    expect(said('ValidatingWebhookConfiguration', { metadata: { name: 'check' }, webhooks: [hook] })).toEqual([
      'webhooks.0.timeoutSeconds: the timeout value must be between 1 and 30 seconds',
      `webhooks.0.objectSelector.matchExpressions.0.values: objectSelector: ${valuesRefused}`,
    ]);
  });
  it('refuses an aggregated ClusterRole with no selector or a bad one, and admits a good one', () => {
    const role = (aggregationRule: object) => ({ metadata: { name: 'view-all' }, rules: [], aggregationRule });
    expect(said('ClusterRole', role({ clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-view': 'true' } }] }))).toEqual([]);
    expect(said('ClusterRole', role({}))).toEqual([
      'aggregationRule.clusterRoleSelectors: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
    expect(said('ClusterRole', role({ clusterRoleSelectors: [badExpression] }))).toEqual([
      `aggregationRule.clusterRoleSelectors.0.matchExpressions.0.values: clusterRoleSelectors: ${valuesRefused}`,
    ]);
  });
});
