/**
 * A path kept as a chain to its parent while a big tree is walked (a chart's
 * CRD schema holds thousands of nodes): extending it costs one small object,
 * and the path is spelled out only at the nodes where something is found.
 */
import type { PathSegment } from './positions.ts';

export interface PathChain {
  readonly up: PathChain | undefined;
  readonly key: PathSegment;
}

/** The chain one or more keys further down. */
export const extendPath = (chain: PathChain | undefined, ...keys: PathSegment[]): PathChain | undefined =>
  keys.reduce<PathChain | undefined>((up, key) => ({ up, key }), chain);

/** The chain as a path, after `prefix`. */
export function spellPath(chain: PathChain | undefined, prefix: readonly PathSegment[] = []): PathSegment[] {
  const keys: PathSegment[] = [];
  for (let c = chain; c; c = c.up) keys.push(c.key);
  return [...prefix, ...keys.reverse()];
}
