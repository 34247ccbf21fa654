/**
 * Falco's condition language, parsed as Falco parses it: a port of libsinsp's filter parser
 * (userspace/libsinsp/filter/parser.cpp, escaping.cpp), so a condition Falco refuses at start (and Falco with it:
 * the sensor does not run) is refused here, and one it takes is taken. Its grammar: `or` and `and` over `not`
 * (`not` toggles, `not(` opens a group), a check is a group, a field (`proc.name`, `proc.aname[2]`, `evt.arg['x']`)
 * or a transformer (`toupper(proc.name)`, `val(...)`) with an operator and its value, or a macro's name. A value is
 * a quoted string (its escapes read as escaping.cpp reads them) or a bare one; a list `(a, 'b')` or a list's name.
 * It follows libsinsp 0.25.4, which the deployed Falco (0.44.1) links: a `\x41` escape is refused there (libs 0.26 reads
 * it). Past a nesting of 100 the condition is refused, as libs 0.26 refuses it; 0.25.4 has no limit and its stack
 * runs out instead, deeper. Held to libsinsp's own parser tests (`npm run conformance -- --falco-libs`).
 */
export type Expr =
  | { kind: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; expr: Expr }
  | { kind: 'group'; expr: Expr }
  | { kind: 'compare'; field: string; op: string; value: string; valueIsField?: true }
  | { kind: 'unary'; field: string; op: string }
  | { kind: 'list'; field: string; op: string; items: string[]; lists: string[] }
  | { kind: 'macro'; name: string };

export class ConditionSyntaxError extends Error {
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.offset = offset;
  }
}

