/**
 * What Alloy v1.18.1's decoder refuses of a component's body before any value is evaluated
 * (syntax/vm/struct_decoder.go's Decode, decodeAttr, decodeNormalBlock and decodeEnumBlock, and vm.go's
 * evaluateBlockLabel), against the schemas of the reference the repository keeps (each struct's attributes and
 * blocks by their `alloy` tags): an attribute or block the struct has no field for, one used as the other kind, an
 * attribute given twice, a block that is no list given twice, a nested block's label it takes or refuses (a block read
 * as a map takes none, and no block inside it), and a required attribute or block missing; and a constant value an
 * attribute's type does not take, as evaluate.ts works the value out and values.ts decodes it; and, for a body whose
 * type runs code of its own on it, what that code refuses (validators.ts: its Validate). Each in Alloy's words. What
 * the gate cannot tell (a value it does not work out, a type's code it has not ported) is collected as unjudged.
 */
import { attributeNamed, type AlloyStatement } from './parser.ts';
import { decodeProblems, type AlloySchemas, type Unjudged } from './values.ts';
import { evaluate, type EvalScope, type Evaluated } from './evaluate.ts';
import { ownValidation, type Fields } from './validators.ts';

export type { AlloySchema, AlloySchemas } from './values.ts';

export interface ArgumentProblem {
  line: number;
  message: string;
}

/**
 * How a body's values are read: the scope its expressions read (a component's exports; none by default: a reference
 * is not worked out), where to collect what is not judged, and the line of the block the body is (for what its
 * type's own code says of the whole).
 */
export interface DecodeOptions {
  scope?: EvalScope;
  unjudged?: Unjudged[];
  line?: number;
}

const NO_NODES: EvalScope = { nodeValue: () => undefined };

/** A body's attributes as evaluated (each once) and its blocks by name, as a type's own code reads them. */
function fieldsOf(body: readonly AlloyStatement[], scope: EvalScope): Fields {
  const values = new Map<string, Evaluated>();
  return {
    attr(name) {
      const s = attributeNamed(body, name);
      if (!s) return undefined;
      if (!values.has(name)) values.set(name, evaluate(s.value, scope));
      return values.get(name);
    },
    block(name) {
      const b = body.find((x) => x.kind === 'block' && x.name.join('.') === name);
      return b?.kind === 'block' ? fieldsOf(b.body, scope) : undefined;
    },
  };
}

interface Field {
  kind: 'attr' | 'block' | 'blocks' | 'enum';
  required: boolean;
  schema: string | undefined;
}

function fieldOf(text: string | undefined): Field | undefined {
  if (text === undefined) return undefined;
  const [kind, ...rest] = text.split(' ');
  const required = rest[0] === 'required';
  const schema = rest.filter((r) => r !== 'required')[0];
  return { kind: kind as Field['kind'], required, schema: schema === 'opaque' ? undefined : schema };
}

/**
 * The problems of one block decoded into the schema `id` (vm.go's evaluateBlockOrBody): its label first
 * (evaluateBlockLabel; a block read as a map, evaluateMap, takes none and holds attributes alone), then its body; a
 * problem of the body that has no line of its own (a required one missing) is the block's.
 */
export function blockProblems(block: AlloyStatement & { kind: 'block' }, id: string, schemas: AlloySchemas, o: DecodeOptions = {}): ArgumentProblem[] {
  const name = block.name.join('.');
  if (id === 'map') {
    if (block.label !== '') return [{ line: block.line, message: `block "${name}" requires empty label` }];
    return block.body.filter((x) => x.kind === 'block').map((n) => ({ line: n.line, message: 'nested blocks not supported here' }));
  }
  const takesLabel = schemas[id]?.['(label)'] !== undefined;
  if (takesLabel && block.label === '') return [{ line: block.line, message: `block "${name}" requires non-empty label` }];
  if (!takesLabel && block.label !== '') return [{ line: block.line, message: `block "${name}" does not support specifying labels` }];
  return argumentProblems(block.body, id, schemas, { ...o, line: block.line }).map((p) => (p.line < 0 ? { ...p, line: block.line } : p));
}

/**
 * The problems of a body decoded into the schema `id`, nested blocks included. `open` schemas (one squashed a type
 * the reference could not read) leave unknown names alone; a block of an opaque type (a map, a type with its own
 * decoder) is not looked into.
 */
export function argumentProblems(body: readonly AlloyStatement[], id: string, schemas: AlloySchemas, o: DecodeOptions = {}): ArgumentProblem[] {
  const schema = schemas[id];
  const scope = o.scope ?? NO_NODES;
  if (!schema) return [];
  const open = schema['(open)'] !== undefined;
  const problems: ArgumentProblem[] = [];
  const counts = new Map<string, number>();
  for (const s of body) if (s.kind === 'block') counts.set(s.name.join('.'), (counts.get(s.name.join('.')) ?? 0) + 1);
  const seen = new Set<string>();
  for (const s of body) {
    const name = s.kind === 'block' ? s.name.join('.') : s.name;
    const field = fieldOf(schema[name]);
    if (s.kind === 'attribute') {
      if (seen.has(`attr ${name}`)) problems.push({ line: s.line, message: `attribute "${name}" may only be provided once` });
      else if (!field) {
        if (!open) problems.push({ line: s.line, message: `unrecognized attribute name "${name}"` });
      } else if (field.kind !== 'attr') problems.push({ line: s.line, message: `"${name}" must be a block, but is used as an attribute` });
      else if (field.schema) {
        const decoded = decodeProblems(evaluate(s.value, scope), field.schema, schemas);
        problems.push(...decoded.problems);
        o.unjudged?.push(...decoded.unjudged);
      }
      seen.add(`attr ${name}`);
      continue;
    }
    const first = !seen.has(`block ${name}`);
    seen.add(`block ${name}`);
    if (!field) {
      if (!open) problems.push({ line: s.line, message: `unrecognized block name "${name}"` });
      continue;
    }
    if (field.kind === 'attr') {
      problems.push({ line: s.line, message: `"${name}" must be an attribute, but is used as a block` });
      continue;
    }
    if (field.kind === 'block' && counts.get(name)! > 1 && first) problems.push({ line: s.line, message: `block "${name}" may only be specified once` });
    if (field.schema) problems.push(...blockProblems(s, field.schema, schemas, o));
  }
  for (const [name, text] of Object.entries(schema)) {
    const field = fieldOf(text);
    if (!field?.required || field.kind === 'enum') continue;
    const kind = field.kind === 'attr' ? 'attr' : 'block';
    if (!seen.has(`${kind} ${name}`)) problems.push({ line: -1, message: `missing required ${kind === 'attr' ? 'attribute' : 'block'} "${name}"` });
  }
  // The type's own code runs once the body decodes (evaluateBlockOrBody: SetToDefault, the decode, Validate).
  const runs = schema['(runs)'];
  if (runs === undefined || problems.length > 0) return problems;
  const own = ownValidation(id, fieldsOf(body, scope));
  const line = o.line ?? -1;
  if (own === 'unported') o.unjudged?.push({ line, why: `what ${id}'s own ${runs} refuses` });
  else if (own && 'refused' in own) problems.push({ line: -1, message: own.refused });
  else if (own) o.unjudged?.push({ line, why: `what ${id}'s own ${runs} refuses: ${own.unread}` });
  return problems;
}
