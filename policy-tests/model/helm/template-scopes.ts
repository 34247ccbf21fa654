/**
 * What a chart's `{{ with .Values.a.b }}` blocks read of the map they move the dot to. text/template's `with` sets
 * the dot to its pipeline's value inside the block: `.enabled` there reads `.Values.a.b.enabled`, and only a bare `.`
 * (`toYaml .`, `include "x" .`) or a `range` over a field hands a map on whole. The values walk (unused-values.ts)
 * read every `.Values` chain a template names as a map taken whole, so a misspelt key under a map a chart only opens
 * with `with` (Loki's `monitoring.serviceMonitor.enbaled`) passed; this reads the blocks with text/template's lexer
 * (model/go/template-lex.ts), as the parser nests them: `with`, `range`, `if`, `define` and `block` open one, `else`
 * turns a `with`'s or a `range`'s dot back to the one outside it (`else with` moves it again), `end` closes it.
 * A `range` over a chain alone moves the dot to each element, so what it reads there is each element's keys read
 * (the snmp exporter's `serviceMonitor.params[].scrapeTimeout`); one with variables (`range $i, $p := ...`) reads
 * through them, which this does not follow, and is not kept.
 */
import { lexTemplate, type Item } from '../go/template-lex.ts';

/** The dot inside a block: the template's root, a chain of values keys, or something this reading does not follow. */
type Dot = 'root' | { chain: string[] } | 'unknown';

interface Frame {
  kind: 'with' | 'range' | 'if' | 'define' | 'block';
  dot: Dot;
  outer: Dot;
}

export interface TemplateScopes {
  /** How many `with` blocks open on each values chain named by it alone (`with .Values.a.b`), by the chain. */
  opened: Map<string, number>;
  /**
   * How many `range` blocks without variables walk each values chain named by it alone (`range .Values.a.b`): inside,
   * the dot is each element, and what the block reads of it is read under the chain `a.b.[]` (`a.b.[].name`; `a.b.[]`
   * for an element handed on whole).
   */
  ranged: Map<string, number>;
  /** Every values chain the templates read through a moved dot, as far as it goes (`a.b.enabled`; `a.b` for a bare dot). */
  reads: Set<string>;
}

/** The tokens of each action, spaces kept (a field run is the dot's only where it follows no variable, field or paren). */
function actions(items: readonly Item[]): Item[][] {
  const out: Item[][] = [];
  let current: Item[] | undefined;
  for (const item of items) {
    if (item.type === 'leftDelim') current = [];
    else if (item.type === 'rightDelim') {
      if (current) out.push(current);
      current = undefined;
    } else current?.push(item);
  }
  return out;
}

/** The part of a chain that stands for each element of the list a `range` walks. */
export const ELEMENT = '[]';

const isChain = (dot: Dot): dot is { chain: string[] } => typeof dot === 'object';

/** The chain a run of fields reaches from `dot`, if the dot is one this reading follows. */
function reached(dot: Dot, fields: readonly string[]): string[] | undefined {
  if (isChain(dot)) return [...dot.chain, ...fields];
  if (dot === 'root' && fields[0] === 'Values' && fields.length > 1) return fields.slice(1);
  return undefined;
}

/** The chain `tokens` name alone (`.Values.a.b`, or `.c` from a moved dot), if they do. */
function chainAlone(tokens: readonly Item[], dot: Dot): string[] | undefined {
  const words = tokens.filter((t) => t.type !== 'space');
  if (words.length === 0 || !words.every((t) => t.type === 'field')) return undefined;
  return reached(
    dot,
    words.map((t) => t.val.slice(1)),
  );
}

/** Whether the word before token `i` is `hasKey` or `get`, which read one key of the map they are given, no more. */
function keyRead(tokens: readonly Item[], i: number): boolean {
  let j = i - 1;
  while (tokens[j]?.type === 'space') j--;
  return tokens[j]?.type === 'identifier' && (tokens[j]!.val === 'hasKey' || tokens[j]!.val === 'get');
}

/**
 * Each field run and bare dot of `tokens` read from a moved dot, recorded (what the template's root reads, the
 * `.Values` chains, unused-values.ts reads itself).
 */
function readAll(tokens: readonly Item[], dot: Dot, reads: Set<string>): void {
  if (!isChain(dot)) return;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    // A key read of a list's element (`get . "x"`) names a key this reading does not keep: the element is taken whole.
    if (t.type === 'dot' && (!keyRead(tokens, i) || dot.chain.at(-1) === ELEMENT)) reads.add(dot.chain.join('.'));
    if (t.type !== 'field') continue;
    const before = tokens[i - 1]?.type;
    const fields: string[] = [];
    while (tokens[i]?.type === 'field') fields.push(tokens[i++]!.val.slice(1));
    i--;
    if (before === 'variable' || before === 'rightParen' || before === 'field' || keyRead(tokens, i - fields.length + 1)) continue;
    const chain = reached(dot, fields);
    if (chain) reads.add(chain.join('.'));
  }
}

/** The `with` blocks of a chart's joined templates and what they read; undefined where the lexer stops at an error. */
export function templateScopes(text: string): TemplateScopes | undefined {
  const items = lexTemplate(text);
  if (items.some((item) => item.type === 'error')) return undefined;
  const scopes: TemplateScopes = { opened: new Map(), ranged: new Map(), reads: new Set() };
  const stack: Frame[] = [];
  const dotNow = (): Dot => stack.at(-1)?.dot ?? 'root';
  const open = (kind: Frame['kind'], pipeline: Item[], outer: Dot): Dot => {
    const named = kind === 'with' || kind === 'range' ? chainAlone(pipeline, outer) : undefined;
    if (!named) {
      readAll(pipeline, outer, scopes.reads);
      return kind === 'if' ? outer : 'unknown';
    }
    const key = named.join('.');
    const counts = kind === 'with' ? scopes.opened : scopes.ranged;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (kind === 'with') return { chain: named };
    // The list itself is read (an element's own list, `range .paths`, is a key of that element).
    scopes.reads.add(key);
    return { chain: [...named, ELEMENT] };
  };
  for (const action of actions(items)) {
    const words = action.filter((t) => t.type !== 'space');
    const head = words[0]?.type;
    const rest = action.slice(action.indexOf(words[0]!) + 1);
    if (head === 'with' || head === 'range' || head === 'if' || head === 'define' || head === 'block') {
      const outer = dotNow();
      stack.push({ kind: head, outer, dot: open(head, rest, outer) });
    } else if (head === 'else') {
      const frame = stack.at(-1);
      if (!frame) continue;
      const next = words[1]?.type;
      // `else` turns a with's or a range's dot back to the one outside it; `else with` and `else if` go on from there.
      const base = frame.kind === 'with' || frame.kind === 'range' ? frame.outer : frame.dot;
      const tail = next === 'with' || next === 'if' ? rest.slice(rest.indexOf(words[1]!) + 1) : [];
      if (next === 'with') {
        frame.dot = open('with', tail, base);
        frame.kind = 'with';
      } else {
        readAll(tail, base, scopes.reads);
        frame.dot = base;
      }
    } else if (head === 'end') stack.pop();
    else readAll(action, dotNow(), scopes.reads);
  }
  return scopes;
}
