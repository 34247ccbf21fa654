/** A container as the image's needs read it (`Held`), and its variables: which hold a value, where each is set, and a value's text. */
import type { Path } from '../../model/core/positions.ts';
import { dig, objects } from '../../model/core/dig.ts';
import { containerPort, type ContainerRef, type PodSpecRef } from '../../model/core/workloads.ts';
import type { CheckContext, FailurePlace } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { ImageNeeds } from '../../model/repository/image-facts.ts';
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

/** Where a set variable's value stands: its env entry's value where the entry is named by its name, else where it is set. */
export const valuePath = (path: Path): Path => (path.at(-1) === 'name' ? [...path.slice(0, -1), 'value'] : path);

/** A variable's text where the gate reads it: the container's env, or a plain Secret or ConfigMap its envFrom names. */
export const textOf = (setting: VariableSetting | undefined): string | undefined => (typeof setting === 'object' ? setting.value : undefined);

/** One container of an image with facts, as each of its needs reads it. */
export interface Held {
  ctx: CheckContext;
  resource: Resource;
  pod: PodSpecRef;
  c: ContainerRef;
  image: string;
  need: ImageNeeds;
  /** Where a finding about the container's security settings points. */
  where: FailurePlace;
  /** A security setting as the kubelet resolves it: the container's, else the pod's. */
  setting: (key: string) => unknown;
  /** The container's variables that hold a value, each with where it is set (setVariables). */
  env: ReadonlyMap<string, Path>;
  /** How the kubelet sets each variable, its envFrom sources read (model/cluster/environment.ts). */
  variable: (name: string) => VariableSetting | undefined;
}

/** Each httpGet probe of a container: which, the path it asks (without its query; `/` when none is given), where that is said, and its port as written. */
export function* httpProbes(c: ContainerRef): Generator<{ probe: string; asked: string; at: (string | number)[]; port: unknown }> {
  for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
    if (dig(c.container, [probe, 'httpGet']) === undefined) continue;
    const path = dig(c.container, [probe, 'httpGet', 'path']);
    yield {
      probe,
      asked: typeof path === 'string' ? path.split('?')[0]! : '/',
      at: [...c.at, probe, 'httpGet', typeof path === 'string' ? 'path' : 'port'],
      port: dig(c.container, [probe, 'httpGet', 'port']),
    };
  }
}

/**
 * The port a container's probe asks of its own program, as a number: a name as the container names one of its ports,
 * a number it declares or no other container of the pod declares (the probe reaches the pod's address, where another
 * container's declared port is that container's).
 */
export function probedPort({ c, pod }: Pick<Held, 'c' | 'pod'>, port: unknown): number | undefined {
  const othersDeclare = (n: number) =>
    ['containers', 'initContainers'].some((field) =>
      objects(pod.spec[field]).some((other) => other !== c.container && objects(other.ports).some((p) => p.containerPort === n)),
    );
  return containerPort(c, port) ?? (typeof port === 'number' && !othersDeclare(port) ? port : undefined);
}
