/**
 * Alloy's parser, as Alloy v1.18.1's `syntax/parser/internal.go` walks the scanner's tokens: blocks and their labels,
 * attributes, expressions with their precedence, the commas a multi-line list or object needs, and its errors in
 * Alloy's words, one a line. A file with any error is refused at load: Alloy does not start on it, or keeps its last
 * configuration on a reload.
 */
import { AlloyScanner, isValidIdentifier } from './scanner.ts';
import { PRECEDENCE, type AlloyError, type Tok } from './tokens.ts';

export type { AlloyError } from './tokens.ts';

/**
 * An expression, as far as Alloy's loader reads it for references (internal/util/ast's traversal walker): its
 * identifiers, field accesses, indexes and calls, each identifier with its line; any other expression (a literal, an
 * operator, a list, an object, parentheses) only as the expressions it holds.
 */
export type AlloyExpr =
  | { kind: 'identifier'; name: string; line: number }
  | { kind: 'access'; value: AlloyExpr; name: string }
  | { kind: 'index'; value: AlloyExpr; index: AlloyExpr }
  | { kind: 'call'; value: AlloyExpr; args: AlloyExpr[] }
  | { kind: 'other'; parts: AlloyExpr[] };

const other = (...parts: AlloyExpr[]): AlloyExpr => ({ kind: 'other', parts });

export type AlloyStatement =
  | { kind: 'attribute'; name: string; offset: number; line: number; value: AlloyExpr }
  | { kind: 'block'; name: string[]; label: string; offset: number; line: number; body: AlloyStatement[] };

/** The parser, as `syntax/parser/internal.go` walks the tokens: its errors, and the statements it keeps. */
class AlloyParser {
  readonly errors: AlloyError[] = [];
  private readonly scanner: AlloyScanner;
  private offset = 0;
  private tok: Tok = 'EOF';
  private lit = '';
  private lastErrorLine = -1;
  private readonly lineStarts: number[];

  constructor(input: string) {
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
    do ({ offset: this.offset, tok: this.tok, lit: this.lit } = this.scanner.scan());
    while (this.t() === 'COMMENT');
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
    let left = this.parsePowExpr();
    for (;;) {
      const prec = PRECEDENCE[this.tok] ?? 0;
      if (prec < inPrec) return left;
      this.next();
      left = other(left, this.parseBinOp(prec + 1));
    }
  }

  private parsePowExpr(): AlloyExpr {
    const base = this.parseUnaryExpr();
    if (this.t() !== '^') return base;
    this.next();
    return other(base, this.parsePowExpr());
  }

  private parseUnaryExpr(): AlloyExpr {
    if (this.t() === '!' || this.t() === '-') {
      this.next();
      return other(this.parseUnaryExpr());
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
      case 'NULL':
        this.next();
        return other();
      case '(': {
        this.expect('(');
        const inner = this.parseExpression();
        this.expect(')');
        return other(inner);
      }
      case '[': {
        this.expect('[');
        const items = this.t() !== ']' ? this.parseExpressionList(']') : [];
        this.expect(']');
        return other(...items);
      }
      case '{': {
        this.expect('{');
        // As Alloy writes it: a field list unless the next token is "]".
        const values = this.t() !== ']' ? this.parseFieldList('}') : [];
        this.expect('}');
        return other(...values);
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
  private parseFieldList(until: Tok): AlloyExpr[] {
    const values: AlloyExpr[] = [];
    while (this.t() !== until && this.t() !== 'EOF') {
      if (this.t() === 'STRING' || this.t() === 'IDENT') this.next();
      else {
        this.addError(`expected field name (string or identifier), got ${this.tok}`);
        this.advance('=');
      }
      this.expect('=');
      values.push(this.parseExpression());
      if (this.t() === until) break;
      if (this.t() !== ',') this.addError("missing ',' in field list");
      this.next();
    }
    return values;
  }
}

/** A configuration as Alloy's parser reads it: its statements, and its errors in Alloy's words with their lines. */
export function parseAlloy(text: string): { body: AlloyStatement[]; errors: (AlloyError & { line: number })[] } {
  const parser = new AlloyParser(text);
  const body = parser.parseBody('EOF');
  return { body, errors: parser.errors.map((e) => ({ ...e, line: parser.lineOf(e.offset) })) };
}
