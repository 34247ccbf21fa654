/**
 * Alloy's parser, as Alloy v1.18.1's `syntax/parser/internal.go` walks the scanner's tokens: blocks and their labels,
 * attributes, expressions with their precedence, the commas a multi-line list or object needs, and its errors in
 * Alloy's words, one a line. A file with any error is refused at load: Alloy does not start on it, or keeps its last
 * configuration on a reload.
 */
import { AlloyScanner, isValidIdentifier } from './scanner.ts';
import { PRECEDENCE, type AlloyError, type AlloyShape, type Tok } from './tokens.ts';
import { goUnquote } from '../go/strconv.ts';
import { perKey } from '../core/per-object.ts';

export type { AlloyError, AlloyShape } from './tokens.ts';

/** A value Alloy's vm makes of a constant expression: text, a number, a bool, null, an array, an object. */
export type AlloyValue = string | number | boolean | null | readonly AlloyValue[] | { readonly [key: string]: AlloyValue };

/** A constant expression's value, with the expression as written and its line (where a decode error points). */
export interface AlloyConstant {
  value: AlloyValue;
  text: string;
  line: number;
  /** An array's or object's members, each a constant, for an error inside one (vm's ElementError and FieldError); an object's keys. */
  members?: readonly AlloyConstant[];
  keys?: readonly string[];
}

/**
 * An expression, as far as Alloy's loader reads it for references (internal/util/ast's traversal walker): its
 * identifiers, field accesses, indexes and calls, each identifier with its line; any other expression (a literal, an
 * operator, a list, an object, parentheses) as the expressions it holds, its shape (the operator, or what it builds),
 * its text and line, and its value where it reads nothing but literals (`constant`: a literal, a list or object of
 * them, a negation, a sum of two numbers or two strings).
 */
export type AlloyExpr =
  | { kind: 'identifier'; name: string; line: number }
  | { kind: 'access'; value: AlloyExpr; name: string }
  | { kind: 'index'; value: AlloyExpr; index: AlloyExpr }
  | { kind: 'call'; value: AlloyExpr; args: AlloyExpr[] }
  | { kind: 'other'; parts: AlloyExpr[]; shape?: AlloyShape; text?: string; line?: number; constant?: AlloyConstant };

const other = (...parts: AlloyExpr[]): AlloyExpr => ({ kind: 'other', parts });

const constantOf = (e: AlloyExpr): AlloyConstant | undefined => (e.kind === 'other' ? e.constant : undefined);

export type AlloyStatement =
  | { kind: 'attribute'; name: string; offset: number; line: number; value: AlloyExpr }
  | { kind: 'block'; name: string[]; label: string; offset: number; line: number; body: AlloyStatement[] };
type Attribute = AlloyStatement & { kind: 'attribute' };
type Block = AlloyStatement & { kind: 'block' };

/** A body's attribute of a name (the first), and its blocks of a (dotted) name, as the readers of a configuration look them up. */
export const attributeNamed = (body: readonly AlloyStatement[], name: string) => body.find((s): s is Attribute => s.kind === 'attribute' && s.name === name);
export const blocksNamed = (body: readonly AlloyStatement[], name: string) => body.filter((s): s is Block => s.kind === 'block' && s.name.join('.') === name);

/** The parser, as `syntax/parser/internal.go` walks the tokens: its errors, and the statements it keeps. */
class AlloyParser {
  readonly errors: AlloyError[] = [];
  private readonly scanner: AlloyScanner;
  private offset = 0;
  private tok: Tok = 'EOF';
  private lit = '';
  private lastErrorLine = -1;
  private readonly lineStarts: number[];
  /** The end of the current token, and of the one before it (where a constant's text ends). */
  private tokEnd = 0;
  private prevEnd = 0;

  private readonly input: string;

