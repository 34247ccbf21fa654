/**
 * A Job's spec as pkg/apis/batch/validation `validateJobSpec` and `ValidateJob` judge it, through the kind validation
 * every rendered Job and CronJob passes: Indexed completion and its limits, the pod failure and success policies,
 * the replacement policy, managedBy, each behind the feature gate of the cluster's minor.
 */
import { describe, expect, it } from 'vitest';
import { indexesProblem } from '../../admission/validation/job-spec.ts';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1' }] } };
const job = (spec: object, name = 'migrate') => ({ metadata: { name }, spec: { template, ...spec } });
const said = (o: object, minor = 35, kind = 'Job') => validateBuiltin(kind, o, minor).map((p) => `${p.path.join('.')}: ${p.message}`);

describe('Indexed completion', () => {
  it('admits an Indexed Job with completions and a per-index limit, and refuses the per-index fields without it', () => {
    expect(said(job({ completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1, maxFailedIndexes: 1 }))).toEqual([]);
    expect(said(job({ backoffLimitPerIndex: 1, maxFailedIndexes: 1 }))).toEqual([
      'spec.backoffLimitPerIndex: backoffLimitPerIndex: requires indexed completion mode',
      'spec.maxFailedIndexes: maxFailedIndexes: requires indexed completion mode',
    ]);
  });
  it('refuses an Indexed Job without completions, more failed indexes than completions, and maxFailedIndexes alone', () => {
    expect(said(job({ completionMode: 'Indexed' }))).toEqual(['spec.completions: completions: Required value: when completion mode is Indexed']);
    expect(said(job({ completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: 1, maxFailedIndexes: 3 }))).toEqual([
      'spec.maxFailedIndexes: maxFailedIndexes: must be less than or equal to completions',
    ]);
    expect(said(job({ completionMode: 'Indexed', completions: 2, maxFailedIndexes: 1 }))).toEqual([
      'spec.backoffLimitPerIndex: backoffLimitPerIndex: Required value: when maxFailedIndexes is specified',
    ]);
  });
  it("refuses an Indexed Job whose last pod's hostname is no DNS label, and not a CronJob's template", () => {
    const name = 'a'.repeat(60);
    expect(said(job({ completionMode: 'Indexed', completions: 1000 }, name))).toEqual([
      `metadata.name: will not able to create pod with invalid DNS label: ${name}-999`,
    ]);
    expect(said(job({ completionMode: 'Indexed', completions: 10 }, name))).toEqual([]);
  });
  it('before 1.29 drops the per-index fields (JobBackoffLimitPerIndex off), so nothing of them is refused', () => {
    expect(said(job({ backoffLimitPerIndex: 1, maxFailedIndexes: 1 }), 28)).toEqual([]);
  });
});

