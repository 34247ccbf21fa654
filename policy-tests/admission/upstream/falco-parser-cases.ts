/**
 * libsinsp's own cases of Falco's condition language (falcosecurity/libs userspace/libsinsp/test/filter_parser.ut.cpp),
 * held to the gate's port of its parser (model/falco/condition-parser.ts), which judges every condition of the
 * repository's Falco tuning: each `test_accept` (and, as that helper does when given no position, the same input
 * padded with spaces, then with line breaks, then with tabs for its blanks) parses, each `test_reject` is refused,
 * each `test_reject_msg` with libsinsp's message; a `test_equal_ast` input parses (its tree is not compared). A call
 * whose input is neither a string literal nor `std::string(n, 'c')` (built at run time) is counted apart.
 */
import { parseFalcoCondition } from '../../model/falco/condition-parser.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

export interface FalcoParserCase {
  test: string;
  input: string;
  accept: boolean;
  /** test_reject_msg's message. */
  message?: string;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '0': '\0', b: '\b', f: '\f', v: '\v' };

/** The C++ string literals (adjacent ones joined, raw ones read as written) from `at`, and where they end; undefined where none starts. */
function cppString(src: string, at: number): { text: string; end: number } | undefined {
  let i = at;
  let text = '';
  let any = false;
  for (;;) {
    while (/\s/.test(src[i] ?? '')) i++;
    const repeated = /^std::string\((\d+), '(.)'\)/.exec(src.slice(i));
    if (repeated) {
      // std::string(n, 'c'): the character n times.
      text += repeated[2]!.repeat(Number(repeated[1]));
      i += repeated[0].length;
    } else if (src.startsWith('R"(', i)) {
      const close = src.indexOf(')"', i + 3);
      text += src.slice(i + 3, close);
      i = close + 2;
    } else if (src[i] === '"') {
      for (i++; src[i] !== '"'; i++) text += src[i] === '\\' ? (ESCAPES[src[++i]!] ?? src[i]) : src[i];
      i++;
    } else break;
    any = true;
  }
  return any ? { text, end: i } : undefined;
}

/** The TEST(...) a line stands in, as `suite.name`. */
function testAt(src: string, at: number): string {
  const heads = [...src.slice(0, at).matchAll(/TEST\((\w+),\s*(\w+)\)/g)];
  const last = heads.at(-1);
  return last ? `${last[1]}.${last[2]}` : '(outside a test)';
}

/** test_accept's whitespace play: blanks around, then each space a line break, then a tab. */
function withBlanks(input: string): string[] {
  const padded = ` ${input} `;
  const lines = padded.replaceAll(' ', '\n');
  return [input, padded, lines, lines.replaceAll('\n', '\t')];
}

/** Every case of the file this reader follows, and the calls it cannot read. */
export function falcoParserCases(src: string): { cases: FalcoParserCase[]; unread: { test: string; why: string }[] } {
  const cases: FalcoParserCase[] = [];
  const unread: { test: string; why: string }[] = [];
  for (const m of src.matchAll(/\b(test_accept|test_reject_msg|test_reject|test_equal_ast)\(/g)) {
    const line = src.slice(0, m.index).split('\n').length;
    const test = `${testAt(src, m.index)}:${line}`;
    // The helpers' own definitions: `static void test_accept(const std::string in, ...)`.
    if (/\bvoid\s+$/.test(src.slice(Math.max(0, m.index - 20), m.index))) continue;
    const literal = cppString(src, m.index + m[0].length);
    if (!literal) {
      unread.push({ test, why: 'an input built at run time' });
      continue;
    }
    const rest = src.slice(literal.end).trimStart();
    if (m[1] === 'test_reject_msg') {
      const message = rest.startsWith(',') ? cppString(src, literal.end + src.slice(literal.end).indexOf(',') + 1) : undefined;
      cases.push({ test, input: literal.text, accept: false, ...(message ? { message: message.text } : {}) });
    } else if (m[1] === 'test_reject') cases.push({ test, input: literal.text, accept: false });
    else {
      // Given a position to fill, test_accept reads the input as it is; otherwise it plays with its blanks too.
      const inputs = m[1] === 'test_accept' && !rest.startsWith(',') ? withBlanks(literal.text) : [literal.text];
      for (const input of inputs) cases.push({ test, input, accept: true });
    }
  }
  return { cases, unread };
}

/** Each case through the port, held to libsinsp's verdict (and message, where the test names one). */
export function falcoParserAgreement(read: ReturnType<typeof falcoParserCases>): Agreement {
  const a = emptyAgreement();
  for (const c of read.cases) {
    let error: string | undefined;
    try {
      parseFalcoCondition(c.input);
    } catch (err) {
      error = (err as Error).message;
    }
    const ok = c.accept ? error === undefined : error !== undefined && (c.message === undefined || c.message === error);
    const verdict = error === undefined ? 'accepts' : `refuses (${error})`;
    const wanted = c.accept ? 'accepts' : `refuses${c.message ? ` (${c.message})` : ''}`;
    count(a, { group: c.test.split('.')[1]!.split(':')[0]!, ok, file: c.test, why: `${JSON.stringify(c.input)}: the port ${verdict}, libsinsp ${wanted}` });
  }
  for (const u of read.unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}
