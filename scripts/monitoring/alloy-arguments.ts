/**
 * The arguments each Alloy component takes, read from Alloy's source as its decoder reads a block into the component's
 * Arguments struct (syntax/internal/syntaxtags: each field's `alloy:"name,flags"` tag; syntax/internal/tagcache: an
 * enum's blocks named `<enum>.<block>`; syntax/vm/struct_decoder.go: what a body may hold). Each struct becomes a
 * schema: its attributes and blocks by name, which are required, which blocks may repeat (a slice or an array), the
 * schema of each block, and whether it takes a label. A struct with its own UnmarshalAlloy is read as the struct it
 * hands the decoder when that is an alias of itself (`type arguments Arguments`), else opaque; so is a map, an
 * interface, or a type of another module.
 */
import type { GoField, GoPackage } from '../lib/go-structs.ts';

const MODULE = 'github.com/grafana/alloy/';

/** A schema's fields: `attr`, `attr required`, `block <schema>`, `blocks <schema>` (repeatable), `enum <schema>`, with `required` after the kind; a block's schema may be `map` or `opaque`. */
export type Schema = Record<string, string>;

export interface ArgumentsWalk {
  /** A package of the module by its folder, read once; undefined where the folder holds no Go package. */
  load: (dir: string) => Promise<GoPackage | undefined>;
  schemas: Map<string, Schema>;
}

/** The package folder and type name a type expression names from `dir`, or undefined for another module's or a builtin. */
async function resolve(w: ArgumentsWalk, dir: string, type: string): Promise<{ dir: string; name: string } | undefined> {
  const bare = type.replace(/^(?:\*|\[\d*\])+/, '');
  const qualified = /^([A-Za-z_]\w*)\.([A-Za-z_]\w*)$/.exec(bare);
  if (!qualified) return /^[A-Z]\w*$|^[a-z]\w*$/.test(bare) ? { dir, name: bare } : undefined;
  const path = (await w.load(dir))?.imports.get(qualified[1]!);
  return path?.startsWith(MODULE) ? { dir: path.slice(MODULE.length), name: qualified[2]! } : undefined;
}

interface AlloyTag {
  name: string;
  flags: Set<string>;
}

const alloyTag = (field: GoField): AlloyTag | undefined => {
  const raw = /(?:^|\s)alloy:"([^"]*)"/.exec(field.tag)?.[1];
  if (raw === undefined || raw === '-') return undefined;
  const [name, ...flags] = raw.split(',');
  return { name: name!, flags: new Set(flags) };
};

/** The struct a type's decoder fills: itself, or for one with its own UnmarshalAlloy the alias of it the package declares. */
function decodedFields(pkg: GoPackage, name: string): GoField[] | undefined {
  const fields = pkg.structs.get(name);
  if (!pkg.methods.get(name)?.has('UnmarshalAlloy')) return fields;
  return pkg.localAliases.has(name) || [...pkg.named.values()].includes(name) ? fields : undefined;
}

