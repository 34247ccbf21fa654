/**
 * A quoted scalar over several lines, as go-yaml reads it. Everything that reads the repository for the cluster
 * (kubectl, Argo CD, Helm, kustomize) reads YAML with go-yaml, whose scanner takes a quoted scalar's continuation
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

/** The first quoted scalar the `yaml` library cuts short, and where go-yaml ends it; undefined where there is none. */
function firstCutScalar(text: string): { start: number; end: number } | 'refused' | undefined {
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    if (MARKERS.has(token)) continue;
    if ((token[0] === '"' || token[0] === "'") && !closed(token)) {
      const end = goClosingQuote(text, offset);
      return end === undefined ? 'refused' : { start: offset, end };
    }
    offset += token.length;
  }
  return undefined;
}

/**
 * The text with every quoted scalar's continuation lines indented past its opening quote, where the `yaml` library
 * would cut one short that go-yaml reads whole; undefined where there is none, or where go-yaml refuses one too
 * (a document marker inside it, no closing quote).
 */
export function goQuotedText(text: string): string | undefined {
  let mended = text;
  for (let i = 0; i < MAX_MENDED; i++) {
    const cut = firstCutScalar(mended);
    if (cut === 'refused') return undefined;
    if (cut === undefined) return i === 0 ? undefined : mended;
    const lineStart = mended.lastIndexOf('\n', cut.start) + 1;
    const pad = ' '.repeat(cut.start - lineStart + 1);
    const inside = mended.slice(cut.start, cut.end);
    const lines = inside.split('\n');
    if (lines.slice(1).some((line) => DOCUMENT_MARKER.test(line))) return undefined;
    mended = `${mended.slice(0, cut.start)}${lines.map((line, j) => (j === 0 ? line : `${pad}${line}`)).join('\n')}${mended.slice(cut.end)}`;
  }
  return undefined;
}

/**
 * A reading of the text as go-yaml reads it: `read` of the text, or where that is refused, of the text with its quoted
 * scalars' continuation lines indented (goQuotedText) where that reading is not refused.
 */
export function readAsGo<T>(text: string, read: (text: string) => T, refused: (result: T) => boolean): T {
  const first = read(text);
  if (!refused(first)) return first;
  const mended = goQuotedText(text);
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
