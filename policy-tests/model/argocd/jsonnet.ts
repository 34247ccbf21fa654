/**
 * A directory source's jsonnet, as Argo CD's repo-server evaluates it (reposerver/repository `findManifests`,
 * `makeJsonnetVM`): every `.jsonnet` file the walk reads is evaluated with go-jsonnet, its library paths the source's
 * folder then `directory.jsonnet.libs` (each relative to the repository's root, and refused when it resolves outside
 * it), its external variables and top-level arguments after the build environment is substituted in their values; the
 * result, an array of objects (a null skipped) or one object, is applied. argocd-cm's `jsonnet.enable` set to anything
 * but `true` makes the walk pass over every jsonnet file (util/settings `GetEnabledSourceTypes`).
 *
 * What an import reads is worked out here as go-jsonnet's FileImporter finds it (the importing file's folder, then the
 * library paths, the last first), from the imports the text spells: jsonnet allows only a string literal after
 * `import`, `importstr` and `importbin`, so every file an evaluation can read is known before it runs.
 */
import { posix } from 'node:path';
import { normalizeSourcePath, type AppSource } from './argocd.ts';
import { confinedPath } from './source-files.ts';
import { isMap } from '../core/dig.ts';

/** One `extVars` or `tlas` entry: a string, or jsonnet code when `code`. */
export interface JsonnetVar {
  name: string;
  value: string;
  code: boolean;
}

export interface JsonnetOptions {
  extVars: JsonnetVar[];
  tlas: JsonnetVar[];
  libs: string[];
}

function vars(raw: unknown): JsonnetVar[] {
  if (!Array.isArray(raw)) return [];
  const text = (x: unknown) => (typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : '');
  return raw.filter(isMap).map((v) => ({ name: text(v.name), value: text(v.value), code: v.code === true }));
}

/** `directory.jsonnet` of a source (ApplicationSourceJsonnet), as Argo CD decodes it. */
export function jsonnetOptions(source: AppSource): JsonnetOptions {
  const j = source.directory?.jsonnet ?? {};
  return { extVars: vars(j.extVars), tlas: vars(j.tlas), libs: Array.isArray(j.libs) ? j.libs.filter((l): l is string => typeof l === 'string') : [] };
}

/** Whether Argo CD evaluates jsonnet at all: argocd-cm's `jsonnet.enable`, unset or empty meaning yes. */
export function jsonnetEnabled(argocdCmData: Record<string, unknown> | undefined): boolean {
  const value = argocdCmData?.['jsonnet.enable'];
  return value === undefined || value === null || value === '' || value === 'true';
}

/**
 * A library path as `ResolveFileOrDirectoryPath(repoRoot, repoRoot, lib)` resolves it: relative to the repository's
 * root (an absolute one too), `..` cleaned, the root itself allowed; one that leaves the root is Argo CD's error.
 * Symbolic links are the renderer's to follow (it holds the files).
 */
export function jsonnetLibPath(lib: string): { rel: string } | { error: string } {
  const confined = confinedPath(lib.replace(/^\/+/, ''), 'jsonnet library path');
  return 'refused' in confined ? { error: `file '${lib}' resolved to outside repository root` } : confined;
}

/**
 * The library paths jsonnet runs with for a source (makeJsonnetVM): its folder, then each of `libs` resolved; and
 * Argo CD's error for each that leaves the repository, which fails the source.
 */
export function jsonnetLibraryPaths(source: AppSource): { jpaths: string[]; errors: string[] } {
  const libs = jsonnetOptions(source).libs.map(jsonnetLibPath);
  return {
    jpaths: [normalizeSourcePath(source.path ?? ''), ...libs.flatMap((l) => ('rel' in l ? [l.rel] : []))],
    errors: libs.flatMap((l) => ('error' in l ? [l.error] : [])),
  };
}

/** One import a jsonnet text spells, with the line it is on. */
export interface JsonnetImport {
  kind: 'import' | 'importstr' | 'importbin';
  path: string;
  line: number;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_]/;