describe('a pod failure policy', () => {
  const policy = (rules: object[], restartPolicy = 'Never') => ({ template: { spec: { ...template.spec, restartPolicy } }, podFailurePolicy: { rules } });
  it('admits exit codes in order and pod conditions, each rule with one of them', () => {
    expect(
      said(
        job(
          policy([
            { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [1, 42] } },
            { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
          ]),
        ),
      ),
    ).toEqual([]);
  });
  it('refuses a zero under In, a value twice, values out of order, an unknown container, both or neither kind of match', () => {
    expect(
      said(
        job(
          policy([
            { action: 'FailJob', onExitCodes: { containerName: 'other', operator: 'In', values: [0, 5, 5, 3] } },
            { action: 'Count', onExitCodes: { operator: 'NotIn', values: [] }, onPodConditions: [{ type: 'bad type!', status: 'Maybe' }] },
            { action: 'FailIndex' },
          ]),
        ),
      ),
    ).toEqual([
      'spec.podFailurePolicy.rules.0.onExitCodes.containerName: containerName "other": must be one of the container or initContainer names in the pod template',
      'spec.podFailurePolicy.rules.0.onExitCodes.values.0: values: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules.0.onExitCodes.values.2: values: Duplicate value: 5',
      'spec.podFailurePolicy.rules.0.onExitCodes.values: values: must be ordered',
      'spec.podFailurePolicy.rules.1.onExitCodes.values: values: at least one value is required',
      expect.stringMatching(/^spec\.podFailurePolicy\.rules\.1\.onPodConditions\.0\.type: onPodConditions type "bad type!": /),
      'spec.podFailurePolicy.rules.1.onPodConditions.0.status: status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'spec.podFailurePolicy.rules.1: specifying both OnExitCodes and OnPodConditions is not supported',
      'spec.podFailurePolicy.rules.2.action: action FailIndex: requires the backoffLimitPerIndex to be set',
      'spec.podFailurePolicy.rules.2: specifying one of OnExitCodes and OnPodConditions is required',
    ]);
  });
  it('refuses OnFailure beside it, and a replacement policy other than Failed', () => {
    const rule = { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] };
    expect(said(job({ ...policy([rule], 'OnFailure'), podReplacementPolicy: 'TerminatingOrFailed' }))).toEqual([
      'spec.template.spec.restartPolicy: only "Never" is supported when podFailurePolicy is specified',
      'spec.podReplacementPolicy: podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
    ]);
  });
  it("judges a CronJob's job template the same way", () => {
    const cron = {
      metadata: { name: 'nightly' },
      spec: { schedule: '0 3 * * *', jobTemplate: { spec: { ...policy([{ action: 'FailIndex', onPodConditions: [{ type: 'X' }] }]) } } },
    };
    expect(said(cron, 35, 'CronJob')).toEqual([
      'spec.jobTemplate.spec.podFailurePolicy.rules.0.action: action FailIndex: requires the backoffLimitPerIndex to be set',
    ]);
  });
});

describe('a success policy, and managedBy', () => {
  it('admits indexes within completions and a count within them; refuses it on a NonIndexed Job', () => {
    const indexed = { completionMode: 'Indexed', completions: 10 };
    expect(said(job({ ...indexed, successPolicy: { rules: [{ succeededIndexes: '0,2-4', succeededCount: 3 }] } }))).toEqual([]);
    expect(said(job({ successPolicy: { rules: [{ succeededCount: 1 }] } }))).toEqual(['spec.successPolicy: successPolicy: requires indexed completion mode']);
    expect(said(job({ ...indexed, successPolicy: { rules: [{ succeededIndexes: '3-1', succeededCount: 11 }, {}] } }))).toEqual([
      'spec.successPolicy.rules.0.succeededIndexes: error parsing succeededIndexes: non-increasing order, previous: 3, current: 1',
      'spec.successPolicy.rules.0.succeededCount: succeededCount 11: must be less than or equal to 10 (the number of specified completions)',
      'spec.successPolicy.rules.0.succeededCount: succeededCount 11: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)',
      'spec.successPolicy.rules.1: at least one of succeededCount or succeededIndexes must be specified',
    ]);
  });
  it('reads indexes as validateIndexesFormat does', () => {
    expect(indexesProblem('0,2-4,9', 10)).toEqual({ total: 5 });
    expect(indexesProblem('1,1', 10)).toEqual({ error: 'non-increasing order, previous: 1, current: 1' });
    expect(indexesProblem('10', 10)).toEqual({ error: 'too large index: "10"' });
    expect(indexesProblem('1-2-3', 10)).toEqual({
      error: `the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by '-'`,
    });
    expect(indexesProblem('x', 10)).toEqual({ error: 'cannot convert string to integer for index: "x"' });
  });
  it('refuses a managedBy that is no domain-prefixed path, from 1.32', () => {
    expect(said(job({ managedBy: 'kueue.x-k8s.io/multikueue' }))).toEqual([]);
    expect(said(job({ managedBy: 'kueue' }))).toEqual(['spec.managedBy: managedBy "kueue": must be a domain-prefixed path (such as "acme.io/foo")']);
    expect(said(job({ managedBy: 'kueue' }), 31)).toEqual([]);
  });
});
