/**
 * Go's text/template lexer (text/template/parse/lex.go, Go 1.19 to 1.25, which lex alike), read for what a parse of a
 * template refuses: the items of a text with `{{` `}}`, trim markers and comments, up to the first error item. Lines are
 * counted as Go counts them, since the parser's messages carry them.
 */

export type ItemType =
  | 'error'
  | 'bool'
  | 'char'
  | 'charConstant'
  | 'comment'
  | 'complex'
  | 'assign'
  | 'declare'
  | 'eof'
  | 'field'
  | 'identifier'
  | 'leftDelim'
  | 'leftParen'
  | 'number'
  | 'pipe'
  | 'rawString'
  | 'rightDelim'
  | 'rightParen'
  | 'space'
  | 'string'
  | 'text'
  | 'variable'
  // Keywords.
  | 'block'
  | 'break'
  | 'continue'
  | 'dot'
  | 'define'
  | 'else'
  | 'end'
  | 'if'
  | 'nil'
  | 'range'
  | 'template'
  | 'with';

export interface Item {
  type: ItemType;
  val: string;
  line: number;
}

const KEYWORDS: ReadonlySet<ItemType> = new Set(['block', 'break', 'continue', 'dot', 'define', 'else', 'end', 'if', 'nil', 'range', 'template', 'with']);
const KEYWORD_OF: Readonly<Record<string, ItemType>> = {
  '.': 'dot',
  block: 'block',
  break: 'break',
  continue: 'continue',
  define: 'define',
  else: 'else',
  end: 'end',
  if: 'if',
  range: 'range',
  nil: 'nil',
  template: 'template',
  with: 'with',
};

export const isKeyword = (t: ItemType): boolean => KEYWORDS.has(t);

const EOF = -1;
const LEFT = '{{';
const RIGHT = '}}';
const TRIM_MARKER_LEN = 2;
const SPACE_CHARS = /^[ \t\r\n]*/;

const isSpace = (r: number): boolean => r === 0x20 || r === 0x09 || r === 0x0d || r === 0x0a;
const isAlphaNumeric = (r: number): boolean => r === 0x5f || (r >= 0 && /[\p{L}\p{Nd}]/u.test(String.fromCodePoint(r)));
const hasLeftTrimMarker = (s: string): boolean => s.length >= 2 && s[0] === '-' && isSpace(s.charCodeAt(1));
const hasRightTrimMarker = (s: string): boolean => s.length >= 2 && isSpace(s.charCodeAt(0)) && s[1] === '-';
const countLines = (s: string): number => s.split('\n').length - 1;

/** Go's `%#U` of a rune, as the lexer's messages print one: U+0023 '#'. */
const runeName = (r: number): string => `U+${r.toString(16).toUpperCase().padStart(4, '0')}${r >= 0x20 && r !== 0x7f ? ` '${String.fromCodePoint(r)}'` : ''}`;

type State = ((l: Lexer) => State) | undefined;

class Lexer {
  pos = 0;
  start = 0;
  atEOF = false;
  parenDepth = 0;
  line = 1;
  startLine = 1;
  readonly items: Item[] = [];
  readonly input: string;
  /** Whether break and continue are keywords: not where the template defines a function of that name. */
  readonly breakOK: boolean;
  readonly continueOK: boolean;
  constructor(input: string, breakOK: boolean, continueOK: boolean) {
    this.input = input;
    this.breakOK = breakOK;
    this.continueOK = continueOK;
  }

  next(): number {
    if (this.pos >= this.input.length) {
      this.atEOF = true;
      return EOF;
    }
    const r = this.input.codePointAt(this.pos)!;
    this.pos += r > 0xffff ? 2 : 1;
    if (r === 0x0a) this.line++;
    return r;
  }
  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }
  backup(): void {
    if (this.atEOF || this.pos === 0) return;
    const low = this.input.charCodeAt(this.pos - 1);
    this.pos -= low >= 0xdc00 && low < 0xe000 && this.pos >= 2 ? 2 : 1;
    if (low === 0x0a) this.line--;
  }
  emit(type: ItemType): void {
    this.items.push({ type, val: this.input.slice(this.start, this.pos), line: this.startLine });
    this.start = this.pos;
    this.startLine = this.line;
  }
  ignore(): void {
    this.line += countLines(this.input.slice(this.start, this.pos));
    this.start = this.pos;
    this.startLine = this.line;
  }
  accept(valid: string): boolean {
    const r = this.next();
    if (r !== EOF && valid.includes(String.fromCodePoint(r))) return true;
    this.backup();
    return false;
  }
  acceptRun(valid: string): void {
    while (this.accept(valid));
  }
  errorf(message: string): State {
    this.items.push({ type: 'error', val: message, line: this.startLine });
    return undefined;
  }
  rest(from = this.pos): string {
    return this.input.slice(from);
  }
  atRightDelim(): { delim: boolean; trim: boolean } {
    if (hasRightTrimMarker(this.rest()) && this.rest(this.pos + TRIM_MARKER_LEN).startsWith(RIGHT)) return { delim: true, trim: true };
    return { delim: this.rest().startsWith(RIGHT), trim: false };
  }
  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r) || r === EOF || '.,|:)('.includes(String.fromCodePoint(r))) return true;
    return this.rest().startsWith(RIGHT);
  }
}

