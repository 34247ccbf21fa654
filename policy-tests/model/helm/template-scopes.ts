/**
 * What a chart's `{{ with .Values.a.b }}` blocks read of the map they move the dot to. text/template's `with` sets
 * the dot to its pipeline's value inside the block: `.enabled` there reads `.Values.a.b.enabled`, and only a bare `.`
 * (`toYaml .`, `include "x" .`) or a `range` over a field hands a map on whole. The values walk (unused-values.ts)
 * read every `.Values` chain a template names as a map taken whole, so a misspelt key under a map a chart only opens
 * with `with` (Loki's `monitoring.serviceMonitor.enbaled`) passed; this reads the blocks with text/template's lexer
 * (model/go/template-lex.ts), as the parser nests them: `with`, `range`, `if`, `define` and `block` open one, `else`
 * turns a `with`'s or a `range`'s dot back to the one outside it (`else with` moves it again), `end` closes it.
 * A `range` over a chain alone moves the dot to each element, so what it reads there is each element's keys read
 * (the snmp exporter's `serviceMonitor.params[].scrapeTimeout`), and so is what it reads through the variable it
 * binds the element to (`range $pool := .Values.cephBlockPools`, `$pool.spec`). An `if` that only tests a chain
 * (`if .Values.a`, `and`, `or`, `not`) hands nothing on, and is counted apart.
 */
import { lexTemplate, type Item } from '../go/template-lex.ts';

/** The dot inside a block: the template's root, a chain of values keys, or something this reading does not follow. */
type Dot = 'root' | { chain: string[] } | 'unknown';

interface Frame {
  kind: 'with' | 'range' | 'if' | 'define' | 'block';
  dot: Dot;
  outer: Dot;
  vars: Map<string, Bound>;
}

/** What a variable holds: a values chain, or (null) something this reading does not follow, which hides one outside. */
type Bound = { chain: string[] } | null;

export interface TemplateScopes {
  /** How many `with` blocks open on each values chain named by it alone (`with .Values.a.b`), by the chain. */
  opened: Map<string, number>;
  /**
   * How many `range` blocks without variables walk each values chain named by it alone (`range .Values.a.b`): inside,
   * the dot is each element, and what the block reads of it is read under the chain `a.b.[]` (`a.b.[].name`; `a.b.[]`
   * for an element handed on whole).
   */
  ranged: Map<string, number>;
  /** How many `if` pipelines only test each values chain for truth (`if and .Values.a.enabled .Values.b`), by the chain. */
  tested: Map<string, number>;
  /**
   * How many `include` and `template` calls hand each values chain alone to a helper (`include "cilium.image"
   * .Values.image`), by the chain: the helper's body is read from that chain, its fields keys of it.
   */
  passed: Map<string, number>;
  /**
   * How many plain declarations bind a variable to each values chain named by it alone (`$vsc :=
   * .Values.cephBlockPoolsVolumeSnapshotClass`), by the chain: what the templates read through the variable
   * (`$vsc.enabled`) is read of the chain, and a bare `$vsc` hands it on whole.
   */
  bound: Map<string, number>;
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

/** The variables a block binds to values chains (`range $i, $x := .Values.a`: `$x` is each element), by name. */
type Vars = ReadonlyMap<string, Bound>;

/**
 * Each field run and bare dot of `tokens` read from a moved dot, and each variable bound to a values chain with the
 * fields after it, recorded (what the template's root reads, the `.Values` chains, unused-values.ts reads itself).
 */
function readAll(tokens: readonly Item[], dot: Dot, { reads, vars }: { reads: Set<string>; vars: Vars }): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    // A key read of a list's element (`get . "x"`) names a key this reading does not keep: the element is taken whole.
    if (t.type === 'dot' && isChain(dot) && (!keyRead(tokens, i) || dot.chain.at(-1) === ELEMENT)) reads.add(dot.chain.join('.'));
    const bound = t.type === 'variable' ? vars.get(t.val) : undefined;
    if (bound) {
      // `$x.a.b` reads the chain's a.b; a bare `$x` (a key read's too) hands it on whole.
      const fields: string[] = [];
      while (tokens[i + 1]?.type === 'field') fields.push(tokens[++i]!.val.slice(1));
      reads.add([...bound.chain, ...fields].join('.'));
      continue;
    }
    if (t.type !== 'field' || !isChain(dot)) continue;
    const before = tokens[i - 1]?.type;
    const fields: string[] = [];
    while (tokens[i]?.type === 'field') fields.push(tokens[i++]!.val.slice(1));
    i--;
    if (before === 'variable' || before === 'rightParen' || before === 'field' || keyRead(tokens, i - fields.length + 1)) continue;
    const chain = reached(dot, fields);
    if (chain) reads.add(chain.join('.'));
  }
}

