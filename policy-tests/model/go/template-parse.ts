/**
 * Go's text/template parser (text/template/parse/parse.go), for what `template.New(name).Funcs(f).Parse(text)`
 * refuses: a syntax error, a function the template's function map and text/template's builtins lack, an undefined
 * variable, a break outside a range, a template defined twice. The tree is kept only as far as those need it. Go
 * 1.19's parser, with 1.23's `{{else with}}`: what Go 1.25 parses, which the programs the cluster runs are built with.
 */
import { lexTemplate, type Item, type ItemType } from './template-lex.ts';
import { templateNumber } from './template-number.ts';
import { TemplateError, TokenReader, type ParseState } from './template-tree.ts';
import { goUnquote, GO_SYNTAX_ERROR } from './strconv.ts';

/** text/template's builtins (funcs.go), which every template may call. */
export const TEXT_TEMPLATE_BUILTINS: ReadonlySet<string> = new Set([
  'and',
  'call',
  'html',
  'index',
  'slice',
  'js',
  'len',
  'not',
  'or',
  'print',
  'printf',
  'println',
  'urlquery',
  'eq',
  'ge',
  'gt',
  'le',
  'lt',
  'ne',
]);

type NodeType =
  | 'text'
  | 'action'
  | 'end'
  | 'else'
  | 'bool'
  | 'dot'
  | 'nil'
  | 'number'
  | 'string'
  | 'field'
  | 'variable'
  | 'identifier'
  | 'chain'
  | 'pipe'
  | 'control'
  | 'template'
  | 'break'
  | 'continue';

interface Node {
  type: NodeType;
  /** How Go's String prints the node, where a message prints it. */
  text: string;
}

interface Command {
  args: Node[];
}

const OPERAND_STARTS: ReadonlySet<ItemType> = new Set([
  'bool',
  'charConstant',
  'complex',
  'dot',
  'field',
  'identifier',
  'number',
  'nil',
  'rawString',
  'string',
  'variable',
  'leftParen',
]);

/** One template's parse (Tree): the grammar, over the lookahead and the errors its base keeps. */
class Tree extends TokenReader {
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private name: string;
  private readonly shared: ParseState;

  constructor(name: string, shared: ParseState) {
    super(shared);
    this.name = name;
    this.shared = shared;
  }

