/**
 * What unpoller makes of its container's environment at start, as golift.io/cnfg v0.2.3 reads it (env.go, map.go,
 * parse.go) into the structs the reference lists. cnfg looks each name up exactly as the structs spell it, upper case
 * (a name in another case, or one no struct has, is never read: the setting meant is not made); it reads a list's
 * items from `_0` up and stops at the first item nothing sets (a `_1` without a `_0` is never read); and it parses
 * each value it reads by its Go type: a pointer's empty value leaves it unset, any other type parses the empty text
 * too. A value it cannot parse is an error from UnmarshalENV, and unpoller exits at start (pkg/poller/config.go).
 */
import { goParseBool, scalarText } from '../core/text.ts';
import { goParseDuration } from '../core/time.ts';
import { goParseDecimal, goParseFloat } from '../go/strconv.ts';
import { didYouMean } from '../core/did-you-mean.ts';
import { variablePatterns, type UnpollerReference, type VariablePattern } from './reference.ts';

/** A container's env entry, as the pod spec holds it. */
export interface UnpollerEnv {
  name?: unknown;
  value?: unknown;
  valueFrom?: unknown;
}

export interface UnpollerProblem {
  /** The env entry at fault. */
  index: number;
  on: 'name' | 'value';
  message: string;
  /** Set where the gate cannot tell: said not judged, not failed. */
  notJudged?: true;
}

interface Item {
  list: string;
  index: number;
}

interface Read {
  index: number;
  name: string;
  /** Undefined where the pod alone knows it (a Secret's, a field's, or one Kubernetes expands). */
  value: string | undefined;
  variable: VariablePattern;
  /** The list items the name passes through, outermost first. */
  items: Item[];
}

/** The list items a matched name passes through: `UP_UNIFI_CONTROLLER_1_URL` → UP_UNIFI_CONTROLLER item 1. */
function itemsOf(variable: VariablePattern, match: RegExpExecArray): Item[] {
  const items: Item[] = [];
  let written = '';
  let group = 1;
  for (const part of variable.pattern.split(/(<n>|<key>)/)) {
    if (part === '<n>' || part === '<key>') {
      const text = match[group++]!;
      if (part === '<n>') items.push({ list: written.replace(/_$/, ''), index: Number(text) });
      written += text;
    } else written += part;
  }
  return items;
}

const BITS: Readonly<Record<string, number>> = { int: 64, int8: 8, int16: 16, int32: 32, int64: 64, uint: 64, uint16: 16, uint32: 32, uint64: 64 };

/** The error cnfg's parse of variable `name`'s `value` as `type` returns (its words), or undefined where it reads it. */
export function cnfgValueProblem(type: string, { name, value }: { name: string; value: string }): string | undefined {
  const problem = memberProblem(type.replace(/^\*/, ''), value);
  // A cnfg.Duration reads a value through its UnmarshalText, whose error names no variable; an empty one falls
  // through to the time.Duration inside it, read as a member.
  if (problem && type.endsWith('cnfg.Duration') && value !== '') return `UnmarshalText interface: parsing duration '${value}': ${problem}`;
  return problem && `${name}: ${problem}`;
}

function memberProblem(base: string, value: string): string | undefined {
  if (base === 'string' || base === '[]byte' || base === 'error') return undefined;
  if (base === 'bool') return goParseBool(value) === undefined ? `strconv.ParseBool: parsing "${value}": invalid syntax` : undefined;
  if (base in BITS) {
    const unsigned = base.startsWith('u');
    const parsed = goParseDecimal(value, { bits: BITS[base]!, unsigned });
    return 'error' in parsed ? `parsing integer: strconv.${unsigned ? 'ParseUint' : 'ParseInt'}: parsing "${value}": ${parsed.error}` : undefined;
  }
  if (base === 'float64' || base === 'float32') {
    const n = goParseFloat(value);
    const range = base === 'float32' ? 3.4028234663852886e38 : Number.MAX_VALUE;
    if (n === undefined) return `strconv.ParseFloat: parsing "${value}": invalid syntax`;
    return Math.abs(n) > range && Number.isFinite(n) ? `strconv.ParseFloat: parsing "${value}": value out of range` : undefined;
  }
  if (base === 'time.Duration' || base === 'cnfg.Duration') {
    const d = goParseDuration(value);
    return d.ok ? undefined : d.error;
  }
  return undefined;
}

