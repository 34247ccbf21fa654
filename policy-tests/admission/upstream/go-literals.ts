/**
 * The part of Go that Kubernetes' test tables are written in, read as data:
 * literals (strings, raw strings, runes, numbers, true, false, nil),
 * composite literals (`map[K]V{...}`, `[]T{...}`, `T{...}`, and untyped
 * `{...}` inside them), calls and methods called on their results, `&x`, unary minus, `+ - * /`, and selectors
 * (`math.MaxInt64`). A call or an identifier is resolved by the caller's
 * environment; anything else is a GoUnsupported error, so a table entry
 * this reader cannot follow is counted apart, never guessed.
 */

export class GoUnsupported extends Error {}

type Token = { kind: 'ident' | 'number' | 'string' | 'punct'; text: string; value?: unknown };

const PUNCT = ['...', '&&', '||', '==', '!=', '<=', '>=', ':=', '{', '}', '(', ')', '[', ']', ',', ':', '&', '*', '+', '-', '/', '.', '!', '<', '>', '=', '%'];
/** With `bitwise`, the shifts and `|` too (robfig/cron's tables build bit sets so); without, they stay unread as before. */
const BITWISE_PUNCT = ['<<', '>>', ...PUNCT, '|'];

const GO_ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };

/** A Go interpreted string's value: each escape read once, left to right (`\\a` is a backslash and an a, not a bell). */
function unquoteGo(text: string): string {
  return text.slice(1, -1).replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g, (_, e: string) => {
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]{3}$/.test(e)) return String.fromCodePoint(parseInt(e, 8));
    const c = GO_ESCAPES[e];
    if (c === undefined) throw new GoUnsupported(`unknown escape \\${e}`);
    return c;
  });
}

/** A Go string literal's value: a raw one as written, an interpreted one unquoted as Go unquotes it. */
export const goStringValue = (literal: string): string => (literal.startsWith('`') ? literal.slice(1, -1) : unquoteGo(literal));

export function tokenize(src: string, { bitwise = false }: { bitwise?: boolean } = {}): Token[] {
  const punct = bitwise ? BITWISE_PUNCT : PUNCT;
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) i++;
    else if (src.startsWith('//', i)) i = src.indexOf('\n', i) === -1 ? src.length : src.indexOf('\n', i);
    else if (src.startsWith('/*', i)) i = src.indexOf('*/', i) + 2;
    else if (c === '`') {
      const end = src.indexOf('`', i + 1);
      out.push({ kind: 'string', text: src.slice(i, end + 1), value: src.slice(i + 1, end) });
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      out.push({ kind: 'string', text: src.slice(i, j + 1), value: unquoteGo(src.slice(i, j + 1)) });
      i = j + 1;
    } else if (c === "'") {
      let j = i + 1;
      while (src[j] !== "'") j += src[j] === '\\' ? 2 : 1;
      out.push({ kind: 'number', text: src.slice(i, j + 1), value: unquoteGo(`"${src.slice(i + 1, j)}"`).codePointAt(0) });
      i = j + 1;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(0[xX][0-9a-fA-F_]+|[0-9_]*\.?[0-9_]*(?:[eE][+-]?[0-9]+)?)/.exec(src.slice(i))!;
      const text = m[1]!.replace(/_/g, '');
      const isFloat = /[.eE]/.test(text) && !/^0[xX]/.test(text);
      const value = isFloat ? Number(text) : BigInt(text);
      out.push({ kind: 'number', text, value });
      i += m[1]!.length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ kind: 'ident', text: m[0] });
      i += m[0].length;
    } else {
      const p = punct.find((x) => src.startsWith(x, i));
      if (!p) throw new GoUnsupported(`unexpected character ${c}`);
      out.push({ kind: 'punct', text: p });
      i += p.length;
    }
  }
  return out;
}

/** How a name or call is resolved: identifiers (math.MaxInt64 spelt whole), and functions by their whole name. */
export interface GoEnvironment {
  value(name: string): unknown;
  call(name: string, args: unknown[]): unknown;
}

