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
