/** The tuning policy facts (security/falco/facts/) and the upstream names they point to. */
import { parseErrorLine } from '../core/findings.ts';
import { posix } from 'node:path';
import type { Repo } from '../repository/repo.ts';
import { scalarText } from '../core/text.ts';
import { didYouMean } from '../core/did-you-mean.ts';
import { isMap } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import { fieldsOf, type Expr } from './expr.ts';

export const FALCO_POLICY_FILE = 'security/falco/facts/tuning-policy.yaml';

export interface UpstreamNames {
  version: string;
  rules: Set<string>;
  macros: Set<string>;
  lists: Set<string>;
}

export interface FalcoPolicy {
  upstream: UpstreamNames;
  /** The fields the deployed sensor knows, and whether each takes an argument; undefined where no fieldFacts are named. */
  fields?: ReadonlyMap<string, 'none' | 'allowed' | 'required'>;
  genericImages: string[];
  boundaryRules: string[];
  boundaryHooks: string[];
  ruleAppendAllowed: Record<string, string>;
  /** Hooks that exactly one upstream rule consumes, each with its rule. */
  hookRules: Record<string, string>;
  /** Rules that fire only for an executable in the container's overlay upper layer. */
  upperLayerRules: string[];
}

/** Upstream macros and lists meant to be tuned: the exclusion hooks, by the ruleset's naming convention. */
export function isHookName(name: string): boolean {
  return /^(user_|known_|allowed_|trusted_)/.test(name);
}

/** Lists whose items widen what is allowed (exemptions), as opposed to lists that widen detection. */
export function isExemptionList(name: string): boolean {
  return isHookName(name) || /_(images|containers)$/.test(name);
}

/** The policy's lists of names, and its maps of a name to a name: each guards something only as what it says. */
const NAME_LISTS = ['genericImages', 'boundaryRules', 'boundaryHooks', 'upperLayerRules'] as const;
const NAME_MAPS = ['ruleAppendAllowed', 'hookRules'] as const;
const isName = (v: unknown): boolean => typeof v === 'string' && v.trim() !== '';

/**
 * A list or map of the policy written in another shape (one name where a list was meant, a number): read as empty,
 * what it guards would be guarded by nothing, and the checks would pass. Said at its key instead.
 */
function shapeProblem(data: Record<string, unknown>): { problem: string; at: Path } | undefined {
  for (const key of NAME_LISTS) {
    const v = data[key];
    if (v !== undefined && !(Array.isArray(v) && v.every(isName)))
      return { problem: `${key} must be a list of names: read as it is, what it guards would be guarded by nothing`, at: [key] };
  }
  for (const key of NAME_MAPS) {
    const v = data[key];
    if (v !== undefined && !(isMap(v) && Object.values(v).every(isName)))
      return { problem: `${key} must map each name to a name: read as it is, what it guards would be guarded by nothing`, at: [key] };
  }
  return undefined;
}

export function loadFalcoPolicy(repo: Repo): { policy?: FalcoPolicy; problem?: string; at?: { line: number; col: number } } {
  const facts = repo.dataFiles.get(FALCO_POLICY_FILE);
  if (!facts) return { problem: `${FALCO_POLICY_FILE} is missing` };
  if (facts.errors[0]) return { problem: parseErrorLine(facts.file, facts.errors[0]) };
  const data = (facts.data ?? {}) as Record<string, unknown>;
  const shape = shapeProblem(data);
  if (shape) return { problem: shape.problem, at: facts.positions.at(shape.at, 'key') };
  const namesFile = posix.join(posix.dirname(FALCO_POLICY_FILE), scalarText(data.upstreamFacts ?? ''));
  const names = repo.dataFiles.get(namesFile)?.data as { version?: string; rules?: string[]; macros?: string[]; lists?: string[] } | undefined;
  if (!names?.rules || !names.macros || !names.lists) return { problem: `${namesFile} (upstreamFacts) is missing or has no rules, macros and lists` };
  const strings = (v: unknown) => (v as string[] | undefined) ?? [];
  const fieldsFile = data.fieldFacts === undefined ? undefined : posix.join(posix.dirname(FALCO_POLICY_FILE), scalarText(data.fieldFacts));
  const fieldData = fieldsFile === undefined ? undefined : (repo.dataFiles.get(fieldsFile)?.data as { fields?: Record<string, string> } | undefined);
  if (fieldsFile !== undefined && (fieldData?.fields === null || typeof fieldData?.fields !== 'object'))
    return { problem: `${fieldsFile} (fieldFacts) is missing or has no fields` };
  const fields = fieldData?.fields ? new Map(Object.entries(fieldData.fields) as [string, 'none' | 'allowed' | 'required'][]) : undefined;
  return {
    policy: {
      upstream: { version: names.version ?? '?', rules: new Set(names.rules), macros: new Set(names.macros), lists: new Set(names.lists) },
      ...(fields ? { fields } : {}),
      genericImages: strings(data.genericImages),
      boundaryRules: strings(data.boundaryRules),
      boundaryHooks: strings(data.boundaryHooks),
      ruleAppendAllowed: (data.ruleAppendAllowed ?? {}) as Record<string, string>,
      hookRules: (data.hookRules ?? {}) as Record<string, string>,
      upperLayerRules: strings(data.upperLayerRules),
    },
  };
}

/** The fields libsinsp also takes an argument of after a dot (`evt.arg.fd`: sinsp_filter_check_event's extract_arg). */
const DOTTED_ARGUMENTS = ['evt.arg', 'evt.rawarg'];

/**
 * What the deployed sensor refuses of the fields a condition reads ("filter_check called with nonexistent field"):
 * a name it does not know (`evt.arg.fd`, an argument after a dot, is known), an argument to a field
 * that takes none, none to one that needs one. Each as a phrase, with the nearest known name.
 */
export function fieldProblems(expr: Expr, fields: ReadonlyMap<string, 'none' | 'allowed' | 'required'> | undefined): string[] {
  if (!fields) return [];
  const out: string[] = [];
  for (const written of new Set(fieldsOf(expr))) {
    const [name, arg] = [written.replace(/\[.*$/, ''), written.includes('[')];
    const takes = fields.get(name);
    if (takes === undefined) {
      if (!DOTTED_ARGUMENTS.some((known) => name.startsWith(`${known}.`)))
        out.push(`field ${written} is not one Falco knows${didYouMean(name, fields.keys())}`);
    } else if (arg && takes === 'none') out.push(`field ${name} takes no argument, and ${written} gives one`);
    else if (!arg && takes === 'required') out.push(`field ${name} needs an argument (${name}[...])`);
  }
  return out;
}