/** The words a truth test is made of: `if .Values.a`, `if and .Values.a (not $.Values.b)` hand no value on. */
const TESTS = new Set(['and', 'or', 'not']);

/**
 * The `.Values` chains an `if` pipeline only tests (every word a field run from the root or `$`, `and`, `or`, `not`
 * or a parenthesis), or none where it does anything else with them.
 */
function testedOnly(tokens: readonly Item[], dot: Dot): string[] {
  const chains: string[] = [];
  // A field run is the fields that follow each other with no space between (`.Values.a .Values.b` is two).
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i]!;
    if (w.type === 'space' || (w.type === 'identifier' && TESTS.has(w.val)) || w.type === 'leftParen' || w.type === 'rightParen') continue;
    const fromRoot = w.type === 'variable' && w.val === '$' ? 'root' : w.type === 'field' ? dot : undefined;
    if (fromRoot === undefined) return [];
    const fields: string[] = [];
    if (w.type === 'variable') i++;
    for (; tokens[i]?.type === 'field'; i++) fields.push(tokens[i]!.val.slice(1));
    i--;
    const chain = fromRoot === 'root' && fields[0] === 'Values' && fields.length > 1 ? fields.slice(1) : undefined;
    if (!chain) return [];
    chains.push(chain.join('.'));
  }
  return chains;
}

/** The variables a block's pipeline declares (`$i, $x :=`), and the pipeline after them. */
function declaration(tokens: readonly Item[]): { names: string[]; pipeline: Item[] } {
  const at = tokens.findIndex((t) => t.type === 'declare');
  if (at === -1) return { names: [], pipeline: [...tokens] };
  return { names: tokens.slice(0, at).flatMap((t) => (t.type === 'variable' ? [t.val] : [])), pipeline: tokens.slice(at + 1) };
}

/**
 * A plain declaration or assignment (`{{ $x := .Values.a.b }}`, `$x = ...`): the variable and the chain it now holds
 * (null where its value is anything but a chain alone); undefined for any other action. A variable lives to the end of
 * the block it is declared in (text/template), so it is bound in the innermost frame.
 */
function variableBinding(tokens: readonly Item[], dot: Dot): { name: string; chain: string[] | null } | undefined {
  const words = wordsOf(tokens);
  if (words[0]?.type !== 'variable' || (words[1]?.type !== 'declare' && words[1]?.type !== 'assign')) return undefined;
  return { name: words[0].val, chain: chainAlone(tokens.slice(tokens.indexOf(words[1]) + 1), dot) ?? null };
}

/**
 * A declaration binds its variable in the innermost frame, to the chain it holds alone or to nothing followed; true
 * where it binds a chain from the template's root (`counted`, in a walk from the root): the chain is then not read.
 */
function bindVariable(action: readonly Item[], stack: Frame[], counted: ((chain: string) => void) | undefined): boolean {
  const frame = stack.at(-1)!;
  const binding = variableBinding(action, frame.dot);
  if (binding) frame.vars.set(binding.name, binding.chain && { chain: binding.chain });
  if (!binding?.chain || !counted || frame.dot !== 'root') return false;
  counted(binding.chain.join('.'));
  return true;
}

