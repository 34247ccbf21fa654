/** A container's variables as the image's needs read them: which hold a value, where each is set, and a value's text. */
import type { Path } from '../../model/core/positions.ts';
import type { ContainerRef } from '../../model/core/workloads.ts';
import { givenVariablePath, type ContainerEnvironment, type VariableSetting } from '../../model/cluster/environment.ts';

/**
 * A container's variables that hold a value (a plain non-empty one, or one read from elsewhere), each with where it is
 * set: its env entry's name, else the envFrom entry whose Secret or ConfigMap sets it (the keys the repository writes).
 */
export function setVariables(c: ContainerRef, environment: ContainerEnvironment): Map<string, Path> {
  const set = new Map<string, Path>();
  // The last entry of a name is the one the kubelet sets; an env entry is found by its name.
  for (const e of environment.entries)
    if (holdsValue(environment.setting(e.name))) set.set(e.name, [...c.at, ...givenVariablePath(e, e.at[0] === 'env' ? 'name' : undefined)]);
  return set;
}

/** Whether a variable holds a value: a plain non-empty one, or one read from elsewhere; undefined where a source may set it. */
export const holdsValue = (setting: VariableSetting | undefined): boolean | undefined =>
  setting === 'maybe' ? undefined : setting === 'held' || (setting !== undefined && setting.value !== '');

/** A variable's text where the gate reads it: the container's env, or a plain Secret or ConfigMap its envFrom names. */
export const textOf = (setting: VariableSetting | undefined): string | undefined => (typeof setting === 'object' ? setting.value : undefined);
