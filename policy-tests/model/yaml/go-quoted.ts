/**
 * What go-yaml reads that the `yaml` library refuses, with the same meaning, mended so that the `yaml` library reads it
 * as go-yaml does (firstMend lists the four: quoted and flow lines at any indentation, a comment touching its token,
 * `\'`). The first and commonest: a quoted scalar over several lines. Everything that reads the repository for the
 * cluster (kubectl, Argo CD, Helm, kustomize) reads YAML with go-yaml, whose scanner takes a quoted scalar's continuation
 * lines at any indentation (scannerc.go, yaml_parser_scan_flow_scalar: only a document marker at a line's start, or
 * the end of the text, stops it before its closing quote). The YAML specification, and so the `yaml` library, wants
 * them indented past the block the scalar sits in, and cuts the scalar at the first line that is not:
 *
 *     annotations:
 *       description: "a long text
 *       wrapped by an editor"
 *
 * is one annotation to the cluster and a syntax error to the `yaml` library. go-yaml v2's own emitter writes long
 * strings wrapped this way (Argo CD's health tests hold such objects). Since a quoted scalar's line breaks fold and
 * its continuation lines' leading white space is dropped, indenting those lines further changes nothing of what it
 * reads; this gives the text with each such line indented past the scalar's opening quote, for the `yaml` library
 * to read as go-yaml reads the original. Line numbers stay as they were.
 */
import { LineCounter, Lexer, parseAllDocuments, parseDocument, type Document } from 'yaml';

/** The lexer's markers, which stand for no text (yaml's parse/cst.ts). */
const MARKERS = new Set(['\x02', '\x18', '\x1f']);
/** A document marker at a line's start, which ends a quoted scalar in go-yaml with an error. */
const DOCUMENT_MARKER = /^(---|\.\.\.)([ \t\r\n]|$)/;
/** A bound on the scalars mended in one text, each a lexing of the whole text: past it, the text is left as it is. */
const MAX_MENDED = 200;

/** Whether a quoted-scalar token the lexer gave ends with its closing quote (not an escaped one). */
function closed(token: string): boolean {
  const quote = token[0]!;
  if (token.length < 2 || !token.endsWith(quote)) return false;
  let run = 0;
  if (quote === "'") {
    // '' is a quote inside the scalar: the closing one is the last of an odd run.
    while (token[token.length - 1 - run] === "'" && token.length - 1 - run > 0) run++;
    return run % 2 === 1;
  }
  while (token[token.length - 2 - run] === '\\') run++;
  return run % 2 === 0;
}

/** Where go-yaml closes the quoted scalar that opens at `start`: the offset of its closing quote, or undefined where it errs. */
function goClosingQuote(text: string, start: number): number | undefined {
  const quote = text[start]!;
  let at = start + 1;
  for (;;) {
    const end = text.indexOf(quote, at);
    if (end === -1) return undefined;
    if (quote === "'" && text[end + 1] === "'") {
      at = end + 2;
      continue;
    }
    if (quote === '"') {
      let slashes = 0;
      while (text[end - 1 - slashes] === '\\' && end - 1 - slashes > start) slashes++;
      if (slashes % 2 === 1) {
        at = end + 1;
        continue;
      }
    }
    return end;
  }
}

/** What go-yaml refuses too: nothing is mended. */
const REFUSED = Symbol('refused');

/** The text with the lines strictly inside [start, end] indented past `start`'s column; REFUSED where one is a document marker. */
function indentedInside(text: string, start: number, end: number): string | typeof REFUSED {
  const lineStart = text.lastIndexOf('\n', start) + 1;
  const pad = ' '.repeat(start - lineStart + 1);
  const lines = text.slice(start, end).split('\n');
  if (lines.slice(1).some((line) => DOCUMENT_MARKER.test(line))) return REFUSED;
  return `${text.slice(0, start)}${lines.map((line, j) => (j === 0 || line.startsWith(pad) ? line : `${pad}${line}`)).join('\n')}${text.slice(end)}`;
}

/**
 * Where go-yaml closes the flow collection that opens at `start` (its scanner checks no indentation inside one): the
 * offset of its closing bracket, past quoted scalars and comments; undefined where it never closes.
 */