/** The words of an action, spaces left out. */
const wordsOf = (tokens: readonly Item[]): Item[] => tokens.filter((t) => t.type !== 'space');
const OPENS = new Set(['with', 'range', 'if', 'define', 'block']);

/** The actions of each `define "name"` (or `block "name"`) of the templates, by name: what an `include` of it runs. */
function definitions(all: readonly Item[][]): Map<string, Item[][]> {
  const out = new Map<string, Item[][]>();
  all.forEach((action, i) => {
    const [head, name] = wordsOf(action);
    if ((head?.type !== 'define' && head?.type !== 'block') || name?.type !== 'string') return;
    const body: Item[][] = [];
    for (let j = i + 1, depth = 1; j < all.length; j++) {
      const first = wordsOf(all[j]!)[0]?.type;
      depth += first && OPENS.has(first) ? 1 : first === 'end' ? -1 : 0;
      if (depth === 0) break;
      body.push(all[j]!);
    }
    out.set(name.val.slice(1, -1), body);
  });
  return out;
}

/**
 * Each `include "name" <arg>` and `template "name" <arg>` of `tokens` whose argument is a values chain alone
 * (`.Values.image`, or the moved dot itself), with the chain: the helper runs with its dot, and its `$`, there; or
 * the root context itself (no chain): the helper reads `.Values` as the root does.
 */
function helperCalls(tokens: readonly Item[], dot: Dot, dollarIsRoot: boolean): { name: string; chain?: string[]; dotItem?: Item }[] {
  const words = wordsOf(tokens);
  const out: { name: string; chain?: string[]; dotItem?: Item }[] = [];
  words.forEach((w, i) => {
    const call = (w.type === 'identifier' && w.val === 'include') || w.type === 'template';
    if (!call || words[i + 1]?.type !== 'string') return;
    const arg: Item[] = [];
    for (let j = i + 2; words[j] && words[j]!.type !== 'rightParen' && words[j]!.type !== 'pipe'; j++) arg.push(words[j]!);
    const name = words[i + 1]!.val.slice(1, -1);
    // The root context handed on (`include "x" .` at the root, `include "x" $`): the helper reads `.Values` itself.
    const bare = arg.length === 1 ? arg[0]! : undefined;
    if ((bare?.type === 'dot' && dot === 'root') || (bare?.type === 'variable' && bare.val === '$' && dollarIsRoot)) return void out.push({ name });
    const chain = bare?.type === 'dot' ? (isChain(dot) ? dot.chain : undefined) : chainAlone(arg, dot);
    if (chain) out.push({ name, chain, dotItem: bare?.type === 'dot' ? bare : undefined });
  });
  return out;
}

/** How deep the values walk follows a helper into the helpers it calls. */
const HELPER_DEPTH = 4;

