/**
 * The references of an Alloy configuration, as Alloy v1.18.1 wires and evaluates them at load: each block's
 * traversals (internal/util/ast/references.go's walker: an identifier and the field names after it, cut by an index or
 * a call), each resolved to the node whose ID is its shortest prefix that names one (ResolveTraversal: a component's
 * name and label, a config block's, a service's), else to an identifier of the standard library
 * (internal/runtime/internal/controller/component_references.go); none is "does not exist or is out of scope". An
 * experimental function below the stability level is refused; a field the node's exports, or a namespace of the
 * standard library, does not have fails its evaluation (syntax/vm: "field does not exist"); references that form a
 * cycle, or a block that references itself, fail the graph's validation (internal/dag/ops.go). Each stops the load.
 * `declare` bodies are templates, judged where they are instantiated (not here); a `foreach` body is only linked (its
 * template is evaluated per item, and Alloy ignores there what it cannot link).
 */
import { attributeNamed, blocksNamed, type AlloyExpr, type AlloyStatement } from './parser.ts';
import { chain, type EvalScope } from './evaluate.ts';
import { STABILITY_LEVELS, type AlloyComponents, type Stability } from './components.ts';

/** A traversal: an identifier and the fields accessed after it, with the identifier's line. */
export interface Traversal {
  names: string[];
  line: number;
}

/** Every traversal of a body, nested blocks included, as TraversalsFromBody walks it. */
export function bodyTraversals(body: readonly AlloyStatement[]): Traversal[] {
  const out: Traversal[] = [];
  let current: Traversal | undefined;
  const flush = () => {
    if (current) out.push(current);
    current = undefined;
  };
  const walk = (e: AlloyExpr): void => {
    switch (e.kind) {
      case 'identifier':
        // An identifier always starts a new traversal.
        flush();
        current = { names: [e.name], line: e.line };
        return;
      case 'access':
        walk(e.value);
        // Only a traversal being built takes the field: `a().b` adds nothing.
        current?.names.push(e.name);
        return;
      case 'index':
        walk(e.value);
        flush();
        walk(e.index);
        return;
      case 'call':
        walk(e.value);
        flush();
        e.args.forEach(walk);
        return;
      case 'other':
        e.parts.forEach(walk);
    }
  };
  const statements = (s: readonly AlloyStatement[]) => {
    for (const st of s) {
      if (st.kind === 'attribute') walk(st.value);
      else statements(st.body);
    }
  };
  statements(body);
  flush();
  return out;
}

/** A top-level block's node ID: its name and its label. */
export const nodeId = (b: { name: readonly string[]; label: string }): string => [...b.name, ...(b.label ? [b.label] : [])].join('.');

/**
 * The scope an expression of the file reads (evaluate.ts): a traversal of a component's export has the type the
 * reference gives the field (discovery.kubernetes' `targets` a list of discovery.Target); a traversal deeper than the
 * field, or of a node whose exports the reference does not type (a config block, a service, a declared component),
 * is not worked out.
 */
export function exportScope(body: readonly AlloyStatement[], ref: AlloyComponents): EvalScope {
  const nodes = new Map<string, string | undefined>(ref.services.map((s) => [s, undefined]));
  for (const b of body) if (b.kind === 'block') nodes.set(nodeId(b), b.label ? b.name.join('.') : undefined);
  return {
    nodeValue(names) {
      const at = names.findIndex((_, i) => nodes.has(names.slice(0, i + 1).join('.')));
      if (at === -1) return undefined;
      const target = names.slice(0, at + 1).join('.');
      const component = nodes.get(target);
      const exports = component === undefined ? undefined : ref.components[component]?.exports;
      const field = exports === undefined || exports === 'none' ? undefined : ref.schemas[exports]?.[names[at + 1] ?? ''];
      const type = field?.startsWith('attr') ? field.split(' ').filter((w) => w !== 'required')[1] : undefined;
      if (type === undefined || names.length > at + 2) return { why: `${names.join('.')}, a value of ${target} the reference does not type` };
      return { type };
    },
  };
}

/** Which fields a schema has, or undefined where it may have any (opaque, a map, an open struct). */
function fieldsOf(ref: AlloyComponents, schema: string | undefined): ReadonlySet<string> | undefined {
  const s = schema === undefined ? undefined : ref.schemas[schema];
  if (!s || '(open)' in s) return undefined;
  return new Set(Object.keys(s).filter((k) => !k.startsWith('(')));
}

/**
 * Why Alloy cannot load a configuration's references (each with its line): a traversal that names no node and no
 * identifier of the standard library, an experimental function below the stability level, a field the exports of a
 * registered component or a namespace of the standard library does not have, a cycle or a self reference. Judged
 * only where the reference holds the standard library (else undefined: the references are not judged).
 */
