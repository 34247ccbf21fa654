/**
 * Reads Loki's configuration reference (docs/sources/shared/configuration.md, which Loki's tools/doc-generator
 * writes from its config structs by reflection) into the tree of blocks and fields the gate decodes a Loki
 * configuration against (policy-tests/model/loki/reference.ts).
 *
 * The reference's grammar, as the doc-generator writes it:
 *   - `### <block>` opens a block; its last ```yaml fence lists the block's fields (an earlier fence is an example);
 *     the root block is the fence under "Supported contents and default values";
 *   - `[name: <type> | default = …]` is a field; `<type>` a scalar kind, a block's name, `list of <block>s` or
 *     `map of string to <type>`;
 *   - `name:` with lines indented under it is a struct written in place (no block of its own);
 *   - `[<block>]` is an inline struct (`yaml:",inline"`): its fields are the enclosing block's.
 * Fields the doc-generator leaves out (`doc:"hidden"`) are not in it: the catalog lists their names apart.
 */

/** A field's type in the catalog: a scalar kind, `block <name>`, `list of <type>`, `map of <type>`, `any`, or a struct written in place. */
export type FieldType = string | Fields;
export interface Fields {
  [name: string]: FieldType;
}
/** The key under which a block lists the blocks inlined into it. */
export const INLINE_KEY = '<inline>';
/** The key of a struct's inline map: the type of every key it has no field for. */
export const REST_KEY = '<rest>';

export interface Reference {
  root: Fields;
  blocks: Record<string, Fields>;
}

const SCALARS: Readonly<Record<string, string>> = {
  string: 'string',
  int: 'int',
  float: 'float',
  boolean: 'boolean',
  duration: 'duration',
  url: 'string',
  time: 'time',
  daytime: 'daytime',
  'list of strings': 'strings',
};
/** flagext.ByteSize prints as an int whose default reads as bytes (`256KB`, `0B`): it takes `1MB` as well as a number. */
const BYTES_DEFAULT = /^\d+(\.\d+)?[KMGTPE]?i?B$/;

const FIELD = /^(\s*)\[([A-Za-z0-9_-]+): <(.*?)>(?: \| default = (.*))?\]$/;
const INLINE = /^(\s*)\[<([a-z0-9_]+)>\]$/;
/** `[: <type>]`: an inline map (`yaml:",inline"` on a map): every key the struct has no field for lands in it. */
const REST = /^(\s*)\[: <(.*?)>\]$/;
const STRUCT = /^(\s*)([A-Za-z0-9_-]+):$/;

/** The type text of a field in the catalog's words, given the reference's block names. */
export function fieldType(text: string, fallbackDefault: string | undefined, blocks: ReadonlySet<string>): string {
  const scalar = SCALARS[text];
  if (scalar === 'int' && fallbackDefault !== undefined && BYTES_DEFAULT.test(fallbackDefault.trim())) return 'bytes';
  if (scalar) return scalar;
  if (blocks.has(text)) return `block ${text}`;
  const listed = /^list of (.+)s$/.exec(text)?.[1];
  if (listed !== undefined && blocks.has(listed)) return `list of block ${listed}`;
  const mapped = /^map of string to (.+)$/.exec(text)?.[1];
  if (mapped !== undefined) {
    const of = fieldType(mapped, undefined, blocks);
    if (of !== 'any') return `map of ${of}`;
  }
  // A type the doc-generator names but does not list (relabel configs, stream retentions, headers...): not decoded.
  return 'any';
}

/** The body of the last ```yaml fence of a section. */
function lastYamlFence(lines: readonly string[]): string[] | undefined {
  let found: string[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```yaml') continue;
    const end = lines.indexOf('```', i + 1);
    if (end === -1) break;
    found = lines.slice(i + 1, end);
    i = end;
  }
  return found;
}