/** The `with` blocks of a chart's joined templates and what they read; undefined where the lexer stops at an error. */
export function templateScopes(text: string): TemplateScopes | undefined {
  const items = lexTemplate(text);
  if (items.some((item) => item.type === 'error')) return undefined;
  const scopes: TemplateScopes = { opened: new Map(), ranged: new Map(), tested: new Map(), passed: new Map(), bound: new Map(), reads: new Set() };
  const all = actions(items);
  const helpers = definitions(all);
  const followed = new Set<string>();
  const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  // A walk of some actions from a dot: the templates from the root, or a helper's body from the chain it is given.
  const walk = (body: readonly Item[][], start: Dot, depth: number): void => {
    // What a walk from the root names of `.Values` is counted; a helper's walk from a chain reads keys of it alone.
    const fromRoot = start === 'root';
    const stack: Frame[] = [{ kind: 'define', outer: start, dot: start, vars: isChain(start) ? new Map([['$', start]]) : new Map() }];
    const dotNow = (): Dot => stack.at(-1)!.dot;
    const varsNow = (): Vars => new Map(stack.flatMap((f) => [...f.vars]));
    const read = (tokens: readonly Item[], dot: Dot) => {
      const calls = helperCalls(tokens, dot, fromRoot).filter((call) => helpers.has(call.name));
      // A moved dot handed alone to a helper the chart defines is not taken whole: the helper's own reads say what it takes.
      const handed = new Set(calls.flatMap((call) => (call.dotItem ? [call.dotItem] : [])));
      readAll(
        tokens.filter((t) => !handed.has(t)),
        dot,
        { reads: scopes.reads, vars: varsNow() },
      );
      for (const call of calls) {
        // A chain a template hands a helper it defines, from the root, is named as passed; the helper's reads are its keys.
        const helper = helpers.get(call.name)!;
        if (call.chain && dot === 'root' && fromRoot) count(scopes.passed, call.chain.join('.'));
        const key = `${call.name}\u0000${call.chain?.join('.') ?? '<root>'}`;
        // Past the depth followed, a chain is taken whole: what the helper reads is not known.
        if (depth >= HELPER_DEPTH && call.chain) scopes.reads.add(call.chain.join('.'));
        if (depth >= HELPER_DEPTH || followed.has(key)) continue;
        followed.add(key);
        walk(helper, call.chain ? { chain: call.chain } : 'root', depth + 1);
      }
    };
    const open = (kind: Frame['kind'], tokens: Item[], outer: Dot): { dot: Dot; vars: Map<string, Bound> } => {
      const vars = new Map<string, Bound>();
      const { names, pipeline } = kind === 'with' || kind === 'range' ? declaration(tokens) : { names: [], pipeline: tokens };
      const named = kind === 'with' || kind === 'range' ? chainAlone(pipeline, outer) : undefined;
      if (!named) {
        for (const name of names) vars.set(name, null);
        if (kind === 'if' && fromRoot) for (const chain of testedOnly(pipeline, outer)) count(scopes.tested, chain);
        read(pipeline, outer);
        return { dot: kind === 'if' ? outer : 'unknown', vars };
      }
      const key = named.join('.');
      if (fromRoot) count(kind === 'with' ? scopes.opened : scopes.ranged, key);
      // With two variables a range binds the index or key to the first and the element to the last; with one, the element.
      const dot = kind === 'with' ? { chain: named } : { chain: [...named, ELEMENT] };
      if (names.length > 0) vars.set(names.at(-1)!, dot);
      // The list itself is read (an element's own list, `range .paths`, is a key of that element).
      if (kind === 'range') scopes.reads.add(key);
      return { dot, vars };
    };
    for (const action of body) {
      const words = wordsOf(action);
      const head = words[0]?.type;
      const rest = action.slice(action.indexOf(words[0]!) + 1);
      if (head && OPENS.has(head)) {
        const outer = dotNow();
        stack.push({ kind: head as Frame['kind'], outer, ...open(head as Frame['kind'], rest, outer) });
      } else if (head === 'else') {
        const frame = stack.at(-1)!;
        if (stack.length === 1) continue;
        const next = words[1]?.type;
        // `else` turns a with's or a range's dot back to the one outside it; `else with` and `else if` go on from there.
        const base = frame.kind === 'with' || frame.kind === 'range' ? frame.outer : frame.dot;
        const tail = next === 'with' || next === 'if' ? rest.slice(rest.indexOf(words[1]!) + 1) : [];
        // The else branch of a block sees none of the variables its pipeline declared.
        frame.vars = new Map();
        if (next === 'with') {
          Object.assign(frame, open('with', tail, base));
          frame.kind = 'with';
        } else {
          if (next === 'if' && fromRoot) for (const chain of testedOnly(tail, base)) count(scopes.tested, chain);
          read(tail, base);
          frame.dot = base;
        }
      } else if (head === 'end') {
        if (stack.length > 1) stack.pop();
      } else if (!bindVariable(action, stack, fromRoot ? (chain) => count(scopes.bound, chain) : undefined)) read(action, dotNow());
    }
  };
  walk(all, 'root', 0);
  return scopes;
}