/** A Go composite literal as data: keyed elements become an object, unkeyed ones an array. */
export class GoParser {
  private pos = 0;
  private readonly tokens: Token[];
  private readonly env: GoEnvironment;
  constructor(tokens: Token[], env: GoEnvironment) {
    this.tokens = tokens;
    this.env = env;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }
  private take(text?: string): Token {
    const t = this.tokens[this.pos++];
    if (!t || (text !== undefined && t.text !== text)) throw new GoUnsupported(`expected ${text ?? 'a token'}, got ${t?.text ?? 'the end'}`);
    return t;
  }
  private at(text: string): boolean {
    return this.peek()?.text === text;
  }

  /** A type's spelling: map[K]V, []T, *T, pkg.Name, name, with generic [T] arguments. */
  private type(): string {
    if (this.at('map')) {
      this.take('map');
      this.take('[');
      const k = this.type();
      this.take(']');
      return `map[${k}]${this.type()}`;
    }
    if (this.at('[')) {
      this.take('[');
      this.take(']');
      return `[]${this.type()}`;
    }
    if (this.at('*')) {
      this.take('*');
      return `*${this.type()}`;
    }
    if (this.at('interface')) {
      this.take('interface');
      this.take('{');
      this.take('}');
      return 'interface{}';
    }
    let name = this.take().text;
    while (this.at('.') && this.peek(1)?.kind === 'ident') {
      this.take('.');
      name += `.${this.take().text}`;
    }
    return name;
  }

  /** The elements of a composite literal, after its `{`. */
  private composite(): unknown {
    const keyed: [unknown, unknown][] = [];
    const plain: unknown[] = [];
    while (!this.at('}')) {
      // A struct field's name is a key, not an identifier to resolve (`{Generic: schema.Generic{...}}`).
      const isField = this.peek()?.kind === 'ident' && this.peek(1)?.text === ':';
      const first = isField ? this.take().text : this.at('{') ? (this.take('{'), this.composite()) : this.expr();
      if (this.at(':')) {
        this.take(':');
        keyed.push([first, this.at('{') ? (this.take('{'), this.composite()) : this.expr()]);
      } else plain.push(first);
      if (!this.at('}')) this.take(',');
    }
    this.take('}');
    if (keyed.length && plain.length) throw new GoUnsupported('a composite literal mixes keyed and plain elements');
    return keyed.length ? Object.fromEntries(keyed.map(([k, v]) => [String(k), v])) : plain;
  }

  private primary(): unknown {
    const t = this.peek();
    if (!t) throw new GoUnsupported('unexpected end');
    if (t.kind === 'string' || t.kind === 'number') return this.take().value;
    if (t.text === '(') {
      this.take('(');
      const v = this.expr();
      this.take(')');
      return v;
    }
    if (t.text === '&') {
      this.take('&');
      return this.unary();
    }
    if (t.text === 'map' || t.text === '[' || t.text === '*') {
      const type = this.type();
      this.take('{');
      const value = this.composite();
      // An empty map literal is a map, not a list.
      return type.startsWith('map[') && Array.isArray(value) && value.length === 0 ? {} : value;
    }
    if (t.kind !== 'ident') throw new GoUnsupported(`unexpected ${t.text}`);
    if (t.text === 'true' || t.text === 'false') return this.take().text === 'true';
    if (t.text === 'nil') return (this.take(), null);
    const name = this.type();
    if (this.at('{')) {
      this.take('{');
      const value = this.composite();
      // A named list type's literal (`apiextensions.ValidationRules{{...}}`) is a list; a struct's an object with its type.
      return Array.isArray(value) && value.length > 0 ? value : { ...(value as object), '@type': name };
    }
    // A generic function's instantiation (`ptr.To[int64](10)`): the type argument changes nothing here.
    if (this.at('[') && this.peek(1)?.kind === 'ident' && this.peek(2)?.text === ']' && this.peek(3)?.text === '(') {
      this.take('[');
      this.take();
      this.take(']');
    }
    if (!this.at('(')) return this.env.value(name);
    let value = this.env.call(name, this.args());
    // A method called on what a call returned (`invalid("spec").contains("x")`): the environment's `.name`, the receiver first.
    while (this.at('.') && this.peek(1)?.kind === 'ident' && this.peek(2)?.text === '(') {
      this.take('.');
      const method = this.take().text;
      value = this.env.call(`.${method}`, [value, ...this.args()]);
    }
    return value;
  }