  constructor(input: string) {
    this.input = input;
    this.lineStarts = [0];
    for (let i = 0; i < input.length; i++) if (input.charCodeAt(i) === 0x0a) this.lineStarts.push(i + 1);
    this.scanner = new AlloyScanner(input, (offset, message) => this.errors.push({ offset, message }));
    this.next();
  }

  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** The current token, read afresh (TypeScript would keep a comparison's narrowing across next()). */
  private t(): Tok {
    return this.tok;
  }

  private next(): void {
    this.prevEnd = this.tokEnd;
    do {
      ({ offset: this.offset, tok: this.tok, lit: this.lit } = this.scanner.scan());
      this.tokEnd = this.scanner.position;
    } while (this.t() === 'COMMENT');
  }

  /** An expression of `shape` that starts at `start` and ends at the last token read, holding `parts`, with its value where it is a constant. */
  private constantExpr(
    start: number,
    o: { parts: AlloyExpr[]; shape: AlloyShape },
    value: AlloyValue | undefined,
    inside?: Pick<AlloyConstant, 'members' | 'keys'>,
  ): AlloyExpr {
    const [text, line] = [this.input.slice(start, this.prevEnd), this.lineOf(start)];
    return { kind: 'other', ...o, text, line, ...(value === undefined ? {} : { constant: { value, text, line, ...inside } }) };
  }

  private advance(to: Tok): void {
    while (this.t() !== 'EOF' && this.t() !== to) this.next();
  }

  private expect(t: Tok): Tok {
    const tok = this.tok;
    if (tok !== t) this.addError(`expected ${t}, got ${this.tok}`);
    this.next();
    return tok;
  }

  private addError(message: string): void {
    const line = this.lineOf(this.offset);
    if (line === this.lastErrorLine) return;
    this.lastErrorLine = line;
    this.errors.push({ offset: this.offset, message });
  }

  parseBody(until: Tok): AlloyStatement[] {
    const body: AlloyStatement[] = [];
    while (this.t() !== until && this.t() !== 'EOF') {
      const stmt = this.parseStatement();
      if (stmt) body.push(stmt);
      if (this.t() === until) break;
      if (this.t() !== 'TERMINATOR') {
        this.addError(`expected TERMINATOR, got ${this.tok}`);
        this.consumeStatement();
      }
      this.next();
    }
    return body;
  }

  private consumeStatement(): void {
    let curly = 0;
    let brack = 0;
    let paren = 0;
    while (this.t() !== 'EOF') {
      if (this.t() === '{') curly++;
      else if (this.t() === '}') curly--;
      else if (this.t() === '[') brack++;
      else if (this.t() === ']') brack--;
      else if (this.t() === '(') paren++;
      else if (this.t() === ')') paren--;
      if (this.t() === 'TERMINATOR' && curly <= 0 && brack <= 0 && paren <= 0) return;
      this.next();
    }
  }

  private parseStatement(): AlloyStatement | undefined {
    const name = this.parseBlockName();
    if (!name) {
      this.advance('IDENT');
      return undefined;
    }
    if (this.t() === '=') {
      this.next();
      if (name.fragments.length !== 1) this.errors.push({ offset: name.start, message: 'attribute names may only consist of a single identifier with no "."' });
      else if (name.labelOffset !== undefined) this.errors.push({ offset: name.labelOffset, message: 'attribute names may not have labels' });
      const value = this.parseExpression();
      return { kind: 'attribute', name: name.fragments[0]!, offset: name.start, line: this.lineOf(name.start), value };
    }
    if (this.t() === '{') {
      this.expect('{');
      const body = this.parseBody('}');
      this.expect('}');
      return { kind: 'block', name: name.fragments, label: name.label, offset: name.start, line: this.lineOf(name.start), body };
    }
    this.addError(
      name.fragments.length === 1 && name.label === ''
        ? `expected attribute assignment or block body, got ${this.tok}`
        : `expected block body, got ${this.tok}`,
    );
    this.advance('IDENT');
    return undefined;
  }

  private parseBlockName(): { fragments: string[]; label: string; start: number; labelOffset?: number } | undefined {
    if (this.t() !== 'IDENT') {
      this.addError(`expected identifier, got ${this.tok}`);
      return undefined;
    }
    const name: { fragments: string[]; label: string; start: number; labelOffset?: number } = { fragments: [this.lit], label: '', start: this.offset };
    this.next();
    while (this.t() === '.') {
      this.next();
      if (this.t() !== 'IDENT') this.addError(`expected identifier, got ${this.tok}`);
      name.fragments.push(this.lit);
      this.next();
    }
    if (this.t() !== '=' && this.t() !== '{') {
      if (this.t() === 'STRING') {
        if (this.lit[0] !== '"') this.addError(`expected block label to be a double quoted string, but got ${JSON.stringify(this.lit)}`);
        if (this.lit.length > 2) {
          name.label = this.lit.slice(1, -1);
          if (!isValidIdentifier(name.label)) this.addError(`expected block label to be a valid identifier, but got ${JSON.stringify(name.label)}`);
        }
        name.labelOffset = this.offset;
      } else this.addError(`expected block label, got ${this.tok}`);
      this.next();
    }
    return name;
  }

  private parseExpression(): AlloyExpr {
    return this.parseBinOp(1);
  }

  private parseBinOp(inPrec: number): AlloyExpr {
    const start = this.offset;
    let left = this.parsePowExpr();
    for (;;) {
      const prec = PRECEDENCE[this.tok] ?? 0;
      if (prec < inPrec) return left;
      const op = this.tok;
      this.next();
      const right = this.parseBinOp(prec + 1);
      const [a, b] = [constantOf(left)?.value, constantOf(right)?.value];
      // The vm adds two numbers, and joins two strings; the other operators' values are not worked out here.
      const sum = op === '+' && typeof a === typeof b && (typeof a === 'number' || typeof a === 'string') ? (a as never) + (b as never) : undefined;
      left = this.constantExpr(start, { parts: [left, right], shape: { op } }, sum);
    }
  }

  private parsePowExpr(): AlloyExpr {
    const start = this.offset;
    const base = this.parseUnaryExpr();
    if (this.t() !== '^') return base;
    this.next();
    return this.constantExpr(start, { parts: [base, this.parsePowExpr()], shape: { op: '^' } }, undefined);
  }

  private parseUnaryExpr(): AlloyExpr {
    if (this.t() === '!' || this.t() === '-') {
      const [start, op] = [this.offset, this.tok];
      this.next();
      const operand = this.parseUnaryExpr();
      const v = constantOf(operand)?.value;
      return this.constantExpr(
        start,
        { parts: [operand], shape: { unary: op } },
        op === '-' && typeof v === 'number' ? -v : op === '!' && typeof v === 'boolean' ? !v : undefined,
      );
    }
    const start = this.offset;
    let expr = this.parsePrimaryExpr();
    for (;;) {
      if (this.t() === '.') {
        this.next();
        const name = this.lit;
        if (this.expect('IDENT') === 'IDENT') expr = { kind: 'access', value: expr, name };
      } else if (this.t() === '[') {
        this.expect('[');
        const index = this.parseExpression();
        this.expect(']');
        expr = { kind: 'index', value: expr, index };
      } else if (this.t() === '(') {
        this.expect('(');
        const args = this.t() !== ')' ? this.parseExpressionList(')') : [];
        this.expect(')');
        expr = { kind: 'call', value: expr, args };
      } else if (this.t() === 'STRING' || this.t() === '{') {
        if (this.t() === 'STRING') this.next();
        if (this.expect('{') !== '{') {
          this.consumeStatement();
          return other();
        }
        this.parseBody('}');
        if (this.expect('}') !== '}') {
          this.consumeStatement();
          return other();
        }
        this.errors.push({ offset: start, message: 'cannot use a block as an expression' });
        expr = other();
      } else return expr;
    }
  }

  private parsePrimaryExpr(): AlloyExpr {
    switch (this.tok) {
      case 'IDENT': {
        const ident: AlloyExpr = { kind: 'identifier', name: this.lit, line: this.lineOf(this.offset) };
        this.next();
        return ident;
      }
      case 'STRING':
      case 'NUMBER':
      case 'FLOAT':
      case 'BOOL':
      case 'NULL': {
        const [start, value] = [this.offset, literalValue(this.tok, this.lit)];
        this.next();
        return this.constantExpr(start, { parts: [], shape: { literal: true } }, value);
      }
      case '(': {
        const start = this.offset;
        this.expect('(');
        const inner = this.parseExpression();
        this.expect(')');
        return this.constantExpr(start, { parts: [inner], shape: { paren: true } }, constantOf(inner)?.value);
      }
      case '[': {
        const start = this.offset;
        this.expect('[');
        const items = this.t() !== ']' ? this.parseExpressionList(']') : [];
        this.expect(']');
        const members = items.map(constantOf);
        const all = members.every((m) => m !== undefined) ? (members as AlloyConstant[]) : undefined;
        return this.constantExpr(
          start,
          { parts: items, shape: { array: true } },
          all?.map((m) => m.value),
          { members: all },
        );
      }
      case '{': {
        const start = this.offset;
        this.expect('{');
        // As Alloy writes it: a field list unless the next token is "]".
        const fields = this.t() !== ']' ? this.parseFieldList('}') : [];
        this.expect('}');
        const values = fields.map((f) => f.value);
        const known = fields.every((f) => f.key !== undefined && constantOf(f.value) !== undefined);
        const object = known ? Object.fromEntries(fields.map((f) => [f.key!, constantOf(f.value)!.value])) : undefined;
        return this.constantExpr(
          start,
          { parts: values, shape: { object: fields.map((f) => f.key) } },
          object,
          known ? { members: fields.map((f) => constantOf(f.value)!), keys: fields.map((f) => f.key!) } : undefined,
        );
      }
      default:
        this.addError(`expected expression, got ${this.tok}`);
        while (this.t() !== 'EOF' && !['TERMINATOR', ')', '}', ']', ','].includes(this.tok)) this.next();
        return other();
    }
  }

  private parseExpressionList(until: Tok): AlloyExpr[] {
    const items: AlloyExpr[] = [];
    while (this.t() !== until && this.t() !== 'EOF') {
      items.push(this.parseExpression());
      if (this.t() === until) break;
      if (this.t() !== ',') this.addError("missing ',' in expression list");
      this.next();
    }
    return items;
  }

  /** An object's fields: only their values hold expressions (a field's name is no identifier expression). */
  private parseFieldList(until: Tok): { key: string | undefined; value: AlloyExpr }[] {
    const values: { key: string | undefined; value: AlloyExpr }[] = [];
    while (this.t() !== until && this.t() !== 'EOF') {
      let key: string | undefined;
      if (this.t() === 'STRING' || this.t() === 'IDENT') {
        key = this.t() === 'STRING' ? goUnquote(this.lit) : this.lit;
        this.next();
      } else {
        this.addError(`expected field name (string or identifier), got ${this.tok}`);
        this.advance('=');
      }
      this.expect('=');
      values.push({ key, value: this.parseExpression() });
      if (this.t() === until) break;
      if (this.t() !== ',') this.addError("missing ',' in field list");
      this.next();
    }
    return values;
  }
}

/** A literal's value as the vm reads it (a string unquoted as Go unquotes it, a number as Go parses it); undefined where it cannot. */
function literalValue(tok: Tok, lit: string): AlloyValue | undefined {
  if (tok === 'STRING') return goUnquote(lit);
  if (tok === 'BOOL') return lit === 'true';
  if (tok === 'NULL') return null;
  const n = Number(lit);
  return Number.isFinite(n) ? n : undefined;
}

/** A configuration as Alloy's parser reads it (statements, errors in its words with lines): once per text, shared, never changed. */
export const parseAlloy: (text: string) => { body: AlloyStatement[]; errors: (AlloyError & { line: number })[] } = perKey(50, parseAlloyUncached);

function parseAlloyUncached(text: string): { body: AlloyStatement[]; errors: (AlloyError & { line: number })[] } {
  const parser = new AlloyParser(text);
  const body = parser.parseBody('EOF');
  return { body, errors: parser.errors.map((e) => ({ ...e, line: parser.lineOf(e.offset) })) };
}
