/**
 * The type declarations of a Go package's source, as far as a reference command needs them to walk a configuration
 * struct by its tags: each `type Name struct { ... }` with its fields (names, type expression, tag), each other named
 * type with its underlying type expression, each type's methods (a decoder calls an UnmarshalText, UnmarshalENV or
 * UnmarshalAlloy before reading the value itself), the package's imports, and the types a function body re-declares
 * (the decoders' alias idiom). Used by unpoller:reference, alloy:reference and the Alloy decoder's conformance rows.
 * It reads declarations as gofmt writes them and refuses what it does not read, rather than walking a struct it
 * misread.
 */

export interface GoField {
  /** Empty for an embedded field, whose name is its type's. */
  names: string[];
  type: string;
  /** The raw tag, without its back quotes. */
  tag: string;
}

export interface GoPackage {
  structs: Map<string, GoField[]>;
  /** Named types that are not structs: `type accounts map[string]string` → `map[string]string`; an interface as `interface`. */
  named: Map<string, string>;
  /** Each type's methods, by name (a pointer receiver's and a value receiver's alike). */
  methods: Map<string, Set<string>>;
  /** The packages the files import, by the name they are used under (an alias, else the path's last part). */
  imports: Map<string, string>;
  /** The types a function body declares over a package type (`type arguments Arguments`, the decoders' idiom), by that type. */
  localAliases: Set<string>;
}

/** The types that have one of `names` among their methods (an unmarshaler a decoder calls before reading a value itself). */
export const typesWithMethod = (pkg: GoPackage, names: readonly string[]): Set<string> =>
  new Set([...pkg.methods].filter(([, m]) => names.some((n) => m.has(n))).map(([t]) => t));

/** The text between `open` (an index of `{`) and its closing brace, skipping strings, raw strings and comments. */
function braceBody(src: string, open: number): string {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') i = src.indexOf('\n', i) === -1 ? src.length : src.indexOf('\n', i);
    else if (c === '/' && src[i + 1] === '*') i = src.indexOf('*/', i + 2) + 1;
    else if (c === '`') i = src.indexOf('`', i + 1);
    else if (c === '"') i = src.slice(i + 1).search(/(?<!\\)"/) + i + 1;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return src.slice(open + 1, i);
    if (i < 0) break;
  }
  throw new Error(`an unclosed brace at offset ${open}`);
}