function goFlowEnd(text: string, start: number): number | undefined {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    const afterBlank = i === 0 || /[\s[{,:]/.test(text[i - 1]!);
    if ((c === '"' || c === "'") && afterBlank) {
      const end = goClosingQuote(text, i);
      if (end === undefined) return undefined;
      i = end;
    } else if (c === '#' && afterBlank) {
      const nl = text.indexOf('\n', i);
      if (nl === -1) return undefined;
      i = nl;
    } else if (c === '[' || c === '{') depth++;
    else if ((c === ']' || c === '}') && --depth === 0) return i;
  }
  return undefined;
}

/** `\'` in a double-quoted scalar's token (an odd run of backslashes before the quote): its offset, where there is one. */
function escapedQuote(token: string): number | undefined {
  for (let i = 1; i < token.length - 1; i++) {
    if (token[i] !== '\\') continue;
    if (token[i + 1] === "'") return i;
    i++;
  }
  return undefined;
}

/**
 * The text with the first thing mended that the `yaml` library refuses and go-yaml reads, with the same meaning:
 * - a quoted scalar it cuts short at a line less indented than YAML wants: the lines indented past its opening quote;
 * - a flow collection it cuts short so (the lexer's flow-error-end): the lines indented past its opening bracket;
 * - a comment that touches the token before it (`"value"# note`, `[a]#`, `># note`): a space before the `#`;
 * - `\'` in double quotes, which go-yaml reads as `'`: the `'` alone.
 * Undefined where there is nothing to mend; REFUSED where go-yaml refuses it too (no closing quote or bracket, a
 * document marker inside).
 */
function firstMend(text: string): string | typeof REFUSED | undefined {
  let offset = 0;
  let previous = '';
  const flows: number[] = [];
  for (const token of new Lexer().lex(text)) {
    if (token === '\x18') {
      const start = flows.pop();
      const end = start === undefined ? undefined : goFlowEnd(text, start);
      if (start === undefined || end === undefined) return REFUSED;
      const mended = indentedInside(text, start, end);
      if (mended !== text) return mended;
    }
    if (MARKERS.has(token)) continue;
    if (token === '[' || token === '{') flows.push(offset);
    else if ((token === ']' || token === '}') && flows.length > 0) flows.pop();
    if ((token[0] === '"' || token[0] === "'") && !closed(token)) {
      const end = goClosingQuote(text, offset);
      return end === undefined ? REFUSED : indentedInside(text, offset, end);
    }
    if (token[0] === '#' && previous !== '' && !/[\s]$/.test(previous)) return `${text.slice(0, offset)} ${text.slice(offset)}`;
    const escaped = token[0] === '"' ? escapedQuote(token) : undefined;
    if (escaped !== undefined) return `${text.slice(0, offset + escaped)}${text.slice(offset + escaped + 1)}`;
    offset += token.length;
    previous = token;
  }
  return undefined;
}

/**
 * The text with what the `yaml` library refuses and go-yaml reads mended (firstMend), as many times as it takes; its
 * lines stay where they were. Undefined where there is nothing to mend, or where go-yaml refuses the text too.
 */
export function goMendedText(text: string): string | undefined {
  let mended = text;
  for (let i = 0; i < MAX_MENDED; i++) {
    const next = firstMend(mended);
    if (next === REFUSED) return undefined;
    if (next === undefined || next === mended) return i === 0 ? undefined : mended;
    mended = next;
  }
  return undefined;
}

/**
 * A reading of the text as go-yaml reads it: `read` of the text, or where that is refused, of the text with its quoted
 * scalars' continuation lines indented and the rest of firstMend's list mended (goMendedText), where that reading is not
 * refused.
 */
export function readAsGo<T>(text: string, read: (text: string) => T, refused: (result: T) => boolean): T {
  const first = read(text);
  if (!refused(first)) return first;
  const mended = goMendedText(text);
  if (mended === undefined) return first;
  const second = read(mended);
  return refused(second) ? first : second;
}

/**
 * The documents of a text as the `yaml` library reads them, where it reads them as go-yaml does (readAsGo), with their
 * line counter and the text they were read from (the mended one, where it was).
 */
export function readDocuments(text: string): { docs: Document.Parsed[]; lineCounter: LineCounter; read: string } {
  return readAsGo(
    text,
    (t) => {
      const lineCounter = new LineCounter();
      const docs = parseAllDocuments(t, { lineCounter, uniqueKeys: false, prettyErrors: true, merge: true });
      return { docs: Array.isArray(docs) ? docs : [], lineCounter, read: t };
    },
    ({ docs }) => docs.some((d) => d.errors.length > 0),
  );
}

/** A file of one document (a values file) as the `yaml` library reads it, where it reads it as go-yaml does, with its line counter. */
export function readDocument(text: string): { doc: Document.Parsed; lineCounter: LineCounter } {
  return readAsGo(
    text,
    (t) => {
      const lineCounter = new LineCounter();
      return { doc: parseDocument(t, { lineCounter, uniqueKeys: false, merge: true }), lineCounter };
    },
    (read) => read.doc.errors.length > 0,
  );
}