function lexText(l: Lexer): State {
  const x = l.rest().indexOf(LEFT);
  if (x >= 0) {
    l.pos += x;
    const trimLength = hasLeftTrimMarker(l.rest(l.pos + LEFT.length)) ? rightTrimLength(l.input.slice(l.start, l.pos)) : 0;
    l.pos -= trimLength;
    if (l.pos > l.start) {
      l.line += countLines(l.input.slice(l.start, l.pos));
      l.emit('text');
    }
    l.pos += trimLength;
    l.ignore();
    return lexLeftDelim;
  }
  l.pos = l.input.length;
  if (l.pos > l.start) {
    l.line += countLines(l.input.slice(l.start, l.pos));
    l.emit('text');
  }
  l.emit('eof');
  return undefined;
}

const rightTrimLength = (s: string): number => s.length - s.replace(/[ \t\r\n]*$/, '').length;
const leftTrimLength = (s: string): number => SPACE_CHARS.exec(s)![0].length;

function lexLeftDelim(l: Lexer): State {
  l.pos += LEFT.length;
  const afterMarker = hasLeftTrimMarker(l.rest()) ? TRIM_MARKER_LEN : 0;
  if (l.rest(l.pos + afterMarker).startsWith('/*')) {
    l.pos += afterMarker;
    l.ignore();
    return lexComment;
  }
  l.emit('leftDelim');
  l.pos += afterMarker;
  l.ignore();
  l.parenDepth = 0;
  return lexInsideAction;
}

function lexComment(l: Lexer): State {
  l.pos += 2;
  const i = l.rest().indexOf('*/');
  if (i < 0) return l.errorf('unclosed comment');
  l.pos += i + 2;
  const { delim, trim } = l.atRightDelim();
  if (!delim) return l.errorf('comment ends before closing delimiter');
  if (trim) l.pos += TRIM_MARKER_LEN;
  l.pos += RIGHT.length;
  if (trim) l.pos += leftTrimLength(l.rest());
  l.ignore();
  return lexText;
}

function lexRightDelim(l: Lexer): State {
  const trim = hasRightTrimMarker(l.rest());
  if (trim) {
    l.pos += TRIM_MARKER_LEN;
    l.ignore();
  }
  l.pos += RIGHT.length;
  l.emit('rightDelim');
  if (trim) {
    l.pos += leftTrimLength(l.rest());
    l.ignore();
  }
  return lexText;
}

/** One step inside an action, by the rune it starts with. */
function lexInsideAction(l: Lexer): State {
  if (l.atRightDelim().delim) return l.parenDepth === 0 ? lexRightDelim : l.errorf('unclosed left paren');
  const r = l.next();
  const c = r === EOF ? '' : String.fromCodePoint(r);
  if (r === EOF) return l.errorf('unclosed action');
  if (isSpace(r)) {
    // The space goes back: it may start " -}}".
    l.backup();
    return lexSpace;
  }
  if (c === '=') l.emit('assign');
  else if (c === ':') {
    if (l.next() !== 0x3d) return l.errorf('expected :=');
    l.emit('declare');
  } else if (c === '|') l.emit('pipe');
  else if (c === '"') return lexQuote(l, '"', 'string', 'unterminated quoted string');
  else if (c === '`') return lexRawQuote;
  else if (c === '$') return lexVariable;
  else if (c === "'") return lexQuote(l, "'", 'charConstant', 'unterminated character constant');
  else if (c === '.' && l.pos < l.input.length && !/[0-9]/.test(l.input[l.pos]!)) return lexFieldOrVariable(l, 'field');
  else if (c === '.' || c === '+' || c === '-' || /[0-9]/.test(c)) {
    l.backup();
    return lexNumber;
  } else if (isAlphaNumeric(r)) {
    l.backup();
    return lexIdentifier;
  } else if (c === '(') {
    l.emit('leftParen');
    l.parenDepth++;
  } else if (c === ')') {
    l.emit('rightParen');
    if (--l.parenDepth < 0) return l.errorf(`unexpected right paren ${runeName(r)}`);
  } else if (r <= 0x7f && r >= 0x20 && r !== 0x7f) l.emit('char');
  else return l.errorf(`unrecognized character in action: ${runeName(r)}`);
  return lexInsideAction;
}

