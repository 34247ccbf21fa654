/**
 * How a cluster fact that holds YAML in a string (a ConfigMap holds only strings) is read, and how its problems are
 * reported: each fact's key with one line that says what is wrong.
 */
import { parse } from 'yaml';

/** One malformed or missing fact: its key and what is wrong. */
export interface FactsProblem {
  key: string;
  message: string;
}

/** An exact release, x.y.z, a leading v allowed. */
export const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)$/;

/**
 * A fact that holds YAML in a string (a ConfigMap holds strings): its value, or null when it is absent or does not
 * parse (which is a problem).
 */
export function yamlFact(key: string, raw: unknown, problems: FactsProblem[]): unknown {
  if (raw === undefined) return null;
  try {
    return typeof raw === 'string' ? parse(raw) : undefined;
  } catch (err) {
    problems.push({ key, message: `cluster fact "${key}" does not parse: ${(err as Error).message.split('\n')[0]}` });
    return null;
  }
}

/**
 * A fact that holds a YAML list of entries: each entry handed to `entry` with a way to refuse it (`<key> entry <n>`
 * and why), or one problem when the fact is no list.
 */
export function listFact(
  key: string,
  { raw, shape }: { raw: unknown; shape: string },
  problems: FactsProblem[],
  entry: (e: Record<string, unknown>, refuse: (why: string) => void) => void,
): void {
  const list = yamlFact(key, raw, problems);
  if (list === null) return;
  if (!Array.isArray(list)) {
    problems.push({ key, message: shape });
    return;
  }
  list.forEach((e: Record<string, unknown> | null, i) => entry(e ?? {}, (why) => problems.push({ key, message: `${key} entry ${i + 1}${why}` })));
}

/** The `remoteBases` fact: a YAML list of {host, reason}, the hosts kustomizations may fetch from. */
export function remoteBases(raw: unknown, problems: FactsProblem[]): string[] {
  const list = yamlFact('remoteBases', raw, problems);
  if (list === null) return [];
  if (
    !Array.isArray(list) ||
    !list.every((e: Record<string, unknown>) => typeof e?.host === 'string' && e.host !== '' && typeof e?.reason === 'string' && e.reason.trim() !== '')
  ) {
    problems.push({
      key: 'remoteBases',
      message: 'cluster fact "remoteBases" must be a YAML list of {host, reason}, each host with why a kustomization fetches from it',
    });
    return [];
  }
  return list.map((e: { host: string }) => e.host);
}
