/**
 * Alloy's scanner, as Alloy v1.18.1's `syntax/scanner/scanner.go` reads a configuration: its tokens, the statement
 * terminators it inserts (after an identifier, a literal or a closing bracket at a line's end, a comment ending the
 * line included), strings with their escapes, numbers, comments, each error in Alloy's words at its offset.
 */
import { digitVal, hexRune, isDecimal, isDigit, isLetter, singleOperator, type Tok } from './tokens.ts';

const EOF = -1;
const BOM = 0xfeff;

/** A token: where it starts, what it is, and its text (a literal's, a comment's). */
export interface Scanned {
  offset: number;
  tok: Tok;
  lit: string;
}

/** The scanner: offsets are UTF-16 code units of the text, where Alloy's are bytes (positions are only compared here). */
export class AlloyScanner {
  private ch = EOF;
  private offset = 0;
  private readOffset = 0;
  private insertTerm = false;

  private readonly input: string;
  private readonly onError: ((offset: number, message: string) => void) | undefined;
  private readonly insertTerms: boolean;

  constructor(input: string, onError: ((offset: number, message: string) => void) | undefined, insertTerms = true) {
    this.input = input;
    this.onError = onError;
    this.insertTerms = insertTerms;
    this.next();
    if (this.ch === BOM) this.next();
  }

  /** Where the scanner stands: the end of the token it returned last. */
  get position(): number {
    return this.offset;
  }

  private error(offset: number, message: string): void {
    this.onError?.(offset, message);
  }

  /** The current character, read afresh (TypeScript would keep a comparison's narrowing across next()). */
  private at(): number {
    return this.ch;
  }

  private peek(): number {
    return this.readOffset < this.input.length ? this.input.charCodeAt(this.readOffset) : 0;
  }

  private next(): void {
    if (this.readOffset >= this.input.length) {
      this.offset = this.input.length;
      this.ch = EOF;
      return;
    }
    this.offset = this.readOffset;
    const r = this.input.codePointAt(this.readOffset)!;
    if (r === 0) this.error(this.offset, 'illegal character NUL');
    else if (r === BOM && this.offset > 0) this.error(this.offset, 'illegal byte order mark');
    this.readOffset += r > 0xffff ? 2 : 1;
    this.ch = r;
  }

  scan(): Scanned {
    this.skipWhitespace();
    const offset = this.offset;
    const ch = this.ch;
    let read: Scanned & { insertTerm: boolean };
    if (isLetter(ch)) {
      const lit = this.scanIdentifier();
      const tok: Tok = lit.length > 1 ? (lit === 'true' || lit === 'false' ? 'BOOL' : lit === 'null' ? 'NULL' : 'IDENT') : 'IDENT';
      read = { offset, tok, lit, insertTerm: true };
    } else if (isDecimal(ch) || (ch === 0x2e && isDecimal(this.peek()))) {
      const [tok, lit] = this.scanNumber();
      read = { offset, tok, lit, insertTerm: true };
    } else {
      this.next();
      const other = this.scanOther(ch, offset);
      // A terminator (a newline, the end, or before a comment that ends the line) sets no new terminator to insert.
      if (other.tok === 'TERMINATOR') {
        this.insertTerm = false;
        return other;
      }
      read = { ...other, insertTerm: other.insertTerm ?? false };
    }
    if (this.insertTerms) this.insertTerm = read.insertTerm;
    return { offset: read.offset, tok: read.tok, lit: read.lit };
  }

  /** Every token that starts with something else than a letter or a digit: `ch`, already consumed, at `offset`. */
  private scanOther(ch: number, offset: number): Scanned & { insertTerm?: boolean } {
    const terminator = { offset, tok: 'TERMINATOR' as const, lit: '\n' };
    const quoted = (tok: Tok, escape: boolean, multiline: boolean) => ({ offset, tok, lit: this.scanString(ch, escape, multiline), insertTerm: true });
    switch (ch) {
      case EOF:
        return this.insertTerm ? terminator : { offset, tok: 'EOF', lit: '' };
      case 0x0a:
        return terminator;
      case 0x27:
        this.error(offset, 'illegal single-quoted string; use double quotes');
        return quoted('ILLEGAL', true, false);
      case 0x22:
        return quoted('STRING', true, false);
      case 0x60:
        return quoted('STRING', false, true);
      case 0x7c:
      case 0x26: {
        const c = String.fromCharCode(ch);
        if (this.ch !== ch) this.error(this.offset, `missing second ${c} in ${c}${c}`);
        else this.next();
        return { offset, tok: ch === 0x7c ? '||' : '&&', lit: '' };
      }
      case 0x21:
      case 0x3d:
      case 0x3c:
      case 0x3e: {
        const one = String.fromCharCode(ch) as Tok;
        return { offset, tok: this.switch2(one, `${one}=` as Tok), lit: '' };
      }
      case 0x2f:
        if (this.ch !== 0x2f && this.ch !== 0x2a) return { offset, tok: '/', lit: '' };
        // A comment ending the line ends the statement: the terminator comes first, and the comment is read after it.
        if (this.insertTerm && this.findLineEnd()) {
          this.ch = 0x2f;
          this.offset = offset;
          this.readOffset = offset + 1;
          return terminator;
        }
        return { offset, tok: 'COMMENT', lit: this.scanComment(), insertTerm: false };
      case 0x7d:
      case 0x29:
      case 0x5d:
        return { offset, tok: String.fromCharCode(ch) as Tok, lit: '', insertTerm: true };
      default: {
        const tok = singleOperator(ch);
        if (tok) return { offset, tok, lit: '' };
        if (ch !== BOM) this.error(offset, `illegal character ${hexRune(ch)}`);
        return { offset, tok: 'ILLEGAL', lit: String.fromCodePoint(ch), insertTerm: this.insertTerm };
      }
    }
  }

