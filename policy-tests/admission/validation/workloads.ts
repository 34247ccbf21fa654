/**
 * The workload kinds' validation (k8s.io/kubernetes/pkg/apis/{apps,batch}/validation): a selector that matches its
 * template, the pod template its controller allows, and the counts that may not be negative.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { list } from '../../model/core/dig.ts';
import { validateLabels, type Invalid } from './metadata.ts';
import { notSupported } from './syntax.ts';
import { labelSelectorProblems } from './label-selector.ts';
import { indexedHostnameProblems, jobSpecProblems } from './job-spec.ts';
import { daemonSetRolloutProblems, deploymentStrategyProblems, statefulSetRolloutProblems, templateDeadlineProblems } from './rollouts.ts';
import { validatePodTemplate } from './pod.ts';
import { claimSpecProblems } from './claim-spec.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import type { ValidationFeatures } from './feature-gates.ts';

type Obj = Record<string, any>;
/** A kind's validation of one object, in a cluster with these feature gates on. */
export type KindRule = (o: Obj, features: ValidationFeatures) => Invalid[];

function selectorProblems(o: Obj, templateAt: PathSegment[], fn: string): Invalid[] {
  const selector = o.spec?.selector;
  const empty = !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && list(selector.matchExpressions).length === 0);
  if (empty) return [{ path: ['spec', 'selector'], fn, message: 'selector: empty selector is invalid for a workload (it would match every pod)' }];
  const problems = labelSelectorProblems(selector, ['spec', 'selector'], 'selector');
  // A selector LabelSelectorAsSelector cannot build (a bad key, operator or value) is not matched, as the API server skips it.
  return problems.length > 0 ? problems : templateMatchProblems(selector, o.spec?.template, templateAt, fn);
}

/** Whether a selector that can be built matches the template's labels. */
function templateMatchProblems(selector: Obj, template: Obj | undefined, templateAt: PathSegment[], fn: string): Invalid[] {
  if (!template || selectorMatches(selector, template.metadata?.labels)) return [];
  return [{ path: [...templateAt, 'metadata', 'labels'], fn, message: '`selector` does not match template `labels`' }];
}

/**
 * The labels a generated Job selector may select (validateGeneratedSelector's expected labels): the Job's name
 * under both job-name keys, and a UID nobody can know before the create, under both controller-uid keys.
 */
const generatedJobLabels = (name: unknown): Obj => ({
  'batch.kubernetes.io/job-name': String(name),
  'job-name': String(name),
  'batch.kubernetes.io/controller-uid': '\0uid',
  'controller-uid': '\0uid',
});

/**
 * A Job's selector. Unless `manualSelector` is true, the API server generates it: the job strategy adds
 * `controller-uid` to any selector given, and validateGeneratedSelector refuses one that selects other labels than
 * the generated ones. With `manualSelector: true` the selector is required and must match the template.
 */
function jobSelectorProblems(spec: Obj, at: PathSegment[], jobName: unknown): Invalid[] {
  const here = [...at, 'selector'];
  if (!spec.selector) return spec.manualSelector === true ? [{ path: here, fn: 'ValidateJobSpec', message: 'Required value (`manualSelector` is true)' }] : [];
  const out = labelSelectorProblems(spec.selector, here, 'selector');
  if (out.length > 0) return out;
  if (spec.manualSelector === true) return templateMatchProblems(spec.selector, spec.template, [...at, 'template'], 'ValidateJobSpec');
  return selectorMatches(spec.selector, generatedJobLabels(jobName))
    ? []
    : [{ path: here, fn: 'validateGeneratedSelector', message: '`selector` not auto-generated (give `manualSelector: true` to choose a selector)' }];
}

/** A CronJob's job template carries neither a selector nor `manualSelector: true` (ValidateJobTemplateSpec). */
function jobTemplateSelectorProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  if (spec.selector) out.push({ path: [...at, 'selector'], fn: 'ValidateJobTemplateSpec', message: '`selector` will be auto-generated' });
  if (spec.manualSelector === true) out.push({ path: [...at, 'manualSelector'], fn: 'ValidateJobTemplateSpec', message: notSupported(true, ['nil', 'false']) });
  return out;
}

function nonNegative(o: Obj, fields: readonly string[], fn: string): Invalid[] {
  return fields.flatMap((f) => {
    const v = o.spec?.[f];
    return typeof v === 'number' && v < 0 ? [{ path: ['spec', f], fn, message: `${f} must be greater than or equal to 0` }] : [];
  });
}