  /** The top level: text, actions and definitions, to the end of the input. */
  parse(): void {
    const root: Node[] = [];
    while (this.peek().type !== 'eof') {
      if (this.peek().type === 'leftDelim') {
        const delim = this.next();
        if (this.nextNonSpace().type === 'define') {
          this.subTree('definition').parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (n.type === 'end' || n.type === 'else') this.errorf(`unexpected ${n.text}`);
      root.push(n);
    }
    this.add(root);
  }

  private subTree(name: string): Tree {
    return new Tree(name, this.shared);
  }

  /** Tree.add: a second non-empty definition of one name is an error. */
  private add(root: readonly Node[]): void {
    const empty = root.every((n) => n.type === 'text' && n.text.trim() === '');
    if (this.shared.defined.get(this.name) === false && !empty) this.errorf(`template: multiple definition of template ${JSON.stringify(this.name)}`);
    if (!this.shared.defined.has(this.name) || this.shared.defined.get(this.name) === true) this.shared.defined.set(this.name, empty);
  }

  private parseDefinition(): void {
    const context = 'define clause';
    const token = this.nextNonSpace();
    if (token.type !== 'string' && token.type !== 'rawString') this.unexpected(token, context);
    const name = goUnquote(token.val);
    if (name === undefined) this.errorf(GO_SYNTAX_ERROR);
    this.name = name;
    this.expect('rightDelim', context);
    const { list, next } = this.itemList();
    if (next.type !== 'end') this.errorf(`unexpected ${next.text} in ${context}`);
    this.add(list);
  }

  private itemList(): { list: Node[]; next: Node } {
    const list: Node[] = [];
    while (this.peekNonSpace().type !== 'eof') {
      const n = this.textOrAction();
      if (n.type === 'end' || n.type === 'else') return { list, next: n };
      list.push(n);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): Node {
    const token = this.nextNonSpace();
    if (token.type === 'text') return { type: 'text', text: token.val };
    if (token.type === 'comment') return { type: 'text', text: '' };
    if (token.type !== 'leftDelim') this.unexpected(token, 'input');
    this.actionLine = token.line;
    try {
      return this.action();
    } finally {
      this.actionLine = 0;
    }
  }

  private action(): Node {
    const token = this.nextNonSpace();
    switch (token.type) {
      case 'block':
        return this.blockControl();
      case 'break':
      case 'continue':
        return this.loopControl(token.type);
      case 'else':
        return this.elseControl();
      case 'end':
        this.expect('rightDelim', 'end');
        return { type: 'end', text: '{{end}}' };
      case 'if':
      case 'range':
      case 'with':
        return this.parseControl(token.type);
      case 'template':
        return this.templateControl();
      default:
        this.backup();
        this.pipeline('command', 'rightDelim');
        return { type: 'action', text: '{{}}' };
    }
  }

  private loopControl(word: 'break' | 'continue'): Node {
    const token = this.nextNonSpace();
    if (token.type !== 'rightDelim') this.unexpected(token, `{{${word}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${word}}} outside {{range}}`);
    return { type: word, text: `{{${word}}}` };
  }

  private pipeline(context: string, end: ItemType): Node {
    const decls: string[] = [];
    for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== 'variable') break;
      this.next();
      const tokenAfterVariable = this.peek();
      const next = this.peekNonSpace();
      if (next.type === 'assign' || next.type === 'declare') {
        this.nextNonSpace();
        decls.push(v.val);
        this.vars.push(v.val);
      } else if (next.type === 'char' && next.val === ',') {
        this.nextNonSpace();
        decls.push(v.val);
        this.vars.push(v.val);
        if (context === 'range' && decls.length < 2) {
          const after = this.peekNonSpace().type;
          if (after === 'variable' || after === 'rightDelim' || after === 'rightParen') continue;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (tokenAfterVariable.type === 'space') this.backup3(v, tokenAfterVariable);
      else this.backup2(v);
      break;
    }
    const commands: Command[] = [];
    for (;;) {
      const token = this.nextNonSpace();
      if (token.type === end) {
        this.checkPipeline(commands, context);
        return { type: 'pipe', text: '' };
      }
      if (!OPERAND_STARTS.has(token.type)) this.unexpected(token, context);
      this.backup();
      commands.push(this.command());
    }
  }

  private checkPipeline(commands: readonly Command[], context: string): void {
    if (commands.length === 0) this.errorf(`missing value for ${context}`);
    commands.slice(1).forEach((c, i) => {
      if (['bool', 'dot', 'nil', 'number', 'string'].includes(c.args[0]!.type)) this.errorf(`non executable command in pipeline stage ${i + 2}`);
    });
  }

  /** if, range and with: the pipeline, the list, and an else's list (`else if`, and `else with` since Go 1.23). */
  private parseControl(context: 'if' | 'range' | 'with'): Node {
    const depth = this.vars.length;
    try {
      this.pipeline(context, 'rightDelim');
      if (context === 'range') this.rangeDepth++;
      let { next } = this.itemList();
      if (context === 'range') this.rangeDepth--;
      if (next.type === 'else') {
        const chained = this.peek().type;
        if ((context === 'if' && chained === 'if') || (context === 'with' && chained === 'with')) {
          this.next();
          this.parseControl(context);
        } else {
          ({ next } = this.itemList());
          if (next.type !== 'end') this.errorf(`expected end; found ${next.text}`);
        }
      }
      return { type: 'control', text: `{{${context}}}` };
    } finally {
      this.vars.length = depth;
    }
  }

  private elseControl(): Node {
    // "{{else if" and "{{else with" leave the keyword for parseControl.
    const peek = this.peekNonSpace();
    if (peek.type === 'if' || peek.type === 'with') return { type: 'else', text: '{{else}}' };
    this.expect('rightDelim', 'else');
    return { type: 'else', text: '{{else}}' };
  }

  private blockControl(): Node {
    const context = 'block clause';
    const name = this.templateName(this.nextNonSpace(), context);
    this.pipeline(context, 'rightDelim');
    const block = this.subTree(name);
    const { list, next } = block.itemList();
    if (next.type !== 'end') this.errorf(`unexpected ${next.text} in ${context}`);
    block.add(list);
    return { type: 'template', text: '{{template}}' };
  }

  private templateControl(): Node {
    const context = 'template clause';
    this.templateName(this.nextNonSpace(), context);
    if (this.nextNonSpace().type !== 'rightDelim') {
      this.backup();
      this.pipeline(context, 'rightDelim');
    }
    return { type: 'template', text: '{{template}}' };
  }

  private templateName(token: Item, context: string): string {
    if (token.type !== 'string' && token.type !== 'rawString') this.unexpected(token, context);
    const name = goUnquote(token.val);
    if (name === undefined) this.errorf(GO_SYNTAX_ERROR);
    return name;
  }

  private command(): Command {
    const args: Node[] = [];
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) args.push(operand);
      const token = this.next();
      if (token.type === 'space') continue;
      if (token.type === 'rightDelim' || token.type === 'rightParen') this.backup();
      else if (token.type !== 'pipe') this.unexpected(token, 'operand');
      break;
    }
    if (args.length === 0) this.errorf('empty command');
    return { args };
  }

  private operand(): Node | undefined {
    const node = this.term();
    if (!node || this.peek().type !== 'field') return node;
    let text = node.text;
    while (this.peek().type === 'field') text += this.next().val;
    if (['bool', 'string', 'number', 'nil', 'dot'].includes(node.type)) this.errorf(`unexpected . after term ${JSON.stringify(node.text)}`);
    return { type: node.type === 'field' || node.type === 'variable' ? node.type : 'chain', text };
  }

  private term(): Node | undefined {
    const token = this.nextNonSpace();
    switch (token.type) {
      case 'identifier':
        if (!this.shared.functions.has(token.val)) this.errorf(`function ${JSON.stringify(token.val)} not defined`);
        return { type: 'identifier', text: token.val };
      case 'dot':
        return { type: 'dot', text: '.' };
      case 'nil':
        return { type: 'nil', text: 'nil' };
      case 'variable':
        return this.useVar(token.val);
      case 'field':
        return { type: 'field', text: token.val };
      case 'bool':
        return { type: 'bool', text: token.val };
      case 'charConstant':
      case 'complex':
      case 'number': {
        const number = templateNumber(token.val, token.type);
        if ('error' in number) this.errorf(number.error);
        return { type: 'number', text: token.val };
      }
      case 'leftParen':
        this.pipeline('parenthesized pipeline', 'rightParen');
        return { type: 'pipe', text: '(pipeline)' };
      case 'string':
      case 'rawString':
        if (goUnquote(token.val) === undefined) this.errorf(GO_SYNTAX_ERROR);
        return { type: 'string', text: token.val };
      default:
        this.backup();
        return undefined;
    }
  }

  private useVar(name: string): Node {
    const first = name.split('.')[0]!;
    if (!this.vars.includes(first)) this.errorf(`undefined variable ${JSON.stringify(first)}`);
    return { type: 'variable', text: name };
  }
}

/**
 * Why Go's parser refuses `text` as the template `name` where `functions` are the names defined (text/template passes
 * its builtins among them: `TEXT_TEMPLATE_BUILTINS`), in Go's words (`template: name:line: ...`), or undefined.
 */
export function templateParseError(name: string, text: string, functions: ReadonlySet<string>): string | undefined {
  const items = lexTemplate(text, { breakOK: !functions.has('break'), continueOK: !functions.has('continue') });
  try {
    new Tree(name, { parseName: name, items: { list: items, at: 0 }, functions, defined: new Map() }).parse();
    return undefined;
  } catch (e) {
    if (e instanceof TemplateError) return e.message;
    throw e;
  }
}