  /** A call's arguments, from its `(` to its `)`. */
  private args(): unknown[] {
    this.take('(');
    const args: unknown[] = [];
    while (!this.at(')')) {
      args.push(this.expr());
      if (!this.at(')')) this.take(',');
    }
    this.take(')');
    return args;
  }

  private unary(): unknown {
    if (this.at('-')) {
      this.take('-');
      const v = this.unary();
      return typeof v === 'bigint' ? -v : -(v as number);
    }
    if (this.at('!')) {
      this.take('!');
      return !this.unary();
    }
    return this.primary();
  }

  private term(): unknown {
    let v = this.unary();
    while (this.at('*') || this.at('/') || this.at('<<') || this.at('>>')) {
      const op = this.take().text;
      const r = this.unary();
      v = arithmetic(op, v, r);
    }
    return v;
  }

  expr(): unknown {
    let v = this.term();
    while (this.at('+') || this.at('-') || this.at('|')) {
      const op = this.take().text;
      v = arithmetic(op, v, this.term());
    }
    return v;
  }

  /** Whether every token was read. */
  done(): boolean {
    return this.pos >= this.tokens.length;
  }

  /** Keyed fields to the end of the input (`name: v, obj: v`, a table entry's body), as an object. */
  fields(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (!this.done()) {
      const key = this.take().text;
      this.take(':');
      out[key] = this.at('{') ? (this.take('{'), this.composite()) : this.expr();
      if (!this.done()) this.take(',');
    }
    return out;
  }
}

/** A binary operator of Go's at the two precedence levels the tables use (`*` `/` `<<` `>>`, and `+` `-` `|`). */
function arithmetic(op: string, a: unknown, b: unknown): unknown {
  if (typeof a === 'string' && typeof b === 'string' && op === '+') return a + b;
  if (op === '<<' || op === '>>' || op === '|') {
    if (typeof a !== 'bigint' || typeof b !== 'bigint') throw new GoUnsupported(`${op} of a value that is not an integer`);
    return op === '<<' ? a << b : op === '>>' ? a >> b : a | b;
  }
  if (typeof a === 'bigint' && typeof b === 'bigint') return op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : a / b;
  const [x, y] = [Number(a), Number(b)];
  return op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y;
}

/** The body of the block that opens at `open` (a `{`), by brace depth outside strings. */
export function blockAt(src: string, open: number): string {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i]!;
    if (c === '"' || c === '`') {
      const end = c === '`' ? src.indexOf('`', i + 1) : (/"(?:[^"\\\n]|\\.)*"/.exec(src.slice(i))?.[0].length ?? 1) + i - 1;
      i = end;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return src.slice(open + 1, i);
  }
  return src.slice(open + 1);
}

