/** A container's variables as the image's needs read them: which hold a value, where each is set, and a value's text. */
import type { CheckContext } from '../../model/checks/kit.ts';
import { objects } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import type { ContainerRef } from '../../model/core/workloads.ts';
import { envFromVariables, type VariableSetting } from '../../model/cluster/provided-keys.ts';

/**
 * A container's variables that hold a value (a plain non-empty one, or one read from elsewhere), each with where it is
 * set: its env entry's name, else the envFrom entry whose Secret or ConfigMap sets it (the keys the repository writes).
 */
export function setVariables(
  ctx: CheckContext,
  namespace: string | undefined,
  c: ContainerRef,
  variable: (name: string) => VariableSetting | undefined,
): Map<string, Path> {
  const set = new Map<string, Path>();
  for (const [name, { source, setting }] of envFromVariables(ctx, namespace, c.container)) if (holdsValue(setting)) set.set(name, [...c.at, 'envFrom', source]);
  // An env entry's name is where the kubelet's value of it (the last entry of that name) is set.
  objects(c.container.env).forEach((e, i) => {
    if (typeof e.name === 'string' && holdsValue(variable(e.name))) set.set(e.name, [...c.at, 'env', i, 'name']);
  });
  return set;
}

/** Whether a variable holds a value: a plain non-empty one, or one read from elsewhere; undefined where a source may set it. */
export const holdsValue = (setting: VariableSetting | undefined): boolean | undefined =>
  setting === 'maybe' ? undefined : setting === 'held' || (setting !== undefined && setting.value !== '');

/** A variable's text where the gate reads it: the container's env, or a plain Secret or ConfigMap its envFrom names. */
export const textOf = (setting: VariableSetting | undefined): string | undefined => (typeof setting === 'object' ? setting.value : undefined);
