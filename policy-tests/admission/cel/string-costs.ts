/**
 * The strings extension's `replace`, as cel-go runs it for the API server:
 * linear in the result (the engine's own rebuilds the string at every
 * occurrence, quadratic), and charged what the API server charges at run
 * time, twice a walk of the receiver (k8s.io/apiserver pkg/cel/library
 * cost.go, "replace": the result's length is not charged). A result the API
 * server would build but that is too long to build here (a receiver of
 * 16,384 characters each replaced by itself: 268 million) is not built: the
 * rule is not judged, in the time it takes to count the occurrences. Its
 * CRD's create already refuses any rule that walks such a result
 * (kubernetes-call-costs.ts). `split` with a limit is Go's SplitN.
 */
import type { CelFunc } from '@bufbuild/cel';
import { beyondEvaluator, charge } from './budget.ts';
import { COST } from './estimates.ts';

const STRING_TRAVERSAL_COST_FACTOR = COST.stringTraversalFactor;

/** A string's length as CEL counts it: code points (a surrogate pair is one). */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 1; i < s.length; i++) {
    const [high, low] = [s.charCodeAt(i - 1), s.charCodeAt(i)];
    if (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) n--;
  }
  return n;
}

type Cel = typeof import('@bufbuild/cel');

/** The longest string replace builds here: 16 Mi characters, a quarter second to build and count on a slow machine. */
export const LONGEST_BUILT = 1 << 24;

/** Where `substr` occurs in `s`, left to right and not overlapping, the first `limit` of them (all for a negative limit). */
function occurrences(s: string, substr: string, limit: number): number[] {
  const out: number[] = [];
  if (limit === 0) return out;
  // An empty substring matches before every character and at the end, as Go's strings.Replace: by code point.
  if (substr === '') {
    let i = 0;
    for (const ch of s) {
      if (limit >= 0 && out.length >= limit) return out;
      out.push(i);
      i += ch.length;
    }
    if (limit < 0 || out.length < limit) out.push(s.length);
    return out;
  }
  for (let i = s.indexOf(substr); i !== -1 && (limit < 0 || out.length < limit); i = s.indexOf(substr, i + substr.length)) out.push(i);
  return out;
}

function replace(s: string, substr: string, repl: string, limit: number): string {
  const at = occurrences(s, substr, limit);
  const length = s.length + at.length * (repl.length - substr.length);
  // The runtime cost of the API server: the receiver's code points, walked twice.
  charge(Math.ceil(codePoints(s) * 2 * STRING_TRAVERSAL_COST_FACTOR));
  if (length > LONGEST_BUILT)
    beyondEvaluator(`replace would build a string of ${length} characters, which the API server builds and this evaluator does not (past ${LONGEST_BUILT})`);
  const parts: string[] = [];
  let from = 0;
  for (const i of at) {
    parts.push(s.slice(from, i), repl);
    from = i + substr.length;
  }
  parts.push(s.slice(from));
  return parts.join('');
}

/**
 * Go's strings.SplitN, as cel-go's split(sep, n) runs it: at most n pieces, the last holding the rest unsplit (the
 * engine's own cut the list at n and dropped the rest); none for n == 0; every piece for n < 0; an empty separator
 * splits between code points. Charged as the API server charges split: its receiver walked twice.
 */
function splitN(s: string, sep: string, n: number): string[] {
  charge(Math.ceil(codePoints(s) * 2 * STRING_TRAVERSAL_COST_FACTOR));
  if (n === 0) return [];
  if (sep === '') {
    const chars = Array.from(s);
    return n < 0 || chars.length <= n ? chars : [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
  }
  const out: string[] = [];
  let from = 0;
  for (let i = s.indexOf(sep); i !== -1 && (n < 0 || out.length < n - 1); i = s.indexOf(sep, from)) {
    out.push(s.slice(from, i));
    from = i + sep.length;
  }
  out.push(s.slice(from));
  return out;
}

export function stringCostFunctions(cel: Cel): CelFunc[] {
  const { celMethod, CelScalar, listType } = cel;
  const [S, I] = [CelScalar.STRING, CelScalar.INT];
  return [
    celMethod('split', S, [S, I], listType(S), function (sep, n) {
      return splitN(this as unknown as string, sep, Number(n));
    }),
    celMethod('replace', S, [S, S], S, function (substr, repl) {
      return replace(this as unknown as string, substr, repl, -1);
    }),
    celMethod('replace', S, [S, S, I], S, function (substr, repl, n) {
      return replace(this as unknown as string, substr, repl, Number(n));
    }),
  ];
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** `%e` as cel-go prints it through golang.org/x/text: `3.140000×10⁰⁰`, the exponent in superscript, at least two digits. */
export function goScientific(value: number, precision: number): string {
  const [mantissa = '', exponent = '0'] = value.toExponential(precision).split('e');
  const n = Number(exponent);
  const digits = String(Math.abs(n))
    .padStart(2, '0')
    .replace(/\d/g, (d) => SUPERSCRIPT[Number(d)]!);
  return `${mantissa}×10${n < 0 ? '⁻' : ''}${digits}`;
}

/**
 * The strings extension's format, with `%e` as cel-go prints it (the engine's own prints `3.140000e+00`); every
 * other clause, and any format without `%e`, is the engine's own.
 */
export function stringFormatFunctions(cel: Cel, strings: readonly CelFunc[]): CelFunc[] {
  const engine = strings.find((f) => f.name === 'format' && f.target !== undefined);
  if (!engine) return [];
  const { celMethod, CelScalar, listType, celList, isCelError } = cel;
  const own = (format: string, args: unknown[]): string => {
    const r = engine.call(0, format, [celList(args as never[])] as never);
    if (r === undefined || isCelError(r)) throw r instanceof Error ? r : new Error('format: no such overload');
    return r as string;
  };
  return [
    celMethod('format', CelScalar.STRING, [listType(CelScalar.DYN)], CelScalar.STRING, function (list) {
      const args = Array.from({ length: list.size }, (_, i) => list.get(i));
      // Without %e, or with the arguments miscounted (the engine words that error), the engine formats it all.
      const clauses = [...this.matchAll(/%(?:\.(\d+))?([a-zA-Z%])/g)].filter((m) => m[2] !== '%');
      if (!clauses.some((m) => m[2] === 'e') || clauses.length !== args.length) return own(this, args);
      let i = 0;
      return this.replace(/%(?:\.(\d+))?([a-zA-Z%])/g, (clause, precision: string | undefined, verb: string) => {
        if (verb === '%') return '%';
        const arg = args[i++];
        if (verb === 'e' && typeof arg === 'number' && Number.isFinite(arg)) return goScientific(arg, precision === undefined ? 6 : Number(precision));
        return own(clause, [arg]);
      });
    }),
  ];
}