const ALWAYS = ['Always'];

/** A StatefulSet's claim templates are volumes its containers may mount. */
const claimTemplateNames = (o: Obj): string[] => (list(o.spec?.volumeClaimTemplates) as Obj[]).map((t) => String(t?.metadata?.name));

/**
 * Each claim template's spec as a claim's (ValidatePersistentVolumeClaimSpec): refused with the StatefulSet from 1.34,
 * and before that taken, and refused as the controller makes the claim, so that no pod of it starts.
 */
function claimTemplateProblems(o: Obj, features: ValidationFeatures): Invalid[] {
  const since = features.has('StatefulSetClaimTemplateValidation');
  return (list(o.spec?.volumeClaimTemplates) as Obj[]).flatMap((template, i) =>
    claimSpecProblems(template?.spec, ['spec', 'volumeClaimTemplates', i, 'spec']).map((p) => ({
      ...p,
      fn: since ? `ValidateVolumeClaimTemplates (${p.fn})` : `${p.fn}, as the StatefulSet controller creates the claim`,
      message: since
        ? p.message
        : `${p.message}: the API server takes the StatefulSet before 1.34, and refuses the claim its controller makes from it, so no pod starts`,
    })),
  );
}

const workload =
  (fn: string, extra: KindRule = () => []): KindRule =>
  (o, features) => [
    ...selectorProblems(o, ['spec', 'template'], fn),
    ...validatePodTemplate(o.spec?.template, ['spec', 'template'], ALWAYS, { features, extraVolumes: claimTemplateNames(o) }),
    ...nonNegative(o, ['replicas', 'minReadySeconds', 'revisionHistoryLimit'], fn),
    ...extra(o, features),
  ];

/** A Job's spec, or a CronJob's job template's (`owner` says which: the Job's name, or the CronJob). */
function job(spec: Obj | undefined, at: PathSegment[], features: ValidationFeatures, owner: { jobName: unknown } | 'CronJob'): Invalid[] {
  if (!spec) return [];
  const out = [
    ...validatePodTemplate(spec.template, [...at, 'template'], ['OnFailure', 'Never'], { features }),
    ...(owner === 'CronJob' ? jobTemplateSelectorProblems(spec, at) : jobSelectorProblems(spec, at, owner.jobName)),
  ];
  if (spec.template && spec.template.spec?.restartPolicy === undefined)
    out.push({
      path: [...at, 'template', 'spec'],
      fn: 'ValidateJobSpec',
      message: 'template.spec.restartPolicy is required for a Job: "OnFailure" or "Never" (the default, Always, is refused)',
    });
  out.push(...jobSpecProblems(spec, at, features));
  if (owner !== 'CronJob') out.push(...indexedHostnameProblems(owner.jobName, spec));
  return out;
}

export const WORKLOAD_RULES: Record<string, KindRule> = {
  Deployment: workload('ValidateDeploymentSpec', (o) => [...deploymentStrategyProblems(o), ...templateDeadlineProblems(o, 'Deployment')]),
  ReplicaSet: workload('ValidateReplicaSetSpec', (o) => templateDeadlineProblems(o, 'ReplicaSet')),
  StatefulSet: workload('ValidateStatefulSetSpec', (o, features) => [
    ...statefulSetRolloutProblems(o, features),
    ...templateDeadlineProblems(o, 'StatefulSet'),
    ...claimTemplateProblems(o, features),
  ]),
  DaemonSet: (o, features) => [
    ...selectorProblems(o, ['spec', 'template'], 'ValidateDaemonSetSpec'),
    ...validatePodTemplate(o.spec?.template, ['spec', 'template'], ALWAYS, { features }),
    ...nonNegative(o, ['minReadySeconds', 'revisionHistoryLimit'], 'ValidateDaemonSetSpec'),
    ...daemonSetRolloutProblems(o),
    ...templateDeadlineProblems(o, 'DaemonSet'),
  ],
  Job: (o, features) => job(o.spec, ['spec'], features, { jobName: o.metadata?.name }),
  CronJob: (o, features) => [
    ...job(o.spec?.jobTemplate?.spec, ['spec', 'jobTemplate', 'spec'], features, 'CronJob'),
    ...validateLabels(o.spec?.jobTemplate?.metadata?.labels, ['spec', 'jobTemplate', 'metadata', 'labels']),
    ...nonNegative(o, ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit', 'startingDeadlineSeconds'], 'ValidateCronJobSpec'),
  ],
};
