/**
 * The reading half of Go's text/template parser (text/template/parse/parse.go): the items a lexer made, read with the
 * parser's three-token lookahead, and an error raised in Go's words (`template: name:line: ...`), with a lexer's
 * error placed in the action it broke.
 */
import { isKeyword, type Item, type ItemType } from './template-lex.ts';

/** What every tree of one parse shares: the items, the functions defined, and the templates defined so far. */
export interface ParseState {
  parseName: string;
  items: { list: Item[]; at: number };
  functions: ReadonlySet<string>;
  /** The templates defined so far, and whether each is empty (a non-empty one may not be defined again). */
  defined: Map<string, boolean>;
}

/** A parse error, thrown up to the parse's entry (Go's parser panics and recovers the same way). */
export class TemplateError extends Error {}

/** Go's item String: what "unexpected %s" prints of a token. */
function itemString(item: Item): string {
  if (item.type === 'eof') return 'EOF';
  if (item.type === 'error') return item.val;
  if (isKeyword(item.type)) return `<${item.val}>`;
  const runes = Array.from(item.val);
  return runes.length > 10 ? `${JSON.stringify(runes.slice(0, 10).join(''))}...` : JSON.stringify(item.val);
}

/** A template's tokens with Go's three-token lookahead (Tree.next, peek, backup), and its errors in Go's words. */
export class TokenReader {
  private peekCount = 0;
  private readonly token: Item[] = [];
  /** The line of the action being parsed, which an error in it names (`in action started at`). */
  protected actionLine = 0;

  private readonly state: ParseState;

  constructor(state: ParseState) {
    this.state = state;
  }

  private lexNext(): Item {
    const item = this.state.items.list[Math.min(this.state.items.at, this.state.items.list.length - 1)]!;
    this.state.items.at++;
    return item;
  }
  protected next(): Item {
    if (this.peekCount > 0) this.peekCount--;
    else this.token[0] = this.lexNext();
    return this.token[this.peekCount]!;
  }
  protected backup(): void {
    this.peekCount++;
  }
  protected backup2(t1: Item): void {
    this.token[1] = t1;
    this.peekCount = 2;
  }
  protected backup3(t2: Item, t1: Item): void {
    this.token[1] = t1;
    this.token[2] = t2;
    this.peekCount = 3;
  }
  protected peek(): Item {
    if (this.peekCount > 0) return this.token[this.peekCount - 1]!;
    this.peekCount = 1;
    this.token[0] = this.lexNext();
    return this.token[0];
  }
  protected nextNonSpace(): Item {
    let token = this.next();
    while (token.type === 'space') token = this.next();
    return token;
  }
  protected peekNonSpace(): Item {
    const token = this.nextNonSpace();
    this.backup();
    return token;
  }

  protected errorf(message: string): never {
    throw new TemplateError(`template: ${this.state.parseName}:${this.token[0]?.line ?? 1}: ${message}`);
  }
  protected expect(expected: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.type !== expected) this.unexpected(token, context);
    return token;
  }
  protected unexpected(token: Item, context: string): never {
    if (token.type === 'error') {
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.state.parseName}:${this.actionLine}`;
        if (token.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      this.errorf(`${token.val}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }
}