// The lexer's patterns (POSIX classes written out; each is matched at the cursor, and is longest-match already).
const NOT_BLANK = /not[ \t\n\v\f\r]+/y;
const IDENTIFIER = /[a-zA-Z]+[a-zA-Z0-9_]*/y;
/** A field's name (`proc.name`, `container.image.repository`): RGX_FIELDNAME. */
export const FIELD_NAME_PATTERN = '[a-zA-Z]+[a-zA-Z0-9_]*(?:\\.[a-zA-Z]+[a-zA-Z0-9_]*)+';
const FIELD_NAME = new RegExp(FIELD_NAME_PATTERN, 'y');
const FIELD_ARG_BARE = /[^\]["' \t\n\v\f\r]+/y;
const HEX_NUMBER = /0[xX][0-9a-fA-F]+/y;
const NUMBER = /[+-]?[0-9]+\.?[0-9]*([eE][+-][0-9]+)?/y;
const BARE_STRING = /[^()"' \t\n\v\f\r=,]+/y;

const UNARY_OPS = ['exists'];
const NUM_OPS = ['<=', '<', '>=', '>'];
// By libsinsp's convention, an operator ending in a space needs a blank after it.
const STR_OPS = ['==', '=', '!=', 'glob ', 'iglob ', 'contains ', 'icontains ', 'bcontains ', 'startswith ', 'bstartswith ', 'endswith ', 'regex '];
const STR_MODIFIERS = ['oneof ', 'anyof ', 'allof '];
const LIST_OPS = ['intersects', 'in', 'pmatch'];
const TRANSFORMERS = ['tolower(', 'toupper(', 'b64(', 'basename(', 'len(', 'join(', 'concat(', 'getopt('];
const MAX_DEPTH = 100;

/** escaping.cpp unescape_str: a quoted token (with its quotes) as the string it holds. */
function unescape(token: string, at: number): string {
  let out = '';
  const quote = token[0];
  const fail = (message: string): never => {
    throw new ConditionSyntaxError(message, at);
  };
  for (let i = 1; i < token.length - 1; i++) {
    const c = token[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = token[++i]!;
    const simple: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', ' ': '\\', '\\': '\\', '/': '/' };
    if (e in simple) out += simple[e];
    else if (e === '"' || e === "'") {
      if (e !== quote) fail(e === '"' ? `invalid \\" escape in '-quoted string` : `invalid \\' escape in "-quoted string`);
      out += e;
    } else fail(`unsupported string escape sequence: \\${e}`);
  }
  return out;
}

class FalcoParser {
  private pos = 0;
  private depth = 0;
  private last = '';
  /** Whether the right-hand side just read is a field's (val(), a transformer): the fields a condition reads include it. */
  private rhsField = false;
  private readonly input: string;
  constructor(input: string) {
    this.input = input;
  }

  private fail(message: string): never {
    throw new ConditionSyntaxError(message, this.pos);
  }
  /** depth_guard: each parse step counts, and a condition nested past the limit is refused, not a blown stack. */
  private guarded<T>(step: () => T): T {
    if (++this.depth >= MAX_DEPTH) this.fail(`exceeded max depth limit of ${MAX_DEPTH}`);
    try {
      return step();
    } finally {
      this.depth--;
    }
  }

  private blank(): boolean {
    const start = this.pos;
    while (' \t\b\r\n'.includes(this.input[this.pos] ?? 'x')) this.pos++;
    return this.pos > start;
  }
  private rgx(re: RegExp): boolean {
    re.lastIndex = this.pos;
    const m = re.exec(this.input);
    if (!m) return false;
    this.last = m[0];
    this.pos += m[0].length;
    return true;
  }
  private str(text: string): boolean {
    if (!this.input.startsWith(text, this.pos)) return false;
    this.last = text;
    this.pos += text.length;
    return true;
  }
  private strList(list: readonly string[]): boolean {
    return list.some((s) => this.str(s));
  }
  private operator(list: readonly string[]): boolean {
    for (const op of list) {
      if (!op.endsWith(' ')) {
        if (this.str(op)) return true;
        continue;
      }
      const [pos, last] = [this.pos, this.last];
      if (this.str(op.trim()) && this.blank()) return true;
      [this.pos, this.last] = [pos, last];
    }
    return false;
  }
  private quoted(): boolean {
    const quote = this.input[this.pos];
    if (quote !== '"' && quote !== "'") return false;
    let prev = '\\';
    for (let i = this.pos; i < this.input.length; i++) {
      const c = this.input[i]!;
      if (c === quote && prev !== '\\') {
        const token = this.input.slice(this.pos, i + 1);
        this.last = unescape(token, this.pos);
        this.pos = i + 1;
        return true;
      }
      prev = c;
    }
    return false;
  }

  parse(): Expr {
    if (this.input.length === 0) this.fail('filter input string is empty');
    const expr = this.or();
    if (this.pos !== this.input.length) this.fail(`unexpected token after '${this.last}', expecting 'or', 'and'`);
    return expr;
  }

  private joined(kind: 'or' | 'and', word: string, next: () => Expr): Expr {
    return this.guarded(() => {
      this.blank();
      let left = next();
      this.blank();
      while (this.str(word)) {
        let right: Expr;
        if (this.blank()) right = next();
        else if (this.str('(')) right = this.embedded();
        else this.fail(`expected blank or '(' after '${word}'`);
        left = { kind, left, right };
        this.blank();
      }
      return left;
    });
  }
  private or(): Expr {
    return this.joined('or', 'or', () => this.and());
  }
  private and(): Expr {
    return this.joined('and', 'and', () => this.not());
  }
  private not(): Expr {
    return this.guarded(() => {
      let negated = false;
      this.blank();
      while (this.rgx(NOT_BLANK)) negated = !negated;
      let child: Expr;
      if (this.str('not(')) {
        negated = !negated;
        child = this.embedded();
      } else child = this.check();
      return negated ? { kind: 'not', expr: child } : child;
    });
  }
  /** What follows a `(`: an expression and its `)`, kept as a group. */
  private embedded(): Expr {
    return this.guarded(() => {
      this.blank();
      const expr = this.or();
      this.blank();
      if (!this.str(')')) this.fail("expected a ')' token");
      return { kind: 'group', expr };
    });
  }
  private check(): Expr {
    return this.guarded(() => {
      this.blank();
      if (this.str('(')) return this.embedded();
      if (this.rgx(FIELD_NAME)) return this.condition(this.fieldRemainder(this.last));
      if (this.strList(TRANSFORMERS)) {
        this.blank();
        return this.condition(this.transformerRemainder(this.last.slice(0, -1)));
      }
      if (this.rgx(IDENTIFIER)) return { kind: 'macro', name: this.last };
      return this.fail("expected a '(' token, a field check, or an identifier");
    });
  }
  private fieldRemainder(name: string): string {
    return this.guarded(() => name + this.optionalFieldArg());
  }
  private optionalFieldArg(): string {
    if (!this.str('[')) return '';
    if (!this.quoted() && !this.rgx(FIELD_ARG_BARE)) this.fail('expected a valid field argument: a quoted string or a bare string');
    const arg = this.last;
    if (!this.str(']')) this.fail("expected a ']' token");
    return `[${arg}]`;
  }
  /** After `name(`: its arguments, `)`, and an optional field argument. */
  private transformerRemainder(name: string): string {
    return this.guarded(() => {
      this.blank();
      const args: string[] = [];
      do {
        args.push(this.transformerArg());
        this.blank();
      } while (this.str(','));
      this.blank();
      if (!this.str(')')) this.fail("expected a ')' token closing the transformer");
      return `${name}(${args.join(', ')})${this.optionalFieldArg()}`;
    });
  }
  private transformerArg(): string {
    return this.guarded(() => {
      this.blank();
      if (this.rgx(HEX_NUMBER) || this.rgx(NUMBER) || this.quoted()) return this.last;
      if (this.str('(')) return this.transformerList();
      if (this.strList(TRANSFORMERS)) return this.transformerRemainder(this.last.slice(0, -1));
      if (this.rgx(FIELD_NAME)) return this.fieldRemainder(this.last);
      return this.fail('expected field transformer argument: field, transformer, quoted string, number, or transformer list');
    });
  }
  /** After a `(` among a transformer's arguments: a list of fields, transformers, strings or numbers. */
  private transformerList(): string {
    const items: string[] = [];
    this.blank();
    if (this.str(')')) return '()';
    const item = (): string => {
      if (this.rgx(FIELD_NAME)) return this.fieldRemainder(this.last);
      if (this.strList(TRANSFORMERS)) {
        this.blank();
        return this.transformerRemainder(this.last.slice(0, -1));
      }
      if (this.quoted() || this.rgx(HEX_NUMBER) || this.rgx(NUMBER)) return this.last;
      return this.fail('expected transformer list argument: field, transformer, quoted string, or number');
    };
    items.push(item());
    this.blank();
    while (this.str(',')) {
      this.blank();
      items.push(item());
      this.blank();
    }
    if (!this.str(')')) this.fail("expected ')'");
    return `(${items.join(', ')})`;
  }

  private condition(field: string): Expr {
    return this.guarded(() => {
      this.blank();
      if (this.operator(UNARY_OPS)) return { kind: 'unary', field, op: this.last.trim() };
      this.blank();
      this.rhsField = false;
      if (this.operator(NUM_OPS)) return this.compare(field, this.last, this.numValue());
      if (this.operator(STR_OPS)) return this.strCondition(field, this.last.trim());
      if (this.operator(LIST_OPS)) {
        const op = this.last;
        const list = this.listValue(true);
        return typeof list === 'string' ? this.compare(field, op, list) : { kind: 'list', field, op, ...list };
      }
      return this.fail(
        `expected a valid check operator: one of ${['exists', ...NUM_OPS, ...STR_OPS.map((o) => o.trim()), ...LIST_OPS].map((o) => `'${o}'`).join(', ')}`,
      );
    });
  }
  /** A string operator's value, or with a modifier (`= oneof (a, b)`) a list. */
  private strCondition(field: string, op: string): Expr {
    const hadBlank = /^[a-z]/i.test(op) || this.blank();
    const [pos, last] = [this.pos, this.last];
    if (hadBlank && this.operator(STR_MODIFIERS)) {
      const modifier = this.last;
      if (this.listFollows() && !this.boolKeywordFollows()) {
        const list = this.listValue(false);
        return { kind: 'list', field, op: `${op} ${modifier}`, ...(typeof list === 'string' ? { items: [], lists: [list] } : list) };
      }
    }
    [this.pos, this.last] = [pos, last];
    return this.compare(field, op, this.strValue(false));
  }
  /** A comparison, marked where its right-hand side reads a field (`val(...)`, a transformer). */
  private compare(field: string, op: string, value: string): Expr {
    return { kind: 'compare', field, op, value, ...(this.rhsField ? { valueIsField: true as const } : {}) };
  }
  private listFollows(): boolean {
    if (this.input[this.pos] === '(') return true;
    const [pos, last] = [this.pos, this.last];
    const found = this.rgx(IDENTIFIER);
    [this.pos, this.last] = [pos, last];
    return found;
  }
  private boolKeywordFollows(): boolean {
    return ['and', 'or', 'not'].some((kw) => this.input.startsWith(kw, this.pos) && !/[a-zA-Z0-9]/.test(this.input[this.pos + kw.length] ?? ''));
  }
  private numValue(): string {
    return this.guarded(() => {
      this.blank();
      const transformed = this.transformerOrVal();
      if (transformed !== undefined) return transformed;
      if (this.rgx(HEX_NUMBER) || this.rgx(NUMBER)) return this.last;
      return this.fail('expected a number value or a field with a valid transformer');
    });
  }
  private strValue(plainOnly: boolean): string {
    return this.guarded(() => {
      this.blank();
      if (!plainOnly) {
        const transformed = this.transformerOrVal();
        if (transformed !== undefined) return transformed;
      }
      if (this.quoted() || this.rgx(BARE_STRING)) return this.last;
      return this.fail(plainOnly ? 'expected a string value' : 'expected a string value or a field with a valid transformer');
    });
  }
  /** A list's items, a list's name, or (where `transformers`) a transformer's text. */
  private listValue(transformers: boolean): { items: string[]; lists: string[] } | string {
    return this.guarded(() => {
      this.blank();
      if (this.str('(')) {
        const items: string[] = [];
        this.blank();
        const [pos, last] = [this.pos, this.last];
        try {
          items.push(this.strValue(true));
        } catch {
          [this.pos, this.last] = [pos, last];
        }
        if (items.length > 0) {
          this.blank();
          while (this.str(',')) {
            items.push(this.strValue(true));
            this.blank();
          }
        }
        if (!this.str(')')) this.fail("expected a ')' token");
        return { items, lists: [] };
      }
      if (transformers) {
        const transformed = this.transformerOrVal();
        if (transformed !== undefined) return transformed;
      }
      if (this.rgx(IDENTIFIER)) return { items: [], lists: [this.last] };
      return this.fail(transformers ? 'expected a list, an identifier, or a field with a valid transformer' : 'expected a list or an identifier');
    });
  }
  /** `val(field)` or a transformer, or undefined where neither starts here. */
  private transformerOrVal(): string | undefined {
    const found = this.guarded(() => this.transformerOrValAt());
    if (found !== undefined) this.rhsField = true;
    return found;
  }
  private transformerOrValAt(): string | undefined {
    this.blank();
    if (this.str('val(')) {
      this.blank();
      if (!this.rgx(FIELD_NAME)) this.fail("expected a field within 'val' transformer");
      const field = this.fieldRemainder(this.last);
      this.blank();
      if (!this.str(')')) this.fail("expected a ')' token closing the transformer");
      return `val(${field})${this.optionalFieldArg()}`;
    }
    if (this.strList(TRANSFORMERS)) {
      this.blank();
      return this.transformerRemainder(this.last.slice(0, -1));
    }
    return undefined;
  }
}

/** A condition as Falco parses it; throws ConditionSyntaxError with libsinsp's message and the offset it stopped at. */
export function parseFalcoCondition(source: string): Expr {
  return new FalcoParser(source).parse();
}