function lexSpace(l: Lexer): State {
  let spaces = 0;
  while (isSpace(l.peek())) {
    l.next();
    spaces++;
  }
  // " -}}" ends the action: the space before the marker belongs to it.
  if (hasRightTrimMarker(l.rest(l.pos - 1)) && l.rest(l.pos - 1 + TRIM_MARKER_LEN).startsWith(RIGHT)) {
    l.backup();
    if (spaces === 1) return lexRightDelim;
  }
  l.emit('space');
  return lexInsideAction;
}

function lexIdentifier(l: Lexer): State {
  let r = l.next();
  while (isAlphaNumeric(r)) r = l.next();
  l.backup();
  const word = l.input.slice(l.start, l.pos);
  if (!l.atTerminator()) return l.errorf(`bad character ${runeName(r)}`);
  const keyword = KEYWORD_OF[word];
  if (keyword) l.emit((keyword === 'break' && !l.breakOK) || (keyword === 'continue' && !l.continueOK) ? 'identifier' : keyword);
  else if (word.startsWith('.')) l.emit('field');
  else if (word === 'true' || word === 'false') l.emit('bool');
  else l.emit('identifier');
  return lexInsideAction;
}

function lexVariable(l: Lexer): State {
  if (l.atTerminator()) {
    l.emit('variable');
    return lexInsideAction;
  }
  return lexFieldOrVariable(l, 'variable');
}

function lexFieldOrVariable(l: Lexer, type: 'field' | 'variable'): State {
  if (l.atTerminator()) {
    l.emit(type === 'variable' ? 'variable' : 'dot');
    return lexInsideAction;
  }
  let r = l.next();
  while (isAlphaNumeric(r)) r = l.next();
  l.backup();
  if (!l.atTerminator()) return l.errorf(`bad character ${runeName(r)}`);
  l.emit(type);
  return lexInsideAction;
}

/** A quoted string or character constant; its escapes are the parser's (strconv's) to read. */
function lexQuote(l: Lexer, quote: string, type: ItemType, unterminated: string): State {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF && r !== 0x0a) continue;
    }
    if (r === EOF || r === 0x0a) return l.errorf(unterminated);
    if (String.fromCodePoint(r) === quote) break;
  }
  l.emit(type);
  return lexInsideAction;
}

function lexRawQuote(l: Lexer): State {
  for (;;) {
    const r = l.next();
    if (r === EOF) return l.errorf('unterminated raw quoted string');
    if (r === 0x60) break;
  }
  l.emit('rawString');
  return lexInsideAction;
}

function lexNumber(l: Lexer): State {
  if (!scanNumber(l)) return l.errorf(`bad number syntax: ${JSON.stringify(l.input.slice(l.start, l.pos))}`);
  const sign = l.peek();
  if (sign === 0x2b || sign === 0x2d) {
    // Complex: 1+2i, no spaces, ending in i.
    if (!scanNumber(l) || l.input[l.pos - 1] !== 'i') return l.errorf(`bad number syntax: ${JSON.stringify(l.input.slice(l.start, l.pos))}`);
    l.emit('complex');
  } else l.emit('number');
  return lexInsideAction;
}

function scanNumber(l: Lexer): boolean {
  l.accept('+-');
  let digits = '0123456789_';
  if (l.accept('0')) {
    if (l.accept('xX')) digits = '0123456789abcdefABCDEF_';
    else if (l.accept('oO')) digits = '01234567_';
    else if (l.accept('bB')) digits = '01_';
  }
  l.acceptRun(digits);
  if (l.accept('.')) l.acceptRun(digits);
  if (digits.length === 11 && l.accept('eE')) {
    l.accept('+-');
    l.acceptRun('0123456789_');
  }
  if (digits.length === 23 && l.accept('pP')) {
    l.accept('+-');
    l.acceptRun('0123456789_');
  }
  l.accept('i');
  if (isAlphaNumeric(l.peek())) {
    l.next();
    return false;
  }
  return true;
}

/** Every item of `input`, through its end or its first error. */
export function lexTemplate(input: string, { breakOK = true, continueOK = true } = {}): Item[] {
  const l = new Lexer(input, breakOK, continueOK);
  for (let state: State = lexText; state;) state = state(l);
  return l.items;
}
