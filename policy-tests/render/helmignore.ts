/**
 * A chart folder's `.helmignore`, as Helm 4.2's loader applies it (pkg/ignore/rules.go, pkg/chart/v2/loader/directory.go
 * LoadDir): the files it names are not part of the chart Helm renders, so a template it ignores reads no value and
 * can print nothing. The render itself is Helm's; this is for what the gate reads of a local chart beside it, its
 * interface and its traits (chart-files.ts).
 *
 * Helm's rules, kept as they are: each line a filepath.Match pattern (blank lines and `#` comments skipped, `**`
 * refused); `!` negates, a trailing `/` matches folders only, a leading `/` or any `/` matches the whole path, else
 * the base name; the first rule that matches ignores. A negated rule is Helm's own: a path it does not match is
 * ignored there and then, as is any file where it names only folders. `templates/.?*` is always added last. A folder
 * ignored is skipped whole.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { goFilepathMatch, goFilepathValid } from '../model/core/glob.ts';

interface Rule {
  negate: boolean;
  mustDir: boolean;
  match: (path: string) => boolean;
}

/** Go's filepath.Base: the last element, trailing slashes dropped ("cargo/" is "cargo"). */
function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return path === '' ? '.' : '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** One line's rule (rules.go parseRule), null for a line that holds none, or 'refused' where Helm's loader fails the chart. */
function ruleOf(line: string): Rule | null | 'refused' {
  let rule = line.trim();
  if (rule === '' || rule.startsWith('#')) return null;
  if (rule.includes('**') || !goFilepathValid(rule)) return 'refused';
  const negate = rule.startsWith('!');
  if (negate) rule = rule.slice(1);
  const mustDir = rule.endsWith('/');
  if (mustDir) rule = rule.slice(0, -1);
  const pattern = rule.startsWith('/') ? rule.slice(1) : rule;
  const whole = rule.startsWith('/') || rule.includes('/');
  return { negate, mustDir, match: (path: string) => goFilepathMatch(pattern, whole ? path : baseName(path)) };
}

/** Whether the rules ignore a path (rules.go Ignore), given whether it is a folder. */
function ignores(rules: readonly Rule[], path: string, isDir: boolean): boolean {
  if (path === '' || path === '.' || path === './') return false;
  for (const { negate, mustDir, match } of rules) {
    if (negate) {
      if (mustDir && !isDir) return true;
      if (!match(path)) return true;
      continue;
    }
    if (mustDir && !isDir) continue;
    if (match(path)) return true;
  }
  return false;
}

/** A `.helmignore`'s rules as Helm's loader holds them, `templates/.?*` added last; 'refused' where it fails the chart. */
export function helmignoreRules(text: string | undefined): { ignores: (path: string, isDir: boolean) => boolean } | 'refused' {
  const rules: Rule[] = [];
  // bufio.Scanner's lines (a trailing \r trimmed with the spaces), a byte-order mark dropped from the first.
  for (const line of (text ?? '').replace(/^\uFEFF/, '').split('\n')) {
    const rule = ruleOf(line);
    if (rule === 'refused') return 'refused';
    if (rule) rules.push(rule);
  }
  rules.push(ruleOf('templates/.?*') as Rule);
  return { ignores: (path, isDir) => ignores(rules, path, isDir) };
}

/**
 * Which of a chart folder's files (paths relative to it, `/`-separated) Helm's loader keeps, by the folder's
 * `.helmignore` text (undefined where there is none). A file Helm refuses to parse leaves the list as it is: the
 * loader then fails the chart, and the render says so.
 */
export function keptByHelmignore(helmignore: string | undefined, files: readonly string[]): string[] {
  const rules = helmignoreRules(helmignore);
  if (rules === 'refused') return [...files];
  return files.filter((file) => {
    const parts = file.split('/');
    // The walk skips a folder it ignores, and all beneath it.
    for (let i = 1; i < parts.length; i++) if (rules.ignores(parts.slice(0, i).join('/'), true)) return false;
    return !rules.ignores(file, false);
  });
}

/** Which of the files of the chart folder `folder` (paths relative to it) Helm's loader keeps, by its own `.helmignore`, if it has one. */
export function keptInFolder(folder: string, files: readonly string[]): string[] {
  return keptByHelmignore(files.includes('.helmignore') ? readFileSync(join(folder, '.helmignore'), 'utf8') : undefined, files);
}
