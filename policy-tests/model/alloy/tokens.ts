/** Alloy's tokens and characters, as `syntax/token/token.go` and the scanner's helpers name them (Alloy v1.18.1), and the shapes of the expressions the parser builds of them. */

/** The operators and punctuation, each its own token, named by its text as Alloy's token names print them. */
const OPERATORS = ['||', '&&', '!', '=', '==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', '^', '{', '}', '(', ')', '[', ']', ',', '.'] as const;

export type Tok = 'ILLEGAL' | 'EOF' | 'COMMENT' | 'IDENT' | 'NUMBER' | 'FLOAT' | 'STRING' | 'BOOL' | 'NULL' | 'TERMINATOR' | (typeof OPERATORS)[number];

/** The token of a one-character operator with no two-character form, or undefined. */
export const singleOperator = (ch: number): Tok | undefined =>
  '+-*%^{}()[],.'.includes(String.fromCharCode(ch)) && ch >= 0 ? (String.fromCharCode(ch) as Tok) : undefined;

export interface AlloyError {
  offset: number;
  message: string;
}

/** BinaryPrecedence: 0 for a token that is no binary operator. */
export const PRECEDENCE: Partial<Record<Tok, number>> = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 3,
  '<=': 3,
  '>': 3,
  '>=': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  '^': 6,
};

export const isLetter = (ch: number): boolean =>
  ((ch | 0x20) >= 0x61 && (ch | 0x20) <= 0x7a) || ch === 0x5f || (ch >= 0x80 && /\p{L}/u.test(String.fromCodePoint(ch)));
export const isDecimal = (ch: number): boolean => ch >= 0x30 && ch <= 0x39;
export const isDigit = (ch: number): boolean => isDecimal(ch) || (ch >= 0x80 && /\p{Nd}/u.test(String.fromCodePoint(ch)));
export const digitVal = (ch: number): number => (isDecimal(ch) ? ch - 0x30 : (ch | 0x20) >= 0x61 && (ch | 0x20) <= 0x66 ? (ch | 0x20) - 0x61 + 10 : 16);
export const hexRune = (ch: number): string => `U+${ch.toString(16).toUpperCase().padStart(4, '0')} '${String.fromCodePoint(ch)}'`;

/**
 * What an expression that is no identifier, access, index or call builds of its parts: a literal, a binary operator's
 * value (`op`, its two operands), a unary one's (`unary`), the inner expression in parentheses, a list, an object
 * (its keys, one per part; undefined where a key is not read).
 */
export type AlloyShape =
  | { literal: true }
  | { op: string }
  | { unary: string }
  | { paren: true }
  | { array: true }
  | { object: readonly (string | undefined)[] };
