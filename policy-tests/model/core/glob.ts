/**
 * Argo CD's directory include/exclude glob dialect: patterns are matched
 * against the whole path relative to the source path, `{a,b}` lists
 * alternatives, and `*` also crosses `/` (Argo CD matches with gobwas/glob
 * without separators). The gate must predict what Argo CD applies, so it
 * matches the same way rather than with shell-style globs. An AppProject's
 * sourceRepos are matched with '/' as the separator (`*` stays within a
 * segment, `**` crosses them).
 */
const cache = new Map<string, RegExp>();

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

export function argoGlobMatch(pattern: string, path: string, separator: '' | '/' = ''): boolean {
  const key = `${separator}\0${pattern}`;
  let re = cache.get(key);
  if (!re) {
    re = new RegExp(`^${translate(pattern, separator === '/')}$`);
    cache.set(key, re);
  }
  return re.test(path);
}

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

const filepathCache = new Map<string, RegExp | null>();

/**
 * Go's path/filepath.Match on Linux: `*` any run of characters but `/`, `?` one of them, `[...]` a class (`^` negates,
 * ranges with `-`), `\` escapes. A malformed pattern (ErrBadPattern) matches nothing, as Argo CD's callers treat
 * the error.
 */
export function goFilepathMatch(pattern: string, name: string): boolean {
  let re = filepathCache.get(pattern);
  if (re === undefined) {
    re = filepathRegex(pattern);
    filepathCache.set(pattern, re);
  }
  return re !== null && re.test(name);
}

function filepathRegex(pattern: string): RegExp | null {
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
      out += ranges === '' ? (negated ? '[^]' : '(?!)') : `[${negated ? '^' : ''}${ranges}]`;
    } else out += escape(c);
  }
  return new RegExp(`^${out}$`, 's');
}
