/**
 * The reference the repository keeps of what unpoller reads of its environment
 * (monitoring/unpoller/facts/settings-reference.yaml, written by `npm run unpoller:reference`): each variable's name,
 * with `<n>` for a list's item and `<key>` for a map's key, and the Go type golift.io/cnfg parses its value as.
 */
import { isMap } from '../core/dig.ts';
import { referenceFile, type ReferenceRead } from '../helm/reference-file.ts';

export const UNPOLLER_REFERENCE = 'monitoring/unpoller/facts/settings-reference.yaml';
/** The image unpoller's releases are published as (ghcr.io/unpoller/unpoller, and Docker Hub's unpoller/unpoller). */
export const UNPOLLER_IMAGE = 'unpoller/unpoller';

export interface UnpollerReference {
  version: string;
  /** The prefix cnfg filters the environment by (UP). */
  prefix: string;
  variables: Readonly<Record<string, string>>;
}

/** The types the reference writes: those cnfg parses itself (a pointer's alike), a byte slice, or `opaque <type>`. */
const TYPE = /^(?:\*?(?:string|bool|u?int(?:8|16|32|64)?|float(?:32|64)|error|time\.Duration|cnfg\.Duration)|\[\]byte|opaque \S.*)$/;

function unpollerFields(doc: unknown): UnpollerReference | { problem: string } {
  if (!isMap(doc)) return { problem: 'it is not a map' };
  const { version, prefix, variables } = doc as Record<string, unknown>;
  if (typeof version !== 'string') return { problem: 'no version' };
  if (typeof prefix !== 'string' || prefix === '') return { problem: 'no prefix' };
  if (!isMap(variables) || Object.keys(variables).length === 0) return { problem: 'variables is not a map of names to types' };
  const unknown = Object.entries(variables).find(([, t]) => typeof t !== 'string' || !TYPE.test(t));
  if (unknown) return { problem: `variable ${unknown[0]} has type ${JSON.stringify(unknown[1])}, which cnfg does not parse` };
  return { version, prefix, variables: variables as Record<string, string> };
}

export type UnpollerReferenceRead = ReferenceRead<UnpollerReference>;

export const unpollerReference = referenceFile(UNPOLLER_REFERENCE, unpollerFields);

/** One variable of the reference as a pattern: its type, and the list items its name passes through. */
export interface VariablePattern {
  pattern: string;
  type: string;
  regex: RegExp;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The reference's names as patterns: `<n>` is an index as strconv.Itoa writes it (cnfg looks `_0`, `_1`... up, so
 * `_01` is never read); `<key>` is any text (Pairs.Get takes every name that begins with the map's name).
 */
export function variablePatterns(ref: UnpollerReference): VariablePattern[] {
  return Object.entries(ref.variables)
    .map(([pattern, type]) => ({
      pattern,
      type,
      regex: new RegExp(
        `^${pattern
          .split(/(<n>|<key>)/)
          .map((part) => (part === '<n>' ? '(0|[1-9][0-9]*)' : part === '<key>' ? '(.+)' : escape(part)))
          .join('')}$`,
      ),
    }))
    .sort((a, b) => Number(a.pattern.includes('<')) - Number(b.pattern.includes('<')));
}