export function referenceProblems(
  body: readonly AlloyStatement[],
  ref: AlloyComponents,
  o: { minStability: Stability },
): { line: number; message: string }[] | undefined {
  const stdlib = ref.stdlib;
  if (!stdlib) return undefined;
  const blocks = body.flatMap((s) => (s.kind === 'block' ? [s] : []));
  // The nodes: every block's (each block once: a duplicate is refused as such), and every service's, blocks or not.
  const nodes = new Map<string, { component?: string }>(ref.services.map((s) => [s, {}]));
  for (const b of blocks) nodes.set(nodeId(b), { component: b.label ? b.name.join('.') : undefined });
  const problems: { line: number; message: string }[] = [];
  const edges = new Map<string, Set<string>>();
  for (const b of blocks) {
    const name = b.name.join('.');
    if (name === 'declare') continue;
    const from = nodeId(b);
    const foreach = name === 'foreach';
    for (const t of bodyTraversals(b.body)) {
      const at = t.names.findIndex((_, i) => nodes.has(t.names.slice(0, i + 1).join('.')));
      const head = t.names[0]!;
      const library = stdlib.identifiers[head];
      if (foreach) {
        if (at !== -1) edges.set(from, (edges.get(from) ?? new Set()).add(t.names.slice(0, at + 1).join('.')));
        continue;
      }
      if (at === -1 && library === undefined) {
        problems.push({ line: t.line, message: `component "${t.names.join('.')}" does not exist or is out of scope` });
        continue;
      }
      if (at !== -1) {
        const target = t.names.slice(0, at + 1).join('.');
        edges.set(from, (edges.get(from) ?? new Set()).add(target));
        const problem = exportProblem(ref, { target, component: nodes.get(target)!.component, field: t.names[at + 1] });
        if (problem) problems.push({ line: t.line, message: problem });
        continue;
      }
      const full = t.names.join('.');
      if (stdlib.experimental.includes(full) && STABILITY_LEVELS.indexOf(o.minStability) > STABILITY_LEVELS.indexOf('experimental'))
        problems.push({
          line: t.line,
          message: `${full} is at stability level "experimental", which is below the minimum allowed stability level "${o.minStability}". Use --stability.level command-line flag to enable "experimental" features`,
        });
      else if (Array.isArray(library) && t.names[1] !== undefined && !library.includes(t.names[1]))
        problems.push({ line: t.line, message: `field "${t.names[1]}" does not exist (the standard library's ${head} holds ${library.join(', ')})` });
    }
  }
  const lineOf = (id: string) => blocks.find((b) => nodeId(b) === id)?.line ?? 1;
  for (const cycle of cycles(edges)) problems.push({ line: lineOf(cycle[0]!), message: `cycle: ${cycle.join(', ')}` });
  for (const [from, to] of edges) if (to.has(from)) problems.push({ line: lineOf(from), message: `self reference: ${from}` });
  return problems;
}

/** Why reading `field` of a registered component's exports fails, or undefined. */
function exportProblem(ref: AlloyComponents, r: { target: string; component: string | undefined; field: string | undefined }): string | undefined {
  const exports = r.component === undefined ? undefined : ref.components[r.component]?.exports;
  if (r.field === undefined || exports === undefined) return undefined;
  if (exports === 'none') return `${r.target} exports nothing: its value is null, which has no field "${r.field}"`;
  const fields = fieldsOf(ref, exports);
  return fields && !fields.has(r.field)
    ? `field "${r.field}" does not exist (${r.component} exports ${[...fields].sort().join(', ') || 'no field'})`
    : undefined;
}

/** The strongly connected components of more than one node (Tarjan's), each by its nodes' IDs. */
function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

type Block = ReturnType<typeof blocksNamed>[number];

/**
 * The discovery a source's targets come from, straight or through `discovery.relabel`s (each hop's `output` read from
 * its own `targets`), with those relabellings in the order the targets pass them; undefined where another component
 * stands between them. A relabelling keeps or changes targets, never adds a pod: the discovery decides which exist.
 */
export function targetsPath(body: readonly AlloyStatement[], targets: AlloyExpr | undefined): { discovery: Block; relabels: Block[] } | undefined {
  const relabels: Block[] = [];
  let names = targets ? chain(targets)?.names.join('.') : undefined;
  // Bounded by the file's blocks: relabellings that feed each other in a circle lead to no discovery.
  for (let hop = 0; hop <= body.length && names !== undefined; hop++) {
    const discovery = blocksNamed(body, 'discovery.kubernetes').find((d) => names === `discovery.kubernetes.${d.label}.targets`);
    if (discovery) return { discovery, relabels: relabels.reverse() };
    const relabel = blocksNamed(body, 'discovery.relabel').find((r) => names === `discovery.relabel.${r.label}.output`);
    if (!relabel) return undefined;
    relabels.push(relabel);
    const next = attributeNamed(relabel.body, 'targets')?.value;
    names = next ? chain(next)?.names.join('.') : undefined;
  }
  return undefined;
}
