/**
 * Argo CD's directory include/exclude glob dialect: patterns are matched
 * against the whole path relative to the source path, `{a,b}` lists
 * alternatives, and `*` also crosses `/` (Argo CD matches with gobwas/glob
 * without separators). The gate must predict what Argo CD applies, so it
 * matches the same way rather than with shell-style globs. An AppProject's
 * sourceRepos are matched with '/' as the separator (`*` stays within a
 * segment, `**` crosses them).
 */
import { perKey } from './per-object.ts';
import { re2, unboundedRuns } from './re2.ts';

/** A compiled glob: something that tests a whole path. */
export interface Matcher {
  test(path: string): boolean;
}

/**
 * A glob's regular expression, run where backtracking cannot blow up. The patterns are a pull request's to write
 * (an include, a values glob, a project's kinds), and so are the paths: `*a*a*a*a*a*a*b` over a name of sixty a's
 * holds a backtracking engine for hours. With at most two unbounded runs one way through, JavaScript's engine is at
 * worst quadratic in the path, and quick; with more, RE2 (linear time) runs it.
 */
function safeMatcher(source: string): Matcher {
  if (unboundedRuns(source) <= 2) return new RegExp(`^(?:${source})$`, 's');
  const re = re2(`(?s)^(?:${source})$`);
  return { test: (path) => re.matches(path) };
}

/** Compiled globs, by dialect and pattern: a pattern is translated once, the oldest forgotten past the limit. */
const GLOBS_KEPT = 10_000;
const argoMatcher = perKey(
  GLOBS_KEPT,
  (pattern: string, separator: '' | '/') => safeMatcher(translate(pattern, separator === '/')),
  (pattern, separator) => `${separator}\0${pattern}`,
);

function translate(pattern: string, slash: boolean): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      // With '/' as a separator (sourceRepos), `*` stops at it and `**` crosses it, as gobwas/glob's super-asterisk.
      const double = pattern[i + 1] === '*';
      while (pattern[i + 1] === '*') i++;
      out += slash && !double ? '[^/]*' : '.*';
    } else if (c === '?') out += slash ? '[^/]' : '.';
    else if (c === '{') {
      depth++;
      out += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (c === ',' && depth > 0) out += '|';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1) out += '\\[';
      else {
        const body = pattern
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        out += `[${body}]`;
        i = end;
      }
    } else out += c.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  return out;
}

/**
 * regexp2's MatchString: the pattern found anywhere in the text. Run by RE2 (linear time), since a pull request writes
 * both; a pattern RE2 cannot hold (lookaround, a backreference) by JavaScript's engine, which shares regexp2's syntax
 * for those, on a text no longer than a Kubernetes name's 63 characters. One neither compiles matches nothing.
 */
function regexFoundIn(pattern: string, text: string): boolean {
  try {
    return re2(pattern).matcher(text).find();
  } catch {
    try {
      return text.length <= 63 && new RegExp(pattern).test(text);
    } catch {
      return false;
    }
  }
}

/**
 * Argo CD's glob.MatchStringInList with glob.REGEXP: an entry wrapped in `/` is a regular expression (regexp2, found
 * anywhere in the item; one that does not compile matches nothing), any other a glob of the no-separator dialect.
 */
export function matchStringInList(patterns: readonly string[], item: string): boolean {
  return patterns.some((p) => {
    if (p.length > 1 && p.startsWith('/') && p.endsWith('/')) return regexFoundIn(p.slice(1, -1), item);
    return argoGlobMatch(p, item);
  });
}

export function argoGlobMatch(pattern: string, path: string, separator: '' | '/' = ''): boolean {
  return argoMatcher(pattern, separator).test(path);
}

/** A glob compiled once, for one caller that tests many paths against it (Argo CD's dialect, no separator). */
export const argoGlobMatcher = (pattern: string): Matcher => argoMatcher(pattern, '');

/**
 * Why gobwas/glob would not compile a pattern (Argo CD's glob.MatchWithError fails with it), or undefined: a class `[`
 * or a list `{` left open, or an escape with nothing after it. Other patterns compile.
 */
export function argoGlobError(pattern: string): string | undefined {
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      if (i === pattern.length - 1) return 'unexpected end of input after an escape';
      i++;
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1) return 'unexpected end of input in a character class';
      i = end;
    } else if (c === '{') braces++;
    else if (c === '}' && braces > 0) braces--;
  }
  return braces > 0 ? 'unexpected end of input in a list of alternatives' : undefined;
}

const filepathMatcher = perKey(GLOBS_KEPT, (pattern: string) => filepathRegex(pattern));

/**
 * Go's path/filepath.Match on Linux: `*` any run of characters but `/`, `?` one of them, `[...]` a class (`^` negates,
 * ranges with `-`), `\` escapes. A malformed pattern (ErrBadPattern) matches nothing, as Argo CD's callers treat
 * the error.
 */
export function goFilepathMatch(pattern: string, name: string): boolean {
  const re = filepathMatcher(pattern);
  return re !== null && re.test(name);
}

/** Whether Go's filepath.Match takes the pattern at all (no ErrBadPattern: Go checks the whole pattern, matched or not). */
export function goFilepathValid(pattern: string): boolean {
  return filepathMatcher(pattern) !== null;
}

