/**
 * Exemptions in the Falco tuning files: which overrides of upstream rules,
 * macros and lists exempt something, and what each alternative pins (a
 * process, an image, a path, a namespace).
 */
import { parseAppend, parseCondition, disjuncts, pinned, unwrap, UPSTREAM, type Expr } from './expr.ts';
import { isExemptionList, isHookName, type FalcoPolicy } from './policy.ts';
import type { TuningFile, TuningItem } from './tuning.ts';

export const PROCESS_FIELD = /^proc\.(name|pname|exe|pexe|cmdline|args|aname(\[\d+\])?)$/;
export const IMAGE_FIELD = /^container\.image(\.repository)?$/;
export const PATH_FIELD =
  /^(fd\.(name|directory|filename|nameraw)|fs\.path\.(name|source|target)|proc\.(exepath|cwd)|evt\.arg\.(path|name|pathname|filename))$/;
export const NAMESPACE_FIELD = 'k8s.ns.name';
export const PINNING_OPS = new Set(['=', '==', 'startswith', 'glob', 'endswith', 'in', 'pmatch']);

export function upstreamKind(policy: FalcoPolicy, item: TuningItem): boolean {
  const { upstream } = policy;
  return item.type === 'rule'
    ? upstream.rules.has(item.name)
    : item.type === 'macro'
      ? upstream.macros.has(item.name)
      : item.type === 'list'
        ? upstream.lists.has(item.name)
        : false;
}

export function safeParse(parse: () => Expr): Expr | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}

/** `X and not (...)`: the only shape a rule's own condition may be extended with. Returns the excluded expression. */
export function appendedExclusion(fragment: string): Expr | undefined {
  const expr = safeParse(() => parseAppend(fragment));
  if (!expr || expr.kind !== 'and' || expr.left.kind !== 'macro' || expr.left.name !== UPSTREAM) return undefined;
  const not = expr.right;
  return not.kind === 'not' && not.expr.kind === 'group' ? not.expr.expr : undefined;
}

export interface Exemption {
  item: TuningItem;
  /** Each alternative exempts on its own, so each must be scoped on its own. */
  clauses: Expr[];
  /** A list append exempts by item everywhere: it cannot be scoped. */
  unscopable?: boolean;
}

export function exemptionsOf(tuning: TuningFile, policy: FalcoPolicy): Exemption[] {
  const out: Exemption[] = [];
  for (const item of tuning.items) {
    // Boundary rules and their hooks are held to the stricter falco-boundary-armed.
    if (!item.override || !upstreamKind(policy, item) || policy.boundaryRules.includes(item.name) || policy.boundaryHooks.includes(item.name)) continue;
    if (item.type === 'macro' && item.override.condition === 'replace' && item.condition && isHookName(item.name)) {
      const expr = safeParse(() => parseCondition(item.condition!));
      if (expr) out.push({ item, clauses: disjuncts(expr) });
    } else if (item.type === 'rule' && item.override.condition === 'append' && item.condition) {
      const excluded = appendedExclusion(item.condition);
      if (excluded) out.push({ item, clauses: disjuncts(excluded) });
    } else if (item.type === 'list' && item.override.items === 'append' && isExemptionList(item.name)) {
      out.push({ item, clauses: [], unscopable: true });
    }
  }
  return out;
}

/** What a clause pins: the fields it constrains positively, and the image values it names. */
export function pins(clause: Expr): { fields: Set<string>; images: string[] } {
  const fields = new Set<string>();
  const images: string[] = [];
  for (const part of pinned(clause)) {
    const e = unwrap(part);
    if ((e.kind === 'compare' || e.kind === 'list') && PINNING_OPS.has(e.op)) {
      fields.add(e.field);
      if (IMAGE_FIELD.test(e.field)) images.push(...(e.kind === 'compare' ? [e.value] : e.items));
    }
  }
  return { fields, images };
}

/** The executable's path, as the rules report it (proc.exepath; proc.exe where it is a path). */
const EXE_FIELDS = new Set(['proc.exepath', 'proc.exe']);
/** The operators by which an alternative names values outright (a prefix for startswith): what can be held to facts. */
const NAMING_OPS = new Set(['=', '==', 'startswith', 'in']);

/** One value an alternative names: `startswith` names a prefix, every other operator the value itself. */
export interface NamedValue {
  value: string;
  prefix: boolean;
}

/** What one alternative names outright, field by field: the processes, executables, images and namespaces. */
export interface Named {
  processes: string[];
  exes: NamedValue[];
  images: string[];
  namespaces: string[];
}

export function namedBy(clause: Expr): Named {
  const named: Named = { processes: [], exes: [], images: [], namespaces: [] };
  for (const part of pinned(clause)) {
    const e = unwrap(part);
    if ((e.kind !== 'compare' && e.kind !== 'list') || !NAMING_OPS.has(e.op)) continue;
    const values = e.kind === 'compare' ? [e.value] : e.items;
    if (EXE_FIELDS.has(e.field)) named.exes.push(...values.map((value) => ({ value, prefix: e.op === 'startswith' })));
    else if (e.op === 'startswith') continue;
    else if (e.field === 'proc.name') named.processes.push(...values);
    else if (IMAGE_FIELD.test(e.field)) named.images.push(...values);
    else if (e.field === NAMESPACE_FIELD) named.namespaces.push(...values);
  }
  return named;
}

/** Whether a named executable (a path, or a prefix) takes in this path. */
export const namesExe = (named: NamedValue, path: string): boolean => (named.prefix ? path.startsWith(named.value) : path === named.value);

/**
 * The upstream rule an exemption tunes: the rule its condition is appended to (one the policy lets be appended to:
 * ruleAppendAllowed), or the rule of a hook the tuning policy maps to one (hookRules). A hook of several rules, or
 * one the policy does not map, gives none.
 */
export function tunedRule(item: TuningItem, policy: FalcoPolicy): string | undefined {
  if (item.type === 'rule') return item.name in policy.ruleAppendAllowed ? item.name : undefined;
  return item.type === 'macro' ? policy.hookRules[item.name] : undefined;
}

export function isGeneric(image: string, policy: FalcoPolicy): boolean {
  const bare = image.replace(/[:@].*$/, '');
  return policy.genericImages.some((g) => g === bare || g.startsWith(bare));
}

export function exemptedImages(tunings: TuningFile[], policy: FalcoPolicy): Set<string> {
  return new Set(tunings.flatMap((t) => exemptionsOf(t, policy)).flatMap((e) => e.clauses.flatMap((c) => pins(c).images)));
}
