/**
 * A label selector as the API server reads one from a list or watch request's `labelSelector` (apimachinery's
 * pkg/labels/selector.go: its Lexer, its Parser, NewRequirement): `x in (a,b),!y,z=c,n>1`. A selector it cannot
 * parse makes the server refuse every such request (400), so a program that lists by it sees nothing. The set-based
 * operators' values are a set (sorted, each once); the requirements are sorted by key, as Parse sorts them.
 */
import { qualifiedName, requirementError, type LabelRequirement, type SelectionOperator } from '../scheduling/label-syntax.ts';

export type Token = { kind: 'end' | 'identifier' | 'error' | SymbolToken; literal: string };
type SymbolToken = ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(';

/** string2token: the lexer's literal tokens (an identifier spelled `in` or `notin` is one). */
const TOKENS = new Set<string>([')', ',', '!', '==', '=', '>', 'in', '<', '!=', 'notin', '(']);
const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

/** The Lexer's tokens up to and with the first end of string (a NUL byte ends it, as the Go lexer reads 0 as the end). */
export function lex(s: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  const read = () => (pos < s.length ? s[pos++]! : '\0');
  for (;;) {
    let ch = read();
    while (WHITESPACE.has(ch)) ch = read();
    if (ch === '\0') {
      tokens.push({ kind: 'end', literal: '' });
      return tokens;
    }
    pos--;
    tokens.push(SPECIAL.has(ch) ? scanSymbol() : scanWord());
  }
  // scanSpecialSymbol: the longest run of special characters that is a token, one character at a time.
  function scanSymbol(): Token {
    let [buffer, last] = ['', undefined as string | undefined];
    for (;;) {
      const ch = read();
      if (ch === '\0') break;
      if (!SPECIAL.has(ch)) {
        pos--;
        break;
      }
      buffer += ch;
      if (TOKENS.has(buffer)) last = buffer;
      else if (last !== undefined) {
        pos--;
        break;
      }
    }
    return last === undefined ? { kind: 'error', literal: `error expected: keyword found '${buffer}'` } : { kind: last as SymbolToken, literal: last };
  }
  // scanIDOrKeyword: up to a special character, a blank or the end.
  function scanWord(): Token {
    let buffer = '';
    for (;;) {
      const ch = read();
      if (ch === '\0') break;
      if (SPECIAL.has(ch) || WHITESPACE.has(ch)) {
        pos--;
        break;
      }
      buffer += ch;
    }
    return TOKENS.has(buffer) ? { kind: buffer as SymbolToken, literal: buffer } : { kind: 'identifier', literal: buffer };
  }
}

const BINARY: Readonly<Record<string, SelectionOperator>> = { in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt' };
const BINARY_NAMES = 'in, notin, =, ==, !=, gt, lt';

class SelectorError extends Error {}

/** The Parser over the lexed tokens: each method as selector.go's, its errors in its words. */
class Parser {
  private position = 0;
  private readonly tokens: readonly Token[];
  constructor(tokens: readonly Token[]) {
    this.tokens = tokens;
  }

  /** lookahead and consume: in the values' context, `in` and `notin` are identifiers. */
  private peek(values = true): Token {
    return this.asValue(this.tokens[this.position]!, values);
  }
  private next(values = true): Token {
    return this.asValue(this.tokens[this.position++]!, values);
  }
  private asValue(t: Token, values: boolean): Token {
    return values && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'identifier', literal: t.literal } : t;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'end') return requirements;
      if (t.kind !== 'identifier' && t.kind !== '!') throw new SelectorError(`found '${t.literal}', expected: !, identifier, or 'end of string'`);
      requirements.push(this.requirement());
      const after = this.next();
      if (after.kind === 'end') return requirements;
      if (after.kind !== ',') throw new SelectorError(`found '${after.literal}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.kind !== 'identifier' && following.kind !== '!') throw new SelectorError(`found '${following.literal}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    try {
      const { key, operator } = this.keyAndOperator();
      if (operator) return built({ key, operator, values: [] });
      const op = this.next(false);
      const binary = Object.hasOwn(BINARY, op.kind) ? BINARY[op.kind]! : undefined;
      if (!binary) throw new SelectorError(`found '${op.literal}', expected: ${BINARY_NAMES}`);
      const values = binary === 'in' || binary === 'notin' ? this.valueSet() : this.exactValue();
      return built({ key, operator: binary, values: [...new Set(values)].sort() });
    } catch (err) {
      throw new SelectorError(`unable to parse requirement: ${(err as Error).message}`);
    }
  }

  /** parseKeyAndInferOperator: `!key` does not exist; a key alone before a `,` or the end exists. */
  private keyAndOperator(): { key: string; operator?: 'exists' | '!' } {
    let t = this.next();
    const absent = t.kind === '!';
    if (absent) t = this.next();
    if (t.kind !== 'identifier') throw new SelectorError(`found '${t.literal}', expected: identifier`);
    // validateLabelKey under the parser's path, which Parse leaves nil: field.Error prints it as <nil>.
    const problem = qualifiedName(t.literal);
    if (problem) throw new SelectorError(`<nil>: Invalid value: ${JSON.stringify(t.literal)}: ${problem}`);
    const ahead = this.peek().kind;
    if (absent) return { key: t.literal, operator: '!' };
    return ahead === 'end' || ahead === ',' ? { key: t.literal, operator: 'exists' } : { key: t.literal };
  }

  /** parseValues: `(a,b)`, where an empty member (`(a,)`, `()`) is the empty value. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw new SelectorError(`found '${open.literal}' expected: '('`);
    const first = this.peek();
    if (first.kind === ')') {
      this.next();
      return [''];
    }
    if (first.kind !== 'identifier' && first.kind !== ',') throw new SelectorError(`found '${first.literal}', expected: ',', ')' or identifier`);
    const values = this.identifiers();
    // selector.go names the token it looked ahead at before the list, not the one it finds.
    if (this.next().kind !== ')') throw new SelectorError(`found '${first.literal}', expected: ')'`);
    return values;
  }

  /** parseIdentifiersList: identifiers between commas, an empty one where two commas, or a comma and a bracket, meet. */
  private identifiers(): string[] {
    const values: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === 'identifier') {
        values.push(t.literal);
        const ahead = this.peek();
        if (ahead.kind === ')') return values;
        if (ahead.kind !== ',') throw new SelectorError(`found '${ahead.literal}', expected: ',' or ')'`);
      } else if (t.kind === ',') {
        if (values.length === 0) values.push('');
        const ahead = this.peek().kind;
        if (ahead === ')') return [...values, ''];
        if (ahead === ',') values.push('');
      } else throw new SelectorError(`found '${t.literal}', expected: ',', or identifier`);
    }
  }

  /** parseExactValue: one identifier, or the empty value before a `,` or the end. */
  private exactValue(): string[] {
    const ahead = this.peek().kind;
    if (ahead === 'end' || ahead === ',') return [''];
    const t = this.next();
    if (t.kind !== 'identifier') throw new SelectorError(`found '${t.literal}', expected: identifier`);
    return [t.literal];
  }
}

/** NewRequirement: the requirement, or its error. */
function built(r: LabelRequirement): LabelRequirement {
  const error = requirementError(r);
  if (error) throw new SelectorError(error);
  return r;
}

const WRITTEN: Readonly<Record<SelectionOperator, string>> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** internalSelector.String: each requirement as Requirement.String writes it (a set's values sorted), joined by commas. */
export function labelSelectorString(requirements: readonly LabelRequirement[]): string {
  return requirements
    .map((r) => {
      const head = `${r.operator === '!' ? '!' : ''}${r.key}${WRITTEN[r.operator]}`;
      if (r.operator === 'exists' || r.operator === '!') return head;
      const values = [...r.values].sort().join(',');
      return r.operator === 'in' || r.operator === 'notin' ? `${head}(${values})` : `${head}${values}`;
    })
    .join(',');
}

/** labels.Parse: the selector's requirements sorted by key, or the error the API server answers a list with. */
export function parseLabelSelector(selector: string): { requirements: LabelRequirement[] } | { error: string } {
  try {
    const requirements = new Parser(lex(selector)).parse();
    return { requirements: requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) };
  } catch (err) {
    if (err instanceof SelectorError) return { error: err.message };
    throw err;
  }
}