/** The fence of each `### block` section, and the root's. */
export function sections(markdown: string): { root: string[]; blocks: Map<string, string[]> } {
  const lines = markdown.split('\n');
  const starts = lines.flatMap((line, i) => (/^##+ /.test(line) ? [i] : []));
  let root: string[] | undefined;
  const blocks = new Map<string, string[]>();
  starts.forEach((start, n) => {
    const body = lines.slice(start + 1, starts[n + 1] ?? lines.length);
    const heading = lines[start]!;
    const block = /^### ([a-z0-9_]+)$/.exec(heading)?.[1];
    const fence = lastYamlFence(body);
    if (!fence) return;
    if (block) blocks.set(block, fence);
    else if (/^### Supported contents and default values/.test(heading)) root = fence;
  });
  if (!root) throw new Error('no root block: no "Supported contents and default values" section with a yaml fence');
  return { root, blocks };
}

/** The fields a fence lists, its structs written in place nested by indentation. */
export function parseFence(fence: readonly string[], blocks: ReadonlySet<string>): Fields {
  const top: Fields = {};
  const stack: { indent: number; fields: Fields }[] = [{ indent: -1, fields: top }];
  const at = (indent: number): Fields => {
    while (stack.length > 1 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    return stack[stack.length - 1]!.fields;
  };
  for (const line of fence) {
    if (/^\s*(#|$)/.test(line)) continue;
    const field = FIELD.exec(line);
    const inline = INLINE.exec(line);
    const struct = STRUCT.exec(line);
    const rest = REST.exec(line);
    if (rest) at(rest[1]!.length)[REST_KEY] = fieldType(rest[2]!, undefined, blocks);
    else if (field) at(field[1]!.length)[field[2]!] = fieldType(field[3]!, field[4], blocks);
    else if (inline) {
      const fields = at(inline[1]!.length);
      fields[INLINE_KEY] = [...((fields[INLINE_KEY] as unknown as string[] | undefined) ?? []), inline[2]!] as unknown as FieldType;
    } else if (struct) {
      const fields: Fields = {};
      at(struct[1]!.length)[struct[2]!] = fields;
      stack.push({ indent: struct[1]!.length, fields });
    } else throw new Error(`a line of the reference this reader does not know: ${JSON.stringify(line)}`);
  }
  return urlStructsAsStrings(top);
}

/**
 * prometheus/common's `config.URL` embeds a `*url.URL`, so the doc-generator writes it as a struct of one field `url`;
 * its UnmarshalYAML reads a string (`proxy_url: http://proxy:3128`), as the program does.
 */
function urlStructsAsStrings(fields: Fields): Fields {
  for (const [name, type] of Object.entries(fields)) {
    if (typeof type !== 'object' || Array.isArray(type)) continue;
    const keys = Object.keys(type);
    if (keys.length === 1 && keys[0] === 'url' && type.url === 'string') fields[name] = 'string';
    else urlStructsAsStrings(type);
  }
  return fields;
}

/** The whole reference: the root block's fields and every named block's. */
export function parseReference(markdown: string): Reference {
  const { root, blocks } = sections(markdown);
  const names = new Set(blocks.keys());
  return {
    root: parseFence(root, names),
    blocks: Object.fromEntries([...blocks].map(([name, fence]) => [name, parseFence(fence, names)])),
  };
}

/** A flag's value type in the catalog: what the doc-generator's field type says of the text the flag takes. */
export type FlagType = 'boolean' | 'int' | 'float' | 'duration' | 'bytes' | 'string';
const FLAG_TYPES: ReadonlySet<string> = new Set(['boolean', 'int', 'float', 'duration', 'bytes']);

const CLI_FLAG = /^\s*# CLI flag: (-\S+)$/;
/** A section's list of the `<prefix>` its flags are written under (`- \`ruler.storage\``, after "The supported CLI flags"). */
const PREFIX_ITEM = /^- `([^`]+)`$/;

/** The prefixes a section lists for its `<prefix>` flags: the items after its sentence that names them, up to its fence. */
function sectionPrefixes(body: readonly string[]): string[] {
  const start = body.findIndex((line) => line.includes('The supported CLI flags `<prefix>`'));
  if (start === -1) return [];
  const prefixes: string[] = [];
  for (const line of body.slice(start + 1)) {
    if (line.startsWith('```')) break;
    const item = PREFIX_ITEM.exec(line);
    if (item) prefixes.push(item[1]!);
  }
  return prefixes;
}

/**
 * Every flag the reference names (`# CLI flag: -name` above a field), each `<prefix>` written out for every prefix its
 * section lists, with the type of the field it sets.
 */
export function cliFlags(markdown: string): Record<string, FlagType> {
  const names = new Set(sections(markdown).blocks.keys());
  const lines = markdown.split('\n');
  const starts = lines.flatMap((line, i) => (/^##+ /.test(line) ? [i] : []));
  const flags: Record<string, FlagType> = {};
  starts.forEach((start, n) => {
    const body = lines.slice(start + 1, starts[n + 1] ?? lines.length);
    const prefixes = sectionPrefixes(body);
    for (let i = 0; i < body.length; i++) {
      const flag = CLI_FLAG.exec(body[i]!)?.[1];
      const field = flag && FIELD.exec(body[i + 1] ?? '');
      if (!flag || !field) continue;
      const type = fieldType(field[3]!, field[4], names);
      const typed: FlagType = FLAG_TYPES.has(type) ? (type as FlagType) : 'string';
      const written = flag.includes('<prefix>') ? prefixes.map((p) => flag.replace('<prefix>', p)) : [flag];
      for (const name of written) flags[name] = typed;
    }
  });
  return Object.fromEntries(Object.entries(flags).sort(([a], [b]) => a.localeCompare(b)));
}

export const GO_FLAG_TYPES: Readonly<Record<string, FlagType>> = { Bool: 'boolean', String: 'string', Int: 'int', Duration: 'duration', Float64: 'float' };

/** The string constants a Go source declares one to a line (`name = "text"`, in a `const` block or alone), by name. */
export const goStringConstants = (goSource: string): Map<string, string> =>
  new Map([...goSource.matchAll(/^\s*(?:const\s+)?([A-Za-z_]\w*)\s*=\s*"([^"]+)"/gm)].map((m) => [m[1]!, m[2]!]));

/**
 * The flags `loki.ConfigWrapper.RegisterFlags` adds beside the configuration's (pkg/loki/config_wrapper.go: -version,
 * -verify-config, -config.file...), which no field of the reference sets: each `f.<Type>Var(&c.<field>, <name>` of the
 * source, a name given by a constant of the file read from it.
 */
export function wrapperFlags(goSource: string): Record<string, FlagType> {
  const constants = goStringConstants(goSource);
  const flags: Record<string, FlagType> = {};
  for (const m of goSource.matchAll(/\bf\.(\w+)Var\(&c\.\w+,\s*(?:"([^"]+)"|([A-Za-z_]\w*))/g)) {
    const name = m[2] ?? constants.get(m[3]!);
    const type = GO_FLAG_TYPES[m[1]!];
    if (name === undefined || type === undefined) throw new Error(`a flag of ConfigWrapper this reader does not know: ${m[0]}`);
    flags[`-${name}`] = type;
  }
  if (Object.keys(flags).length === 0) throw new Error('no flag registered in ConfigWrapper.RegisterFlags');
  return flags;
}

/**
 * What a Grafana program's own source registers (Loki's, that the reference may not name: a hidden field's flag; all
 * of Tempo's): from each line of `f.<Type>Var(&cfg.X, "name"`, the whole name; from `f.<Type>Var(&cfg.X,
 * prefix+"name"` or `util.PrefixConfig(prefix, "name")` (Tempo's: prefix, a dot, name), the end of a name (`s3.url`,
 * `.grpc-max-recv-msg-size`) under a prefix only the running program knows.
 */
export function registeredFlags(goLines: readonly string[]): { names: Record<string, FlagType>; endings: string[] } {
  const names: Record<string, FlagType> = {};
  const endings = new Set<string>();
  for (const line of goLines) {
    for (const m of line.matchAll(
      /\bf\.(\w*)Var\([^,]+,\s*(?:"([^"]+)"|[A-Za-z_][\w.]*\s*\+\s*"([^"]+)"|[A-Za-z_][\w.]*PrefixConfig\([^,()]+,\s*"([^"]+)"\))/g,
    )) {
      if (m[2] !== undefined) names[`-${m[2]}`] = GO_FLAG_TYPES[m[1]!] ?? (/^(U?Int(64)?|Uint)$/.test(m[1]!) ? 'int' : 'string');
      const ending = m[3] ?? m[4];
      if (ending !== undefined) endings.add(ending);
    }
  }
  return { names, endings: [...endings].sort() };
}

/** The yaml names of the fields a Go source marks `doc:"hidden"` (an untagged exported field: its name in lower case). */
export function hiddenFieldNames(goSource: string): string[] {
  const names: string[] = [];
  for (const line of goSource.split('\n')) {
    if (!/doc:"hidden"/.test(line)) continue;
    const tagged = /yaml:"([^",]*)/.exec(line)?.[1];
    const name = tagged || /^\s*([A-Z][A-Za-z0-9_]*)\s/.exec(line)?.[1]?.toLowerCase();
    if (name && name !== '-') names.push(name);
  }
  return names;
}

/** Names one to a line, sorted: one text the gate reads at every load, where thousands of entries cost it time. */
export const lines = (names: readonly string[]): string => `${[...names].sort((a, b) => a.localeCompare(b)).join('\n')}\n`;

/** The flags of each type, as lines of names. */
export function byType(flags: Record<string, FlagType>): Partial<Record<FlagType, string>> {
  const types = [...new Set(Object.values(flags))].sort();
  return Object.fromEntries(types.map((type) => [type, lines(Object.keys(flags).filter((name) => flags[name] === type))]));
}
