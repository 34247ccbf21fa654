/**
 * The sync options Argo CD reads, where it reads them, and how (argo-cd v3.5.1). An Application's
 * spec.syncPolicy.syncOptions are read by exact string (`SyncOptions.HasOption`: controller/sync.go, state.go) or by
 * `key=` prefix for Prune and Delete (`GetOptionValue`); an object's argocd.argoproj.io/sync-options annotation is
 * split at commas, trimmed, and read the same way (gitops-engine `HasAnnotationOption`, `GetAnnotationOptionValue`,
 * in sync_context.go). An option spelt any other way (`ServerSideApply=True`, `Prune=False`) is read nowhere, and
 * the sync silently does what the option was meant to prevent; an option read only in one place does nothing in the
 * other.
 */
import { didYouMean } from '../core/did-you-mean.ts';
import { annotationCsv } from '../argocd/argocd.ts';

export type OptionPlace = 'application' | 'object';

/** Read from an Application's syncOptions, exactly as written. */
const APPLICATION_READS = [
  'ApplyOutOfSyncOnly=true',
  'ClientSideApplyMigration=false',
  'CreateNamespace=true',
  'FailOnSharedResource=true',
  'PruneLast=true',
  'PrunePropagationPolicy=background',
  'PrunePropagationPolicy=foreground',
  'PrunePropagationPolicy=orphan',
  'Replace=true',
  'RespectIgnoreDifferences=true',
  'ServerSideApply=true',
  'SkipDryRunOnMissingResource=true',
  'Validate=false',
];

/** Read from an object's sync-options annotation, exactly as written (after the trim). */
const OBJECT_READS = [
  'Force=true',
  'PruneLast=true',
  'Replace=true',
  'ServerSideApply=false',
  'ServerSideApply=true',
  'SkipDryRunOnMissingResource=true',
  'Validate=false',
];

/** Read by `key=` prefix in both places; `false` and `confirm` hold a prune or a delete, `true` is the default. */
const VALUED: Readonly<Record<string, readonly string[]>> = { Prune: ['false', 'confirm', 'true'], Delete: ['false', 'confirm', 'true'] };

/** Spelt-out defaults: read nowhere, and harmless, since the default is what they say. */
const DEFAULTS = [
  'ApplyOutOfSyncOnly=false',
  'ClientSideApplyMigration=true',
  'CreateNamespace=false',
  'FailOnSharedResource=false',
  'Force=false',
  'PruneLast=false',
  'Replace=false',
  'RespectIgnoreDifferences=false',
  'ServerSideApply=false',
  'SkipDryRunOnMissingResource=false',
  'Validate=true',
];

const READS: Readonly<Record<OptionPlace, readonly string[]>> = { application: APPLICATION_READS, object: OBJECT_READS };
const ELSEWHERE: Readonly<Record<OptionPlace, string>> = {
  application: "only on an object's argocd.argoproj.io/sync-options (an automated sync takes no Force from an Application)",
  object: "only in an Application's spec.syncPolicy.syncOptions",
};

/** Why Argo CD does not read `option` where it is written, or undefined when it reads it (or it says the default). */
export function syncOptionProblem(option: string, place: OptionPlace): string | undefined {
  if (place === 'application' && option !== option.trim()) return `"${option}" carries spaces, and an Application's options are read untrimmed`;
  const value = option.trim();
  const [key, rest] = [value.split('=', 1)[0]!, value.slice(value.indexOf('=') + 1)];
  if (VALUED[key] && value.includes('=')) return VALUED[key].includes(rest) ? undefined : `${key}=${rest}: Argo CD reads only ${key}=false and ${key}=confirm`;
  if (READS[place].includes(value) || DEFAULTS.includes(value)) return undefined;
  const other: OptionPlace = place === 'application' ? 'object' : 'application';
  if (READS[other].includes(value)) return `${value} is read ${ELSEWHERE[place]}`;
  const known = [...new Set([...APPLICATION_READS, ...OBJECT_READS, ...DEFAULTS, 'Prune=false', 'Prune=confirm', 'Delete=false', 'Delete=confirm'])];
  return `Argo CD reads no sync option ${value}${didYouMean(value, known)}`;
}

export const COMPARE_OPTIONS_ANNOTATION = 'argocd.argoproj.io/compare-options';

/** Compare options (argocd.argoproj.io/compare-options, controller/state.go): on any object, and on an Application its own. */
const COMPARE_ANYWHERE = ['IgnoreExtraneous'];
const COMPARE_ON_APPLICATIONS = ['ServerSideDiff=true', 'ServerSideDiff=false', 'IncludeMutationWebhook=true', 'IncludeMutationWebhook=false'];

/** Why Argo CD does not read a compare option where it is written, or undefined when it reads it (or it says the default). */
export function compareOptionProblem(option: string, onApplication: boolean): string | undefined {
  const value = option.trim();
  if (COMPARE_ANYWHERE.includes(value) || (onApplication && COMPARE_ON_APPLICATIONS.includes(value))) return undefined;
  if (COMPARE_ON_APPLICATIONS.includes(value)) return `${value} is read only on an Application`;
  return `Argo CD reads no compare option ${value}${didYouMean(value, [...COMPARE_ANYWHERE, ...COMPARE_ON_APPLICATIONS])}`;
}

/**
 * `IgnoreExtraneous` in an object's compare options (HasAnnotationOption, trimmed): once the repository no longer
 * declares it, its needing a prune does not make its Application OutOfSync (controller/state.go).
 */
export const ignoresExtraneous = (object: unknown): boolean => annotationCsv(object, COMPARE_OPTIONS_ANNOTATION).includes('IgnoreExtraneous');