/** Each argument of the call that opens at `open` (its `(`), split at the commas outside brackets and strings. */
export function callArgumentTexts(src: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < src.length; i++) {
    const c = src[i]!;
    if (c === '"' || c === '`') i = c === '`' ? src.indexOf('`', i + 1) : i + (/^"(?:[^"\\\n]|\\.)*"/.exec(src.slice(i))?.[0].length ?? 1) - 1;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth === 0) return [...args, src.slice(start, i).trim()];
    else if (c === ',' && depth === 1) {
      args.push(src.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** What `goBuiltin` answers for a call that is none of its own. */
export const NOT_BUILTIN = Symbol('not a builtin');

/**
 * The calls Kubernetes' and Argo CD's test tables make to build a value, as their values: a pointer to one (`ptr.To(x)`,
 * Go 1.26's `new(x)`, both spelt as the value a manifest holds), a conversion (`int64(x)`, `rune(n)`, and `string(n)`
 * of a code point), and `strings.Repeat`. Anything else is NOT_BUILTIN, for the caller's environment to answer.
 */
export function goBuiltin(name: string, args: readonly unknown[]): unknown {
  if (name === 'ptr.To' || name === 'new' || name === 'int64' || name === 'int32' || name === 'float64') return args[0];
  if (name === 'rune') return Number(args[0]);
  if (name === 'string') return typeof args[0] === 'number' || typeof args[0] === 'bigint' ? String.fromCodePoint(Number(args[0])) : args[0];
  if (name === 'strings.Repeat') return String(args[0]).repeat(Number(args[1]));
  return NOT_BUILTIN;
}

/** An environment of goBuiltin's calls and the given constants, refusing any other name (GoUnsupported). */
export function builtinEnvironment(constants: Readonly<Record<string, unknown>> = {}): GoEnvironment {
  return {
    value(name) {
      if (name in constants) return constants[name];
      throw new GoUnsupported(`unknown identifier ${name}`);
    },
    call(name, args) {
      const built = goBuiltin(name, args);
      if (built === NOT_BUILTIN) throw new GoUnsupported(`unknown function ${name}`);
      return built;
    },
  };
}

/** A Go field name as its JSON tag spells it: the leading capitals lowered, but the one that starts the next word. */
export const jsonName = (go: string): string => go.replace(/^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/, (run) => run.toLowerCase());

/** A parsed Go struct value as a manifest spells it: each field by its JSON name, the parser's type tags dropped. */
export function asManifest(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asManifest);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([k]) => k !== '@type')
      .map(([k, v]) => [jsonName(k), asManifest(v)]),
  );
}

/** A parsed Go value as JSON holds it: the parser's integers (BigInt) as numbers, its type tags dropped. */
export function asJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(asJson);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([k]) => k !== '@type')
      .map(([k, v]) => [k, asJson(v)]),
  );
}

/**
 * The rows of a test's first `<name> := []struct {...}{...}` table (or `for _, <name> := range []struct {...}{...}`)
 * whose name `names` matches, each parsed alone as JSON (a row this reader cannot follow keeps its text and why), so
 * one row it cannot read is counted apart.
 */
export function structTableRows(body: string, names: RegExp, env: GoEnvironment): { text: string; row?: Record<string, unknown>; why?: string }[] {
  const at = body.search(new RegExp(`(?:${names.source}) := (?:range )?\\[\\]struct \\{`));
  if (at === -1) return [];
  const structOpen = body.indexOf('{', at);
  return tableRows(blockAt(body, body.indexOf('{', structOpen + blockAt(body, structOpen).length + 2)), env);
}

/** Each `{...}` row of a table's body, parsed alone as JSON (a row this reader cannot follow keeps its text and why). */
export function tableRows(table: string, env: GoEnvironment): { text: string; row?: Record<string, unknown>; why?: string }[] {
  const out: { text: string; row?: Record<string, unknown>; why?: string }[] = [];
  for (let i = table.indexOf('{'); i !== -1;) {
    const text = blockAt(table, i);
    try {
      // A conversion `[]byte(x)` is read as a call, which the environment may answer (byteText); a function literal
      // called in place that returns the address of its one local (`func() *T { r := x; return &r }()`) is that local.
      const go = text.replace(/\[\]byte\(/g, 'byteText(').replace(/func\(\) \*[\w.]+ \{\s*(\w+) := ([^\n]+)\s*return &\1\s*\}\(\)/g, '$2');
      out.push({ text, row: asJson(new GoParser(tokenize(`Row{${go}}`), env).expr()) as Record<string, unknown> });
    } catch (err) {
      out.push({ text, why: (err as Error).message });
    }
    i = table.indexOf('{', i + text.length + 2);
  }
  return out;
}
