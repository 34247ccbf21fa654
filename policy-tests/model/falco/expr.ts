/**
 * A parser for Falco's condition language, deep enough to check tuning: the
 * boolean structure (and, or, not, parentheses), comparisons, unary checks,
 * and list operators (in, intersects, pmatch) over literal lists or list
 * names. Bare identifiers are macro references.
 */
export type Expr =
  | { kind: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; expr: Expr }
  | { kind: 'group'; expr: Expr }
  | { kind: 'compare'; field: string; op: string; value: string }
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

const BINARY_OPS = new Set([
  '=',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'contains',
  'icontains',
  'bcontains',
  'startswith',
  'bstartswith',
  'endswith',
  'glob',
  'iglob',
  'regex',
]);
const LIST_OPS = new Set(['in', 'intersects', 'pmatch']);
const UNARY_OPS = new Set(['exists']);

interface Token {
  type: 'word' | 'string' | 'op' | '(' | ')' | ',';
  text: string;
  offset: number;
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ type: c, text: c, offset: i++ });
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let text = '';
      while (j < source.length && source[j] !== c) {
        if (source[j] === '\\' && j + 1 < source.length) j++;
        text += source[j++];
      }
      if (j >= source.length) throw new ConditionSyntaxError('unterminated string', i);
      tokens.push({ type: 'string', text, offset: i });
      i = j + 1;
    } else if ('=!<>'.includes(c)) {
      const two = source.slice(i, i + 2);
      const op = ['==', '!=', '<=', '>='].includes(two) ? two : c;
      if (op === '!') throw new ConditionSyntaxError('unexpected "!"', i);
      tokens.push({ type: 'op', text: op, offset: i });
      i += op.length;
    } else {
      let j = i;
      while (j < source.length && !/[\s(),"'=!<>]/.test(source[j]!)) j++;
      // A field with an argument, such as proc.aname[2] or evt.arg[0], keeps its brackets.
      tokens.push({ type: 'word', text: source.slice(i, j), offset: i });
      i = j;
    }
  }
  return tokens;
}

/** A recursive-descent parser over one condition's tokens: or, and, not, then comparisons, list tests, unary tests and macros. */
class ConditionParser {
  private pos = 0;
  private readonly source: string;
  private readonly tokens: Token[];
  constructor(source: string, tokens: Token[]) {
    this.source = source;
    this.tokens = tokens;
  }

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }
  private isWord(t: Token | undefined, w: string): boolean {
    return t?.type === 'word' && t.text === w;
  }
  private fail(message: string): never {
    throw new ConditionSyntaxError(message, this.peek()?.offset ?? this.source.length);
  }
  private next(): Token {
    return this.tokens[this.pos++] ?? this.fail('unexpected end of condition');
  }

  parse(): Expr {
    if (this.tokens.length === 0) throw new ConditionSyntaxError('empty condition', 0);
    const expr = this.orExpr();
    if (this.pos < this.tokens.length) this.fail(`unexpected "${this.peek()!.text}"`);
    return expr;
  }

  private orExpr(): Expr {
    let left = this.andExpr();
    while (this.isWord(this.peek(), 'or')) {
      this.pos++;
      left = { kind: 'or', left, right: this.andExpr() };
    }
    return left;
  }
  private andExpr(): Expr {
    let left = this.notExpr();
    while (this.isWord(this.peek(), 'and')) {
      this.pos++;
      left = { kind: 'and', left, right: this.notExpr() };
    }
    return left;
  }
  private notExpr(): Expr {
    if (this.isWord(this.peek(), 'not')) {
      this.pos++;
      return { kind: 'not', expr: this.notExpr() };
    }
    return this.primary();
  }
  private listItems(): { items: string[]; lists: string[] } {
    const items: string[] = [];
    const lists: string[] = [];
    if (this.peek()?.type === 'word') {
      lists.push(this.next().text);
      return { items, lists };
    }
    if (this.next().type !== '(') this.fail('expected a list');
    while (this.peek() && this.peek()!.type !== ')') {
      const t = this.next();
      if (t.type === ',') continue;
      if (t.type === 'string') items.push(t.text);
      // An unquoted name inside a list may be a literal or another list's name; Falco resolves it against lists.
      else if (t.type === 'word') items.push(t.text);
      else this.fail(`unexpected "${t.text}" in list`);
    }
    if (this.next()?.type !== ')') this.fail('unclosed list');
    return { items, lists };
  }
  private primary(): Expr {
    const t = this.next();
    if (t.type === '(') {
      const expr = this.orExpr();
      if (this.next().type !== ')') this.fail('expected ")"');
      return { kind: 'group', expr };
    }
    if (t.type !== 'word') return this.fail(`unexpected "${t.text}"`);
    const op = this.peek();
    if (op && (op.type === 'op' || (op.type === 'word' && BINARY_OPS.has(op.text)))) {
      this.pos++;
      const value = this.next();
      if (value.type !== 'word' && value.type !== 'string') this.fail(`expected a value after ${op.text}`);
      return { kind: 'compare', field: t.text, op: op.text, value: value.text };
    }
    if (op?.type === 'word' && LIST_OPS.has(op.text)) {
      this.pos++;
      return { kind: 'list', field: t.text, op: op.text, ...this.listItems() };
    }
    if (op?.type === 'word' && UNARY_OPS.has(op.text)) {
      this.pos++;
      return { kind: 'unary', field: t.text, op: op.text };
    }
    if (t.text.includes('.')) return this.fail(`field ${t.text} needs an operator`);
    return { kind: 'macro', name: t.text };
  }
}

export function parseCondition(source: string): Expr {
  return new ConditionParser(source, tokenize(source)).parse();
}

/** Parses an appended fragment (`and not (...)`) by giving it a left-hand side to attach to. */
export function parseAppend(fragment: string): Expr {
  return parseCondition(`__upstream__ ${fragment}`);
}

export function unwrap(expr: Expr): Expr {
  return expr.kind === 'group' ? unwrap(expr.expr) : expr;
}

/** The top-level alternatives of an expression (`a or b or c` gives three). */
export function disjuncts(expr: Expr): Expr[] {
  const e = unwrap(expr);
  return e.kind === 'or' ? [...disjuncts(e.left), ...disjuncts(e.right)] : [e];
}

/** Every comparison reachable through `and` and groups: what a conjunction pins. */
export function pinned(expr: Expr): Expr[] {
  const e = unwrap(expr);
  if (e.kind === 'and') return [...pinned(e.left), ...pinned(e.right)];
  return [e];
}

/** Every node of the tree, for searches such as "which lists are referenced". */
export function* walk(expr: Expr): Generator<Expr> {
  yield expr;
  if (expr.kind === 'and' || expr.kind === 'or') {
    yield* walk(expr.left);
    yield* walk(expr.right);
  } else if (expr.kind === 'not' || expr.kind === 'group') yield* walk(expr.expr);
}