  private skipWhitespace(): void {
    while (this.ch === 0x20 || this.ch === 0x09 || this.ch === 0x0d || (this.ch === 0x0a && !this.insertTerm)) this.next();
  }

  private scanIdentifier(): string {
    const off = this.offset;
    while (isLetter(this.ch) || isDigit(this.ch)) this.next();
    return this.input.slice(off, this.offset);
  }

  private digits(): number {
    let count = 0;
    while (isDecimal(this.ch)) {
      this.next();
      count++;
    }
    return count;
  }

  private scanNumber(): [Tok, string] {
    let tok: Tok = 'NUMBER';
    const off = this.offset;
    if (this.ch !== 0x2e) this.digits();
    if (this.ch === 0x2e) {
      tok = 'FLOAT';
      this.next();
      this.digits();
    }
    if ((this.ch | 0x20) === 0x65) {
      tok = 'FLOAT';
      this.next();
      if (this.ch === 0x2b || this.ch === 0x2d) this.next();
      if (this.digits() === 0) this.error(off, 'exponent has no digits');
    }
    return [tok, this.input.slice(off, this.offset)];
  }

  private scanString(until: number, escape: boolean, multiline: boolean): string {
    const off = this.offset - 1;
    for (;;) {
      const ch = this.ch;
      if ((!multiline && ch === 0x0a) || ch === EOF) {
        this.error(off, 'string literal not terminated');
        break;
      }
      this.next();
      if (ch === until) break;
      if (escape && ch === 0x5c) this.scanEscape();
    }
    return this.input.slice(off, this.offset);
  }

  private scanEscape(): void {
    const off = this.offset;
    let n: number;
    let base: number;
    let max: number;
    if ('abfnrtv\\"'.includes(String.fromCodePoint(Math.max(this.ch, 0))) && this.ch !== EOF) {
      this.next();
      return;
    }
    if (this.ch >= 0x30 && this.ch <= 0x37) [n, base, max] = [3, 8, 255];
    else if (this.ch === 0x78) [n, base, max] = [2, 16, 255];
    else if (this.ch === 0x75) [n, base, max] = [4, 16, 0x10ffff];
    else if (this.ch === 0x55) [n, base, max] = [8, 16, 0x10ffff];
    else {
      this.error(off, this.ch === EOF ? 'escape sequence not terminated' : 'unknown escape sequence');
      return;
    }
    if (base === 16) this.next();
    let x = 0;
    for (; n > 0; n--) {
      const d = digitVal(this.ch);
      if (d >= base) {
        this.error(off, this.ch === EOF ? 'escape sequence not terminated' : `illegal character ${hexRune(this.ch)} in escape sequence`);
        return;
      }
      x = x * base + d;
      this.next();
    }
    if (x > max || (x >= 0xd800 && x < 0xe000)) this.error(off, 'escape sequence is invalid Unicode code point');
  }

  private scanComment(): string {
    const off = this.offset - 1;
    if (this.at() === 0x2f) {
      this.next();
      while (this.at() !== 0x0a && this.at() !== EOF) this.next();
      return this.input.slice(off, this.offset).replace(/\r$/, '').replaceAll('\r', '');
    }
    this.next();
    while (this.at() !== EOF) {
      const ch = this.ch;
      this.next();
      if (ch === 0x2a && this.at() === 0x2f) {
        this.next();
        return this.input.slice(off, this.offset);
      }
    }
    this.error(off, 'block comment not terminated');
    return this.input.slice(off, this.offset);
  }

  /** Whether the comment starting here runs to the end of its line (then a terminator goes before it). */
  private findLineEnd(): boolean {
    const start = this.offset - 1;
    const restore = () => {
      this.ch = 0x2f;
      this.offset = start;
      this.readOffset = start + 1;
      this.next();
    };
    try {
      while (this.at() === 0x2f || this.at() === 0x2a) {
        if (this.at() === 0x2f) return true;
        this.next();
        while (this.at() !== EOF) {
          const ch = this.ch;
          if (ch === 0x0a) return true;
          this.next();
          if (ch === 0x2a && this.at() === 0x2f) {
            this.next();
            break;
          }
        }
        this.skipWhitespace();
        if (this.at() === EOF || this.at() === 0x0a) return true;
        if (this.at() !== 0x2f) return false;
        this.next();
      }
      return false;
    } finally {
      restore();
    }
  }

  private switch2(a: Tok, b: Tok): Tok {
    if (this.ch === 0x3d) {
      this.next();
      return b;
    }
    return a;
  }
}

/** scanner.IsValidIdentifier: the whole text scans as one identifier. */
export function isValidIdentifier(text: string): boolean {
  const { tok, lit } = new AlloyScanner(text, undefined, false).scan();
  return tok === 'IDENT' && lit === text;
}