const ESCAPES: Record<string, string> = { '"': '"', "'": "'", '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** A lexer over jsonnet text that yields only what an import needs: keywords, string literals and their places. */
class Lexer {
  pos = 0;
  line = 1;
  private readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  private advance(to: number): void {
    for (let i = this.pos; i < to; i++) if (this.text[i] === '\n') this.line++;
    this.pos = to;
  }

  /** Skips white space and comments (`#`, `//`, block comments). */
  skipTrivia(): void {
    const t = this.text;
    for (;;) {
      const c = t[this.pos];
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') this.advance(this.pos + 1);
      else if (c === '#' || (c === '/' && t[this.pos + 1] === '/')) {
        const end = t.indexOf('\n', this.pos);
        this.advance(end === -1 ? t.length : end);
      } else if (c === '/' && t[this.pos + 1] === '*') {
        const end = t.indexOf('*/', this.pos + 2);
        this.advance(end === -1 ? t.length : end + 2);
      } else return;
    }
  }

  /** A string literal at the cursor, read and decoded; undefined (cursor unmoved) where none starts. */
  stringLiteral(): string | undefined {
    const t = this.text;
    const c = t[this.pos];
    if (c === '"' || c === "'") return this.quoted(c);
    if (c === '@' && (t[this.pos + 1] === '"' || t[this.pos + 1] === "'")) return this.verbatim(t[this.pos + 1]!);
    if (t.startsWith('|||', this.pos)) return this.textBlock();
    return undefined;
  }

  private quoted(quote: string): string {
    const t = this.text;
    let out = '';
    let i = this.pos + 1;
    while (i < t.length && t[i] !== quote) {
      if (t[i] === '\\') {
        const e = t[i + 1] ?? '';
        if (e === 'u') {
          out += String.fromCharCode(parseInt(t.slice(i + 2, i + 6), 16));
          i += 6;
          continue;
        }
        out += ESCAPES[e] ?? e;
        i += 2;
        continue;
      }
      out += t[i++];
    }
    this.advance(Math.min(i + 1, t.length));
    return out;
  }

  private verbatim(quote: string): string {
    const t = this.text;
    let out = '';
    let i = this.pos + 2;
    while (i < t.length) {
      if (t[i] === quote) {
        if (t[i + 1] !== quote) break;
        out += quote;
        i += 2;
        continue;
      }
      out += t[i++];
    }
    this.advance(Math.min(i + 1, t.length));
    return out;
  }

  /** `|||` (or `|||-`) to the end of its line, then lines at the first line's indent, until a line with less: `|||`. */
  private textBlock(): string {
    const t = this.text;
    let i = this.pos + 3;
    const chomp = t[i] === '-';
    if (chomp) i++;
    const eol = t.indexOf('\n', i);
    if (eol === -1) {
      this.advance(t.length);
      return '';
    }
    i = eol + 1;
    const indent = /^[ \t]*/.exec(t.slice(i))![0];
    const lines: string[] = [];
    while (i < t.length) {
      const end = t.indexOf('\n', i) === -1 ? t.length : t.indexOf('\n', i);
      const line = t.slice(i, end);
      if (line.trim() === '' && !line.startsWith(indent)) lines.push('');
      else if (indent !== '' && line.startsWith(indent)) lines.push(line.slice(indent.length));
      else {
        // The closing line: white space then `|||`.
        const close = t.indexOf('|||', i);
        this.advance(close === -1 ? t.length : close + 3);
        const body = lines.map((l) => `${l}\n`).join('');
        return chomp ? body.replace(/\n$/, '') : body;
      }
      i = end + 1;
    }
    this.advance(t.length);
    return lines.join('\n');
  }

  /** Where the cursor is: its line, and its column counted from 1. */
  place(): { line: number; col: number } {
    return { line: this.line, col: this.pos - this.text.lastIndexOf('\n', this.pos - 1) };
  }

  /** The next token: an identifier, a string literal (read), or one other character (skipped); each with its place. */
  next(): ({ ident: string } | { string: string } | { other: true } | { end: true }) & { line: number; col: number } {
    this.skipTrivia();
    const t = this.text;
    const at = this.place();
    if (this.pos >= t.length) return { end: true, ...at };
    const c = t[this.pos]!;
    if (IDENT_START.test(c)) {
      let i = this.pos + 1;
      while (i < t.length && IDENT.test(t[i]!)) i++;
      const ident = t.slice(this.pos, i);
      this.advance(i);
      return { ident, ...at };
    }
    const string = this.stringLiteral();
    if (string !== undefined) return { string, ...at };
    this.advance(this.pos + 1);
    return { other: true, ...at };
  }

  /** Whether the next token is a field's colon (`:`, `::`, `:::`, or `+:`), without moving the cursor. */
  atFieldColon(): boolean {
    const { pos, line } = this;
    this.skipTrivia();
    const rest = this.text.slice(this.pos, this.pos + 2);
    const colon = rest[0] === ':' || rest === '+:';
    this.pos = pos;
    this.line = line;
    return colon;
  }
}

const IMPORT_KINDS = new Set(['import', 'importstr', 'importbin']);

/**
 * The imports a jsonnet text spells, in order. An import keyword not followed by a string literal is a computed import,
 * which jsonnet refuses before it evaluates anything: it reads nothing, so it is not listed.
 */
export function jsonnetImports(text: string): JsonnetImport[] {
  const lexer = new Lexer(text);
  const out: JsonnetImport[] = [];
  for (;;) {
    const token = lexer.next();
    if ('end' in token) return out;
    if (!('ident' in token) || !IMPORT_KINDS.has(token.ident)) continue;
    lexer.skipTrivia();
    const path = lexer.stringLiteral();
    if (path !== undefined) out.push({ kind: token.ident as JsonnetImport['kind'], path, line: token.line });
  }
}

/**
 * Where go-jsonnet's FileImporter looks for `path` imported from the file `from` (a repository path): the importing
 * file's folder, then each library path, the last first. Absolute paths are looked up as they are. Each candidate is a
 * path relative to the repository's root, or `outside` where it leaves it.
 */
export function importCandidates(from: string, path: string, jpaths: readonly string[]): ({ rel: string } | { outside: string })[] {
  if (path.startsWith('/')) return [{ outside: path }];
  const folders = [posix.dirname(from), ...[...jpaths].reverse()];
  return folders.map((folder) => {
    const joined = posix.normalize(folder === '.' || folder === '' ? path : `${folder}/${path}`);
    return joined === '..' || joined.startsWith('../') || joined.startsWith('/') ? { outside: joined } : { rel: joined };
  });
}

/** How a closure walk sees the checkout: what a path is (a file, something else, or nothing), and a file's text. */
export interface JsonnetFiles {
  kind(rel: string): 'file' | 'other' | undefined;
  read(rel: string): string;
}

/** Every file an evaluation can read: the code (the file and what it imports), and the data it reads (importstr, importbin). */
export interface JsonnetClosure {
  code: string[];
  data: string[];
  /** The first import go-jsonnet would look up outside the repository, where one would be: nothing after it is read. */
  outside?: { where: string; path: string };
}

/**
 * The files an evaluation of `file` can read, found as go-jsonnet's importer finds them (importCandidates: the first
 * that exists wins; one that is no file fails jsonnet, and one found nowhere too). The walk stops at the first import
 * that would look outside the repository.
 */
export function jsonnetClosure(file: string, jpaths: readonly string[], files: JsonnetFiles): JsonnetClosure {
  const out: JsonnetClosure = { code: [file], data: [] };
  const seen = new Set([file]);
  for (let i = 0; i < out.code.length; i++) {
    const from = out.code[i]!;
    for (const imp of jsonnetImports(files.read(from))) {
      for (const candidate of importCandidates(from, imp.path, jpaths)) {
        if ('outside' in candidate) {
          out.outside = { where: `${from}:${imp.line} ${imp.kind}s ${JSON.stringify(imp.path)}`, path: candidate.outside };
          return out;
        }
        const kind = files.kind(candidate.rel);
        if (kind === undefined) continue;
        if (kind === 'file' && !seen.has(candidate.rel)) {
          seen.add(candidate.rel);
          // importstr and importbin read data; only an import is evaluated, and can import in turn.
          (imp.kind === 'import' ? out.code : out.data).push(candidate.rel);
        }
        break;
      }
    }
  }
  return out;
}

/** The places of a jsonnet text a rendered object's value may have come from: its string literals and its field names. */
export interface JsonnetPlaces {
  strings: { value: string; line: number; col: number }[];
  fields: { name: string; line: number; col: number }[];
}

/** Every string literal and every field name (an identifier or a string before a field's colon) of a jsonnet text. */
export function jsonnetPlaces(text: string): JsonnetPlaces {
  const lexer = new Lexer(text);
  const out: JsonnetPlaces = { strings: [], fields: [] };
  for (;;) {
    const token = lexer.next();
    if ('end' in token) return out;
    const at = { line: token.line, col: token.col };
    const name = 'ident' in token ? token.ident : 'string' in token ? token.string : undefined;
    if (name !== undefined && lexer.atFieldColon()) out.fields.push({ name, ...at });
    else if ('string' in token) out.strings.push({ value: token.string, ...at });
  }
}
