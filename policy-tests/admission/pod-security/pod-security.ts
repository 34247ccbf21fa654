/**
 * Pod Security admission: the Pod Security Standards (baseline and restricted) as the API server's PodSecurity plugin
 * evaluates them, at each policy version up to "latest" of Kubernetes 1.36, as each control's versions read
 * (k8s.io/pod-security-admission, policy/check_*.go). Each control is a pure function of the pod's metadata, its spec
 * and the policy version; a violation names the control and the field.
 */
import { baseline } from './baseline.ts';
import { restricted } from './restricted.ts';
import { type Control, type Violation, type Obj, LATEST_POLICY_MINOR } from './controls.ts';
import { policyVersionMinor } from '../../model/core/text.ts';

export type { Violation };
export { LATEST_POLICY_MINOR };

export type Level = 'privileged' | 'baseline' | 'restricted';
export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** Restricted controls that replace a baseline one (OverrideCheckIDs), so one cause is reported once: baseline → restricted. */
export const OVERRIDDEN_AT_RESTRICTED: ReadonlyMap<string, string> = new Map([
  ['hostPathVolumes', 'restrictedVolumes'],
  ['capabilities_baseline', 'capabilities_restricted'],
  ['seccompProfile_baseline', 'seccompProfile_restricted'],
  ['procMount', 'procMount_restricted'],
]);

/** Every control id, by the lowest level that enforces it. */
export const CONTROLS: Readonly<Record<Exclude<Level, 'privileged'>, readonly string[]>> = {
  baseline: Object.keys(baseline),
  restricted: Object.keys(restricted),
};

/** Controls that exist only from a policy version on (their first MinimumVersion): before it, they neither judge nor override. */
const SINCE: Readonly<Record<string, number>> = {
  allowPrivilegeEscalation: 8,
  seccompProfile_restricted: 19,
  capabilities_restricted: 22,
  runAsUser: 23,
  hostProbesAndHostLifecycle: 34,
  procMount_restricted: 35,
};
/** Whether a control is in force at a policy version. */
export const controlExists = (id: string, minor: number) => (SINCE[id] ?? 0) <= minor;

/** The controls of a level in force at a policy version, worked out once per level and version. */
const controlsAt = new Map<string, readonly Control[]>();
function controlsOf(level: Exclude<Level, 'privileged'>, minor: number): readonly Control[] {
  const key = `${level}@${minor}`;
  const known = controlsAt.get(key);
  if (known) return known;
  const overridden = new Set([...OVERRIDDEN_AT_RESTRICTED].filter(([, by]) => controlExists(by, minor)).map(([id]) => id));
  const inForce = (entries: [string, Control][], skip: ReadonlySet<string>) =>
    entries.filter(([id]) => controlExists(id, minor) && !skip.has(id)).map(([, f]) => f);
  const controls =
    level === 'baseline'
      ? inForce(Object.entries(baseline), new Set())
      : [...inForce(Object.entries(baseline), overridden), ...inForce(Object.entries(restricted), new Set())];
  controlsAt.set(key, controls);
  return controls;
}

/** The violations of `level`, at policy version 1.`minor` (the newest by default), by a pod with this metadata and spec. */
export function podSecurityViolations(level: Level, meta: Obj, spec: Obj, minor: number = LATEST_POLICY_MINOR): Violation[] {
  if (level === 'privileged') return [];
  return controlsOf(level, minor).flatMap((control) => control(meta ?? {}, spec ?? {}, minor));
}

/** A namespace's Pod Security labels, falling back per mode to the cluster's defaults. */
export interface PodSecurityConfig {
  enforce: Level;
  audit: Level;
  warn: Level;
  /** The policy version a mode is pinned to (`<mode>-version: v1.N`, its minor); a mode not here is judged at "latest". */
  versions?: Partial<Record<(typeof MODES)[number], number>>;
}

export const MODES = ['enforce', 'audit', 'warn'] as const;
export const LABEL_PREFIX = 'pod-security.kubernetes.io/';

export function isLevel(value: unknown): value is Level {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

/** Whether a `<mode>-version` label is one Pod Security reads (ParseVersion): "latest" or "v1.N". */
export const isPolicyVersion = (value: unknown): boolean => value === 'latest' || policyVersionMinor(value) !== undefined;

/** How strict a level is: privileged 0, baseline 1, restricted 2 (CompareLevels). */
export const levelRank = (level: Level): number => LEVELS.indexOf(level);

/**
 * The levels in force in a namespace with these labels, given the cluster-wide defaults, as Pod Security reads them
 * (api/helpers.go PolicyToEvaluate): a level it cannot parse is restricted for enforce and privileged for audit and warn;
 * a version label pins its mode's policy to that minor ("latest", or what it cannot parse, is the newest); and warn
 * takes the enforce level, and its version, where enforce is set stricter and warn is not set.
 */
export function levelsFor(labels: Record<string, unknown> | undefined, defaults: PodSecurityConfig): PodSecurityConfig {
  const label = (key: string) => labels?.[`${LABEL_PREFIX}${key}`];
  const pick = (mode: (typeof MODES)[number], unreadable: Level): Level => {
    const v = label(mode);
    return v === undefined ? defaults[mode] : isLevel(v) ? v : unreadable;
  };
  const levels = { enforce: pick('enforce', 'restricted'), audit: pick('audit', 'privileged'), warn: pick('warn', 'privileged') };
  const versions: NonNullable<PodSecurityConfig['versions']> = { ...defaults.versions };
  for (const mode of MODES) {
    const v = label(`${mode}-version`);
    if (v === undefined) continue;
    const pinned = policyVersionMinor(v);
    if (pinned !== undefined) versions[mode] = pinned;
    else delete versions[mode];
  }
  if (label('warn') === undefined && isLevel(label('enforce')) && levelRank(levels.enforce) > levelRank(levels.warn)) {
    levels.warn = levels.enforce;
    if (label('warn-version') === undefined) {
      if (versions.enforce === undefined) delete versions.warn;
      else versions.warn = versions.enforce;
    }
  }
  return Object.keys(versions).length ? { ...levels, versions } : levels;
}
