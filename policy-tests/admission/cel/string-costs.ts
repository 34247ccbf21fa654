/**
 * The strings extension's `replace`, as cel-go runs it for the API server:
 * linear in the result (the engine's own rebuilds the string at every
 * occurrence, quadratic), and charged to the runtime cost before the result
 * is built. cel-go prices a string it produces at one unit per ten
 * characters (common.StringTraversalCostFactor), so a rule that would build
 * a string past the per-call limit stops at once with the API server's
 * words, where it would otherwise build hundreds of millions of characters.
 */
import type { CelFunc } from '@bufbuild/cel';
import { charge } from './budget.ts';

type Cel = typeof import('@bufbuild/cel');

/** cel-go's cost of a string traversal: 0.1 per character (k8s.io/apiserver pkg/cel/library/cost.go). */
const STRING_TRAVERSAL_COST_FACTOR = 0.1;

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
  // The receiver walked, and the result built: charged before a character of it is made.
  charge(Math.ceil((s.length + length) * STRING_TRAVERSAL_COST_FACTOR));
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
