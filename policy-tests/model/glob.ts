/**
 * Argo CD's directory include/exclude glob dialect: patterns are matched
 * against the whole path relative to the source path, `{a,b}` lists
 * alternatives, and `*` also crosses `/` (Argo CD matches with gobwas/glob
 * without separators). The gate must predict what Argo CD applies, so it
 * matches the same way rather than with shell-style globs.
 */
const cache = new Map<string, RegExp>();

function translate(pattern: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      while (pattern[i + 1] === '*') i++;
      out += '.*';
    } else if (c === '?') out += '.';
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

export function argoGlobMatch(pattern: string, path: string): boolean {
  let re = cache.get(pattern);
  if (!re) {
    re = new RegExp(`^${translate(pattern)}$`);
    cache.set(pattern, re);
  }
  return re.test(path);
}