/** One line of a struct body: `Name, Other Type \`tag\``, or an embedded `*pkg.Type \`tag\``. */
export function goField(line: string): GoField | undefined {
  // A comment ends the line, but not a `//` inside the tag's back quotes: the scan takes the tag whole first.
  const text = line.replace(/`[^`]*`|\/\/.*$/g, (m) => (m.startsWith('//') ? '' : m)).trim();
  if (text === '') return undefined;
  const tagMatch = /`([^`]*)`\s*$/.exec(text);
  const tag = tagMatch ? tagMatch[1]! : '';
  const head = (tagMatch ? text.slice(0, tagMatch.index) : text).trim();
  const embedded = /^\*?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?$/.exec(head);
  if (embedded) return { names: [], type: head, tag };
  const named = /^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+(\S.*)$/.exec(head);
  // An inline interface{} or struct{} is a type a walk treats as opaque; a multi-line one is cut by structFields.
  if (!named || /\{$/.test(named[2]!)) throw new Error(`a struct field this reader does not read: ${line.trim()}`);
  return { names: named[1]!.split(',').map((n) => n.trim()), type: named[2]!.replace(/\s+/g, ''), tag };
}

/** A file with each `type ( ... )` group written as single declarations, so that one pattern reads both. */
const ungrouped = (src: string): string =>
  src.replace(/^type\s*\(\n([\s\S]*?)^\)/gm, (_, body: string) => body.replace(/^\t/gm, '').replace(/^(?=[A-Za-z_]\w*\s)/gm, 'type '));

/** A struct body's fields; a field of an anonymous struct type written over several lines is one field of type `struct{...}`. */
function structFields(body: string): GoField[] {
  const fields: GoField[] = [];
  let depth = 0;
  for (const line of body.split('\n')) {
    const code = line.replace(/`[^`]*`|\/\/.*$|"(?:[^"\\]|\\.)*"/g, (m) => (m.startsWith('//') ? '' : m.startsWith('`') ? '``' : '""'));
    const opens = (code.match(/\{/g) ?? []).length - (code.match(/\}/g) ?? []).length;
    if (depth === 0 && opens > 0) {
      const m = /^\s*([A-Za-z_]\w*)\s+(?:\[\])?\*?struct\s*\{/.exec(code);
      if (!m) throw new Error(`a struct field this reader does not read: ${line.trim()}`);
      fields.push({ names: [m[1]!], type: 'struct{...}', tag: '' });
    } else if (depth === 0) {
      const field = goField(line);
      if (field) fields.push(field);
    } else if (depth + opens === 0) {
      // The closing line of an anonymous struct carries the field's tag.
      const tag = /`([^`]*)`/.exec(line)?.[1];
      if (tag !== undefined) fields.at(-1)!.tag = tag;
    }
    depth += opens;
  }
  return fields;
}

/** The imports of a file: `alias "path"`, or `"path"` under its last part. */
function importsOf(src: string): [string, string][] {
  const block = /^import\s*\(([\s\S]*?)^\)/m.exec(src)?.[1] ?? '';
  const single = [...src.matchAll(/^import\s+((?:[\w.]+\s+)?"[^"]+")/gm)].map((m) => m[1]!);
  return [...block.split('\n'), ...single].flatMap((line) => {
    const m = /^\s*(?:([\w.]+)\s+)?"([^"]+)"/.exec(line.replace(/\/\/.*$/, ''));
    if (!m || m[1] === '_' || m[1] === '.') return [];
    return [[m[1] ?? m[2]!.split('/').at(-1)!, m[2]!]];
  });
}

/** The declarations of one package, from the text of each of its (non-test) files. */
export function goPackage(files: readonly string[]): GoPackage {
  const pkg: GoPackage = { structs: new Map(), named: new Map(), methods: new Map(), imports: new Map(), localAliases: new Set() };
  for (const file of files) {
    const src = ungrouped(file);
    for (const m of src.matchAll(/^type\s+([A-Za-z_]\w*)(?:\[[^\]]*\])?\s+struct\s*\{/gm))
      pkg.structs.set(m[1]!, structFields(braceBody(src, m.index + m[0].length - 1)));
    for (const m of src.matchAll(/^type\s+([A-Za-z_]\w*)\s+=?\s*(?!struct\b)(interface\b|[^\s{]+)/gm)) pkg.named.set(m[1]!, m[2]!);
    for (const m of src.matchAll(/^func\s+\(\w*\s*\*?([A-Za-z_]\w*)(?:\[[^\]]*\])?\)\s+([A-Za-z_]\w*)\(/gm)) {
      const set = pkg.methods.get(m[1]!) ?? new Set<string>();
      pkg.methods.set(m[1]!, set.add(m[2]!));
    }
    for (const [name, path] of importsOf(file)) pkg.imports.set(name, path);
    for (const m of file.matchAll(/^\t+type\s+[A-Za-z_]\w*\s+([A-Za-z_]\w*)\s*$/gm)) pkg.localAliases.add(m[1]!);
  }
  return pkg;
}

/** The first part of a struct tag's `key`: `xml:"disable,attr"` → `disable`; undefined without the key. */
export function tagName(tag: string, key: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${key}:"([^"]*)"`).exec(tag);
  return m ? m[1]!.split(',')[0]! : undefined;
}

/**
 * A struct declaration with each anonymous struct field (`Key struct { ... } \`tag\``) hoisted into a named type of its
 * own (`Key Parent_Key \`tag\``), so that the Go reader, which names no anonymous struct, walks it as a struct.
 */
export function hoistAnonymousStructs(declaration: string): string[] {
  const name = /^type\s+(\w+)\s+struct\s*\{/.exec(declaration)?.[1];
  if (!name) return [declaration];
  const hoisted: string[] = [];
  const body = declaration.replace(/^(\t+)(\w+)\s+struct\s*\{\n([\s\S]*?)^\1\}/gm, (_all, indent: string, field: string, inner: string) => {
    const type = `${name}_${field}`;
    hoisted.push(...hoistAnonymousStructs(`type ${type} struct {\n${inner.replace(new RegExp(`^${indent}`, 'gm'), '')}}`));
    return `${indent}${field} ${type}`;
  });
  return [body, ...hoisted];
}