/** The schema id of a block's type (`<folder>.<Type>`), walking it on first sight; `map` for a map or an `any` (read as one); or `opaque`. */
export async function schemaOf(w: ArgumentsWalk, dir: string, type: string): Promise<string> {
  if (/^(?:\*|\[\d*\])*(?:map\[|any$|interface\{\}$)/.test(type)) return 'map';
  const target = await resolve(w, dir, type);
  if (!target) return 'opaque';
  const id = `${target.dir}.${target.name}`;
  if (w.schemas.has(id)) return id;
  const pkg = await w.load(target.dir);
  let fields = pkg && decodedFields(pkg, target.name);
  if (pkg && !fields && !pkg.structs.has(target.name)) {
    // A named type over another struct (`type Arguments otelcol.Config`) decodes as that struct.
    const underlying = pkg.named.get(target.name);
    if (underlying && /^map\[/.test(underlying)) return 'map';
    return underlying && !/^(?:interface|func|chan )/.test(underlying) ? schemaOf(w, target.dir, underlying) : 'opaque';
  }
  if (!fields) return 'opaque';
  const schema: Schema = {};
  w.schemas.set(id, schema);
  // Code of the type's own runs on every value decoded into it (vm.go's evaluateBlockOrBody, decode.go): its Validate
  // after the decode, or its UnmarshalAlloy in place of it. The gate judges what it runs only where it ports it.
  const own = ['UnmarshalAlloy', 'Validate'].find((m) => pkg!.methods.get(target.name)?.has(m));
  if (own) schema['(runs)'] = own;
  for (const field of fields) await addField(w, { dir: target.dir, schema }, field);
  return id;
}

async function addField(w: ArgumentsWalk, at: { dir: string; schema: Schema }, field: GoField): Promise<void> {
  const tag = alloyTag(field);
  if (!tag) return;
  const required = tag.flags.has('optional') ? '' : ' required';
  const { schema, dir } = at;
  if (tag.flags.has('label')) schema['(label)'] = 'label';
  else if (tag.flags.has('squash')) {
    const inner = await schemaOf(w, dir, field.type);
    if (inner === 'opaque') schema['(open)'] = 'open';
    // A squashed struct's own Validate is not called for it: only where the outer one's calls it.
    else for (const [name, kind] of Object.entries(w.schemas.get(inner) ?? {})) if (name !== '(runs)') schema[name] = kind;
  } else if (tag.flags.has('attr')) schema[tag.name] = `attr${required} ${await attrType(w, dir, field.type)}`;
  else if (tag.flags.has('block')) {
    const many = /^\[\d*\]/.test(field.type);
    schema[tag.name] = `${many ? 'blocks' : 'block'}${required} ${await schemaOf(w, dir, field.type)}`;
  } else if (tag.flags.has('enum')) {
    const members = await schemaOf(w, dir, field.type);
    for (const [name, kind] of Object.entries(w.schemas.get(members) ?? {}))
      if (kind.startsWith('block')) schema[`${tag.name}.${name}`] = `enum ${kind.split(' ').at(-1)}`;
  }
}

const NUMBER = /^(?:u?int(?:8|16|32|64)?|float(?:32|64)|byte|rune|uintptr)$/;
const ALLOYTYPES = `${MODULE}syntax/alloytypes`;

/**
 * What an attribute's Go type takes, as syntax/internal/value's decoder reads a value into it: `string`, `number`,
 * `bool`, `duration` (time.Duration: the value as text, then time.ParseDuration), `text(<type>)` (an
 * encoding.TextUnmarshaler: the value as text, then its own parse), `secret` (alloytypes' Secret and OptionalSecret, which take a string),
 * `list(<type>)`, `map` (an object), `object(<schema>)` (an object decoded into a struct's fields by their tags),
 * `any`; `opaque(<type>)` where the decoder's rule is the type's own (UnmarshalAlloy, a capsule, an interface) or the
 * type is another module's, named by its package path (bare `opaque` where it has none).
 */
export async function attrType(w: ArgumentsWalk, dir: string, type: string): Promise<string> {
  const bare = type.replace(/^\*+/, '');
  if (bare === '[]byte') return 'string';
  if (/^\[\d*\]/.test(bare)) return `list(${await attrType(w, dir, bare.replace(/^\[\d*\]/, ''))})`;
  if (/^map\[string\]/.test(bare)) return 'map';
  if (bare === 'string' || bare === 'bool') return bare;
  if (NUMBER.test(bare)) return 'number';
  if (bare === 'any' || bare === 'interface{}') return 'any';
  const qualified = /^([A-Za-z_]\w*)\.([A-Za-z_]\w*)$/.exec(bare);
  const path = qualified ? (await w.load(dir))?.imports.get(qualified[1]!) : undefined;
  if (path === 'time' && qualified![2] === 'Duration') return 'duration';
  if (path === ALLOYTYPES && (qualified![2] === 'Secret' || qualified![2] === 'OptionalSecret')) return 'secret';
  const target = await resolve(w, dir, bare);
  const pkg = target && (await w.load(target.dir));
  // An opaque type is named, so that a value of it (a component's export) is known to decode into it.
  if (!target) return path ? `opaque(${path}.${qualified![2]})` : 'opaque';
  const named = `opaque(${target.dir}.${target.name})`;
  if (!pkg) return named;
  const methods = pkg.methods.get(target.name) ?? new Set<string>();
  // decodeFromInterface runs before any conversion: the type's own decoder or text parse wins over its kind.
  if (methods.has('UnmarshalAlloy') || methods.has('AlloyCapsule')) return named;
  if (methods.has('UnmarshalText')) return `text(${target.dir}.${target.name})`;
  if (pkg.structs.has(target.name)) {
    const schema = await schemaOf(w, dir, bare);
    return schema === 'opaque' ? named : schema === 'map' ? schema : `object(${schema})`;
  }
  const underlying = pkg.named.get(target.name);
  return underlying && !/^(?:interface|func|chan )/.test(underlying) ? attrType(w, target.dir, underlying) : named;
}

/** The Args type of a `component.Register(component.Registration{...})` body: `Arguments`, `otelcol.Arguments`. */
export const registeredArgs = (body: string): string | undefined => /\bArgs:\s*&?([\w.]+)\{/.exec(body)?.[1];

/**
 * The Exports type of a registration body (`Exports{}`, `discovery.Exports{}`); `nil` where it exports nothing (nil,
 * or no Exports at all: the field's zero value); undefined where a variable gives it.
 */
export const registeredExports = (body: string): string | undefined =>
  !/\bExports:/.test(body) || /\bExports:\s*nil\b/.test(body) ? 'nil' : /\bExports:\s*&?([\w.]+)\{/.exec(body)?.[1];

/**
 * Every component's arguments schema and its exports' (the struct its exports encode from, each field by its
 * `alloy` name; `none` where it exports nothing; absent where the registration names no type), and the schemas they reach.
 */
export async function componentArguments(
  w: ArgumentsWalk,
  registered: readonly { name: string; dir: string; args?: string; exports?: string }[],
): Promise<{ components: Record<string, string>; exports: Record<string, string>; schemas: Record<string, Schema> }> {
  const components: Record<string, string> = {};
  const exports: Record<string, string> = {};
  for (const r of [...registered].sort((a, b) => a.name.localeCompare(b.name))) {
    components[r.name] = r.args ? await schemaOf(w, r.dir, r.args) : 'opaque';
    if (r.exports) exports[r.name] = r.exports === 'nil' ? 'none' : await schemaOf(w, r.dir, r.exports);
  }
  const used = new Set([...Object.values(components), ...Object.values(exports)]);
  const reach = (id: string) => {
    for (const kind of Object.values(w.schemas.get(id) ?? {}))
      // A block's schema is its last word; an attribute's struct type names one inside object(...).
      for (const ref of [kind.split(' ').at(-1)!, ...[...kind.matchAll(/object\(([^()]+)\)/g)].map((m) => m[1]!)])
        if (w.schemas.has(ref) && !used.has(ref)) reach(used.add(ref) && ref);
  };
  for (const id of [...used]) reach(id);
  return { components, exports, schemas: Object.fromEntries([...w.schemas].filter(([id]) => used.has(id)).sort(([a], [b]) => a.localeCompare(b))) };
}