function filepathRegex(pattern: string): Matcher | null {
  const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  let i = 0;
  // getEsc: one character of a class, `\` escaping the next; a bare `-` or `]`, or the pattern's end, is ErrBadPattern.
  const classChar = (): string | null => {
    let c = pattern[i];
    if (c === undefined || c === '-' || c === ']') return null;
    if (c === '\\') {
      c = pattern[++i];
      if (c === undefined) return null;
    }
    i++;
    return c;
  };
  let out = '';
  while (i < pattern.length) {
    const c = pattern[i++]!;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '\\') {
      if (i >= pattern.length) return null;
      out += escape(pattern[i++]!);
    } else if (c === '[') {
      const negated = pattern[i] === '^';
      if (negated) i++;
      let ranges = '';
      for (let read = 0; ; read++) {
        if (pattern[i] === ']' && read > 0) {
          i++;
          break;
        }
        const lo = classChar();
        if (lo === null) return null;
        let hi = lo;
        if (pattern[i] === '-') {
          i++;
          const h = classChar();
          if (h === null) return null;
          hi = h;
        }
        // A range the wrong way round is no error in Go: it matches nothing.
        if (lo <= hi) ranges += `${escape(lo)}-${escape(hi)}`;
      }
      out += ranges === '' ? (negated ? '[\\s\\S]' : '[^\\s\\S]') : `[${negated ? '^' : ''}${ranges}]`;
    } else out += escape(c);
  }
  return safeMatcher(out);
}

const doublestarMatcher = perKey(GLOBS_KEPT, (pattern: string) => {
  const source = doublestarSource(pattern);
  return source === null ? null : safeMatcher(source);
});

/**
 * bmatcuk/doublestar v4 (Argo CD's values file globs): `**` as a whole segment matches any number of folders (none
 * included), `*` and `?` stay within a segment (two stars inside one are a star), `[...]` a class (`!` or `^`
 * negates), `{a,b}` alternatives, `\` escapes; no name is hidden. A pattern doublestar calls bad (ErrBadPattern: an
 * open class or list) is null.
 */
export function doublestarMatch(pattern: string, path: string): boolean {
  const re = doublestarMatcher(pattern);
  if (re === null) throw new Error(`syntax error in pattern ${JSON.stringify(pattern)}`);
  return re.test(path);
}

function doublestarSource(pattern: string): string | null {
  // '/' is no metacharacter here, and stays itself, so a `**` can take the slash before it.
  const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const segmentStart = i === 0 || pattern[i - 1] === '/';
    if (c === '*' && pattern[i + 1] === '*' && segmentStart && (i + 2 === pattern.length || pattern[i + 2] === '/') && braces === 0) {
      // A whole `**` segment: any folders, none included (`a/**/b` is a/b too; `a/**` is a itself too).
      if (pattern[i + 2] === '/') out += '(?:.*/)?';
      else out = out.endsWith('/') ? `${out.slice(0, -1)}(?:/.*)?` : `${out}.*`;
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') {
      while (pattern[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '\\') {
      if (i + 1 >= pattern.length) return null;
      out += escape(pattern[++i]!);
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) return null;
      let body = pattern.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^/' : ''}${body.replace(/\\/g, '\\\\').replace(/\[/g, '\\[')}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += escape(c);
  }
  return braces > 0 ? null : out;
}

const pathspecMatcher = perKey(GLOBS_KEPT, (pattern: string) => safeMatcher(pathspecSource(pattern)));

/**
 * A git pathspec as `git ls-files -- <pattern>` takes it (no magic): a pattern without wildcards names a file or a
 * folder and everything under it; one with `*`, `?` or `[` is matched by git's wildmatch without WM_PATHNAME, so `*`
 * also crosses `/` (`apps/*\/config.json` matches `apps/a/b/config.json`). `\` escapes; `[!...]` and `[^...]` negate.
 * What Argo CD's git files generator lists with it (util/git LsFiles, the default globbing).
 */
export function gitPathspecMatch(pattern: string, path: string): boolean {
  if (pattern === '' || pattern === '.' || pattern === './') return true;
  if (!/[*?[\\]/.test(pattern)) {
    const dir = pattern.endsWith('/') ? pattern : `${pattern}/`;
    return path === pattern || path.startsWith(dir);
  }
  return pathspecMatcher(pattern).test(path);
}

/** The POSIX classes wildmatch knows, as ranges of a JavaScript class. */
const POSIX_CLASSES: Record<string, string> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\n\\r\\f\\v',
  xdigit: '0-9a-fA-F',
  punct: '!-\\/:-@\\[-`{-~',
};

/** A bracket class of wildmatch from `start` (after `[`): `!`/`^` negates, `]` first is itself, `[:name:]` a POSIX class; null when never closed. */
function pathspecClass(pattern: string, start: number): { source: string; end: number } | null {
  let i = start;
  const negated = pattern[i] === '!' || pattern[i] === '^';
  if (negated) i++;
  let body = '';
  for (let first = true; i < pattern.length; first = false) {
    const c = pattern[i]!;
    if (c === ']' && !first) return { source: `[${negated ? '^' : ''}${body}]`, end: i };
    const posix = c === '[' && pattern[i + 1] === ':' ? /^\[:(\w+):\]/.exec(pattern.slice(i)) : null;
    if (posix) {
      body += POSIX_CLASSES[posix[1]!] ?? '';
      i += posix[0].length;
    } else if (c === '\\' && i + 1 < pattern.length) {
      // An escaped character is itself (never a JavaScript class escape such as \d).
      body += pattern[i + 1]!.replace(/[\]\\^[-]/g, '\\$&');
      i += 2;
    } else {
      body += c === '-' ? '-' : c.replace(/[\]\\^[]/g, '\\$&');
      i++;
    }
  }
  return null;
}

function pathspecSource(pattern: string): string {
  const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '\\' && i + 1 < pattern.length) out += escape(pattern[++i]!);
    else if (c === '[') {
      const cls = pathspecClass(pattern, i + 1);
      if (!cls) out += '\\[';
      else {
        out += cls.source;
        i = cls.end;
      }
    } else out += escape(c);
  }
  return out;
}
