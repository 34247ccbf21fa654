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
 * (string-size-estimate.ts).
 */
import type { CelFunc } from '@bufbuild/cel';
import { beyondEvaluator, charge } from './budget.ts';
import { STRING_TRAVERSAL_COST_FACTOR, codePoints } from './string-size-estimate.ts';

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

export function stringCostFunctions(cel: Cel): CelFunc[] {
  const { celMethod, CelScalar } = cel;
  const [S, I] = [CelScalar.STRING, CelScalar.INT];
  return [
    celMethod('replace', S, [S, S], S, function (substr, repl) {
      return replace(this as unknown as string, substr, repl, -1);
    }),
    celMethod('replace', S, [S, S, I], S, function (substr, repl, n) {
      return replace(this as unknown as string, substr, repl, Number(n));
    }),
  ];
}
