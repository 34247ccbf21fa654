/**
 * The feature gates the API server's built-in validation reads, each with its default from the minor it changed in,
 * as Kubernetes declares them (pkg/features/kube_features.go, `defaultVersionedKubernetesFeatureGates`, read at
 * v1.35). A cluster runs with its minor's defaults, so a rule behind a gate follows `--kubernetes-version`: the gate
 * judges a 1.31 cluster by 1.31's rules, not today's.
 */

/** One step of a gate's life: from this minor on, its default is `enabled` (until the next step). */
interface Step {
  since: number;
  enabled: boolean;
}

const GATES = {
  /**
   * KEP-4369: env names and envFrom prefixes of any printable ASCII but '=' (IsRelaxedEnvVarName); off by default,
   * they are C identifiers that may hold '-' and '.' (IsEnvVarName). Alpha in 1.30, beta and on in 1.32, GA in 1.34.
   */
  RelaxedEnvironmentVariableValidation: [
    { since: 30, enabled: false },
    { since: 32, enabled: true },
    { since: 34, enabled: true },
  ],
  /**
   * KEP-4427: a DNS search path may hold '_' where it may hold '-'; off by default, each search is a DNS-1123
   * subdomain (a trailing '.' allowed). Alpha in 1.32, beta and on in 1.33, GA in 1.34.
   */
  RelaxedDNSSearchValidation: [
    { since: 32, enabled: false },
    { since: 33, enabled: true },
    { since: 34, enabled: true },
  ],
  /**
   * KEP-3633: a pod affinity term's matchLabelKeys and mismatchLabelKeys; off, the API server drops both fields
   * (neither validated nor merged into the selector). Alpha in 1.29, beta and on in 1.31, GA in 1.33.
   */
  MatchLabelKeysInPodAffinity: [
    { since: 29, enabled: false },
    { since: 31, enabled: true },
    { since: 33, enabled: true },
  ],
  /**
   * KEP-3243: a topology spread constraint's matchLabelKeys; off, the API server drops them. Alpha in 1.25, beta and
   * on in 1.27 (still beta in 1.35).
   */
  MatchLabelKeysInPodTopologySpread: [
    { since: 25, enabled: false },
    { since: 27, enabled: true },
  ],
  /**
   * KEP-3243's second step: the API server merges each matchLabelKeys key the pod holds into the constraint's selector
   * as it creates the pod, and validates the keys as a pod affinity term's (validateMatchLabelKeysAndMismatchLabelKeys);
   * off, validateMatchLabelKeysInTopologySpread refuses a key the selector names. Beta and on in 1.34.
   */
  MatchLabelKeysInPodTopologySpreadSelectorMerge: [{ since: 34, enabled: true }],
  /** KEP-3960: a lifecycle hook's sleep action; off, the API server drops it. Alpha in 1.29, beta and on in 1.30, GA in 1.34. */
  PodLifecycleSleepAction: [
    { since: 29, enabled: false },
    { since: 30, enabled: true },
  ],
  /** KEP-4818: a sleep action of zero seconds (AllowPodLifecycleSleepActionZeroValue). Alpha in 1.32, beta and on in 1.33, GA in 1.34. */
  PodLifecycleSleepActionAllowZero: [
    { since: 32, enabled: false },
    { since: 33, enabled: true },
  ],
  /** A Job's podFailurePolicy: alpha in 1.25, beta and on in 1.26, GA in 1.31; dropped when off. */
  JobPodFailurePolicy: [
    { since: 25, enabled: false },
    { since: 26, enabled: true },
  ],
  /** A Job's backoffLimitPerIndex and maxFailedIndexes: alpha in 1.28, beta and on in 1.29, GA in 1.33. */
  JobBackoffLimitPerIndex: [
    { since: 28, enabled: false },
    { since: 29, enabled: true },
  ],
  /** A Job's podReplacementPolicy: alpha in 1.28, beta and on in 1.29, GA in 1.34. */
  JobPodReplacementPolicy: [
    { since: 28, enabled: false },
    { since: 29, enabled: true },
  ],
  /** A Job's successPolicy: alpha in 1.30, beta and on in 1.31, GA in 1.33. */
  JobSuccessPolicy: [
    { since: 30, enabled: false },
    { since: 31, enabled: true },
  ],
  /** A Job's managedBy: alpha in 1.30, beta and on in 1.32, GA in 1.35. */
  JobManagedBy: [
    { since: 30, enabled: false },
    { since: 32, enabled: true },
  ],
  /** A StatefulSet's rollingUpdate.maxUnavailable: alpha in 1.24, beta and on in 1.35; dropped when off. */
  MaxUnavailableStatefulSet: [
    { since: 24, enabled: false },
    { since: 35, enabled: true },
  ],
  /**
   * No gate of Kubernetes': a StatefulSet's claim templates validated as claims (ValidateVolumeClaimTemplates,
   * kubernetes#132212), added in 1.34 without a gate; kept here so that the cluster's minor decides, as for the others.
   * Before, the API server took any template, and the StatefulSet controller's claim made from it was refused.
   */
  StatefulSetClaimTemplateValidation: [{ since: 34, enabled: true }],
} as const satisfies Record<string, readonly Step[]>;

export type ValidationGate = keyof typeof GATES;

/** The gates on in a cluster of one minor, with its defaults. */
export type ValidationFeatures = ReadonlySet<ValidationGate>;

/**
 * The gates on at `minor`: each gate's last step at or below it. Before its first step a gate did not exist, so it is
 * off. A minor the facts do not give (NaN) is judged at the newest defaults, as the schema layer judges it.
 */
export function featuresAt(minor: number): ValidationFeatures {
  const at = Number.isFinite(minor) ? minor : Number.POSITIVE_INFINITY;
  const on = new Set<ValidationGate>();
  for (const [gate, steps] of Object.entries(GATES) as [ValidationGate, readonly Step[]][]) if (steps.findLast((s) => s.since <= at)?.enabled) on.add(gate);
  return on;
}

/** The newest defaults: what validation judges when no minor is given. */
export const NEWEST_FEATURES: ValidationFeatures = featuresAt(Number.NaN);