/** The entries cnfg would see, one per name (the pod's last entry of a name wins), matched to the reference. */
function readsOf(env: readonly UnpollerEnv[], patterns: readonly VariablePattern[]): { reads: Read[]; unread: Map<string, number> } {
  const last = new Map<string, number>();
  env.forEach((e, index) => last.set(scalarText(e.name ?? ''), index));
  const reads: Read[] = [];
  const unread = new Map<string, number>();
  for (const [name, index] of last) {
    const match = patterns.map((variable) => ({ variable, m: variable.regex.exec(name) })).find((x) => x.m);
    if (!match) {
      unread.set(name, index);
      continue;
    }
    const e = env[index]!;
    const raw = e.value === undefined && e.valueFrom !== undefined ? undefined : scalarText(e.value ?? '');
    reads.push({ index, name, value: raw?.includes('$(') ? undefined : raw, variable: match.variable, items: itemsOf(match.variable, match.m!) });
  }
  return { reads, unread };
}

/** Which list items cnfg reaches and which it finds set (an item is appended only when something in it is set). */
function listWalk(reads: readonly Read[]): { missing: (r: Read) => string | undefined } {
  const found = new Map<string, boolean>();
  // A pointer's empty value is not found; any other value, even empty, is.
  const setsSomething = (r: Read) => !r.variable.type.startsWith('*') || r.value !== '';
  const itemFound = (item: string): boolean => {
    if (!found.has(item)) {
      found.set(item, false);
      found.set(
        item,
        reads.some((r) => r.items.some((i) => `${i.list}_${i.index}` === item) && missing(r) === undefined && setsSomething(r)),
      );
    }
    return found.get(item)!;
  };
  const missing = (r: Read): string | undefined => {
    for (const { list, index } of r.items) for (let j = 0; j < index; j++) if (!itemFound(`${list}_${j}`)) return `${list}_${j}`;
    return undefined;
  };
  return { missing };
}

/**
 * What unpoller ignores or refuses of a container's environment. With `whole` false (the container also takes
 * variables from an envFrom), a list item missing here may be set there: lists are not judged.
 */
export function unpollerProblems(env: readonly UnpollerEnv[], ref: UnpollerReference, { whole }: { whole: boolean }): UnpollerProblem[] {
  const patterns = variablePatterns(ref);
  const { reads, unread } = readsOf(env, patterns);
  const problems: UnpollerProblem[] = [];
  const v = `unpoller ${ref.version}`;
  for (const [name, index] of unread) {
    const upper = name.toUpperCase();
    if (!upper.startsWith(`${ref.prefix}_`) && upper !== ref.prefix) continue;
    const message =
      upper !== name && patterns.some((p) => p.regex.test(upper))
        ? `${v} reads its variables by their upper-case names alone (cnfg looks ${upper} up as written): ${name} does nothing`
        : `${v} reads no ${name}${didYouMean(
            name,
            patterns.map((p) => p.pattern),
          )}: it does nothing`;
    problems.push({ index, on: 'name', message });
  }
  const { missing } = listWalk(reads);
  for (const r of reads) {
    const before = whole ? missing(r) : undefined;
    if (before) {
      problems.push({
        index: r.index,
        on: 'name',
        message: `${v} never reads ${r.name}: cnfg reads a list's items from _0 up to the first one nothing sets, and nothing sets ${before}; it does nothing`,
      });
      continue;
    }
    const base = r.variable.type.replace(/^\*/, '');
    if (r.value === undefined) {
      if (!['string', '[]byte', 'error'].includes(base))
        problems.push({
          index: r.index,
          on: 'value',
          notJudged: true,
          message: `${v} parses ${r.name} as ${r.variable.type}; its value is set where the gate cannot read it`,
        });
      continue;
    }
    if (r.variable.type.startsWith('*') && r.value === '') continue;
    if (base.startsWith('opaque')) {
      if (r.value !== '')
        problems.push({ index: r.index, on: 'value', notJudged: true, message: `${v} reads ${r.name} as ${base.slice(7)}, which the gate does not parse` });
      continue;
    }
    const problem = cnfgValueProblem(r.variable.type, { name: r.name, value: r.value });
    if (problem) problems.push({ index: r.index, on: 'value', message: `${v} cannot read ${r.name} (env unmarshal: ${problem}) and exits at start` });
  }
  return problems;
}
