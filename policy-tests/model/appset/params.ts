/**
 * The parameters an ApplicationSet's generators make, as Argo CD's ApplicationSet controller makes them
 * (applicationset/generators list.go and git.go, v3.5.1): a list's elements, and a git generator's folders or files
 * of this repository at the branch Argo CD syncs. With `goTemplate` a parameter set keeps its nesting (`.path.basename`);
 * without it, every value is a string under a flat key (`path.basename`, a file's `a.b.0`), as fasttemplate reads them.
 * Other generators (clusters, pull requests, SCM providers, plugins, a matrix or a merge) are not evaluated here: the
 * caller refuses them.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, posix, relative } from 'node:path';
import { parseDocument } from 'yaml';
import { isMap, type Obj } from '../core/dig.ts';
import { goPrint } from '../go/fmt.ts';
import { doublestarMatch, gitPathspecMatch, goFilepathMatch } from '../core/glob.ts';
import { globMatches } from '../argocd/source-files.ts';
import { checkoutTree, type Repo } from '../repository/repo.ts';
import { cmdParamsSwitch, HIDDEN_DIRECTORIES_KEY } from '../argocd/refusals.ts';

export type Params = Record<string, unknown>;

/** Why Argo CD's controller fails an ApplicationSet and makes nothing. */
export class GeneratorError extends Error {}

/** What the gate cannot tell of an ApplicationSet: it is said, never taken as fine. */
export class Unjudged extends Error {}

/** Argo CD's SanitizeName (applicationset/utils template_functions.go): a DNS-1123 name of any text. */
export function sanitizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^-a-z0-9.]/gu, '-')
    .slice(0, 253)
    .replace(/^[-.]+|[-.]+$/g, '');
}

/** jeremywohl/flatten in its dot style: nested maps and lists become `a.b.0` keys; an empty one leaves nothing. */
export function flatten(value: Obj, prefix = ''): Obj {
  const out: Obj = {};
  const walk = (v: unknown, key: string) => {
    if (isMap(v)) for (const [k, inner] of Object.entries(v)) walk(inner, key === '' ? k : `${key}.${k}`);
    else if (Array.isArray(v)) v.forEach((inner, i) => walk(inner, key === '' ? String(i) : `${key}.${i}`));
    else out[key] = v;
  };
  for (const [k, v] of Object.entries(value)) walk(v, `${prefix}${k}`);
  return out;
}

/** A list generator's elements (list.go): with goTemplate as written; without, each value a string (`values.*` flattened one level). */
export function listParams(list: Obj, goTemplate: boolean): Params[] {
  const elements = Array.isArray(list.elements) ? list.elements : [];
  const out: Params[] = elements.map((element, i) => {
    if (!isMap(element)) throw new GeneratorError(`error unmarshling list element ${i}: not an object`);
    if (goTemplate) return element;
    const params: Params = {};
    for (const [key, value] of Object.entries(element)) {
      if (key === 'values') {
        if (!isMap(value)) throw new GeneratorError('error parsing values map');
        for (const [k, v] of Object.entries(value)) {
          if (typeof v !== 'string') throw new GeneratorError(`error parsing value as string: values.${k}`);
          params[`values.${k}`] = v;
        }
      } else if (typeof value !== 'string') throw new GeneratorError(`error parsing value as string: ${key}`);
      else params[key] = value;
    }
    return params;
  });
  if (typeof list.elementsYaml === 'string' && list.elementsYaml !== '') {
    const parsed = readYaml11(list.elementsYaml);
    if (!Array.isArray(parsed) || !parsed.every(isMap)) throw new GeneratorError('error unmarshling decoded ElementsYaml: not a list of objects');
    out.push(...parsed);
  }
  return out;
}

/**
 * The folders of the checkout the git directories generator lists (the repo-server's GetGitDirectories): every one,
 * hidden ones and what is under them left out unless argocd-cmd-params-cm's reposerver.include.hidden.directories
 * says "true".
 */
export function checkoutDirectories(repo: Repo): string[] {
  const hidden = cmdParamsSwitch(repo, HIDDEN_DIRECTORIES_KEY);
  const dirs = new Set<string>();
  for (const path of checkoutTree(repo)) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (!hidden && parts[i - 1]!.startsWith('.')) break;
      dirs.add(parts.slice(0, i).join('/'));
    }
  }
  return [...dirs].sort();
}

export interface GitItem {
  path: string;
  exclude?: boolean;
}

/** Path parameters of one folder or file (git.go generateParamsFromApps, generateParamsFromGitFile). */
function pathParams(dir: string, file: string | undefined, goTemplate: boolean, prefix: string): Params {
  const base = posix.basename(dir);
  if (goTemplate) {
    const path: Params = { path: dir, basename: base, basenameNormalized: sanitizeName(base), segments: dir.split('/') };
    if (file !== undefined) Object.assign(path, { filename: posix.basename(file), filenameNormalized: sanitizeName(posix.basename(file)) });
    return prefix ? { [prefix]: { path } } : { path };
  }
  const name = prefix ? `${prefix}.path` : 'path';
  const out: Params = { [name]: dir, [`${name}.basename`]: base, [`${name}.basenameNormalized`]: sanitizeName(base) };
  if (file !== undefined)
    Object.assign(out, { [`${name}.filename`]: posix.basename(file), [`${name}.filenameNormalized`]: sanitizeName(posix.basename(file)) });
  dir.split('/').forEach((segment, i) => {
    if (segment !== '') out[`${name}[${i}]`] = segment;
  });
  return out;
}

/** The folders of `dirs` (GetDirectories' list) the directories generator takes: a pattern (Go's path.Match) includes each, and none excludes it. */
export function matchedDirectories(dirs: readonly string[], items: readonly GitItem[]): string[] {
  return dirs.filter((dir) => {
    const hits = items.filter((item) => goFilepathMatch(item.path, dir));
    return hits.some((i) => !i.exclude) && !hits.some((i) => i.exclude);
  });
}

/** The git directories generator's parameter sets over `dirs`. */
export function directoryParams(dirs: readonly string[], items: readonly GitItem[], goTemplate: boolean, prefix: string): Params[] {
  return matchedDirectories(dirs, items).map((dir) => pathParams(dir, undefined, goTemplate, prefix));
}

/** argocd-cmd-params-cm's key the ApplicationSet controller reads its new git file globbing from. */
export const NEW_GLOBBING_KEY = 'applicationsetcontroller.enable.new.git.file.globbing';

/**
 * Folders and files every repo-server checkout's .git holds, one to four levels down: a generator pattern that matches
 * one would list what the gate cannot see (the directories generator with hidden folders listed, the files
 * generator under the new globbing).
 */
export const GIT_FOLDERS = ['.git', '.git/objects', '.git/refs/heads', '.git/logs/refs/heads'];
const GIT_FILES = ['.git/HEAD', '.git/config', '.git/index', '.git/hooks/pre-commit.sample', '.git/info/exclude'];

/**
 * The files of the checkout the git files generator reads, in path order: for each include, what `git ls-files` lists
 * (the default globbing, `*` crossing `/`), or, with argocd-cmd-params-cm's new git file globbing, what
 * doublestar.FilepathGlob finds in the checkout (util/git LsFiles), a folder among them failing its read; then every
 * file an exclude lists taken out.
 */
export function gitFiles(repo: Repo, items: readonly GitItem[]): string[] {
  if (cmdParamsSwitch(repo, NEW_GLOBBING_KEY)) return globbedGitFiles(repo, items);
  return checkoutTree(repo)
    .filter((f) => items.some((i) => !i.exclude && gitPathspecMatch(i.path, f)) && !items.some((i) => i.exclude && gitPathspecMatch(i.path, f)))
    .sort();
}

function globbedGitFiles(repo: Repo, items: readonly GitItem[]): string[] {
  const tree = checkoutTree(repo);
  const matched = (pattern: string): string[] => {
    // filepath.Join(root, pattern) cleans it; what then lies outside the root is dropped (LsFiles' prefix check).
    const relative = posix.normalize(`./${pattern}`).replace(/^\/+/, '');
    if (relative === '..' || relative.startsWith('../')) return [];
    if ([...GIT_FOLDERS, ...GIT_FILES].some((p) => safeDoublestar(relative, p)))
      throw new Unjudged(
        `its git files pattern ${JSON.stringify(pattern)}, globbed as ${NEW_GLOBBING_KEY} globs it, matches the checkout's .git, which the gate cannot see`,
      );
    const { files, folder, error } = globMatches(tree, relative);
    if (error !== undefined) throw new GeneratorError(`unable to list files. pattern ${pattern}: ${error}`);
    if (folder !== undefined) throw new GeneratorError(`unable to read files. pattern ${pattern}: read ${folder}: is a directory`);
    return files;
  };
  const found = new Set(items.filter((i) => !i.exclude).flatMap((i) => matched(i.path)));
  for (const item of items.filter((i) => i.exclude)) for (const file of matched(item.path)) found.delete(file);
  return [...found].sort();
}

/** doublestar's match, a bad pattern matching nothing here (its error is said where the pattern is globbed). */
function safeDoublestar(pattern: string, path: string): boolean {
  try {
    return doublestarMatch(pattern, path);
  } catch {
    return false;
  }
}

/** The largest git generator file the gate reads: a pull request's file must not hold the gate (Argo CD reads any size). */
export const MAX_GENERATOR_FILE_BYTES = 4 * 1024 * 1024;

/**
 * A file of the checkout as the repo-server reads it for the generator. A link out of the checkout is not followed
 * (its text would reach the gate's output), and a file past the size limit not read: either is not judged.
 */
export function readCheckoutFile(repo: Repo, file: string): string {
  const path = join(repo.root, file);
  try {
    const real = realpathSync.native(path);
    const rel = relative(realpathSync.native(repo.root), real);
    if (rel.startsWith('..') || isAbsolute(rel)) throw new Unjudged(`its git generator's file ${file} is a link out of the checkout`);
    if (statSync(real).size > MAX_GENERATOR_FILE_BYTES)
      throw new Unjudged(`its git generator's file ${file} is larger than ${MAX_GENERATOR_FILE_BYTES / 1024 / 1024} MiB, more than the gate reads`);
    return readFileSync(real, 'utf8');
  } catch (err) {
    if (err instanceof Unjudged) throw err;
    throw new GeneratorError(`unable to read file '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The git files generator's parameters of files and their texts, in path order: each object of each file a set. */
export function fileParams(files: readonly { path: string; text: string }[], goTemplate: boolean, prefix: string): Params[] {
  return [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .flatMap(({ path: file, text }) => {
      let data: unknown;
      try {
        data = readYaml11(text);
      } catch (err) {
        throw new GeneratorError(`unable to process file '${file}': unable to parse file: ${(err as Error).message.split('\n')[0]}`);
      }
      // One object, or a list of them; an empty file is one empty object.
      const objects = data === null || data === undefined ? [{}] : isMap(data) ? [data] : Array.isArray(data) && data.every(isMap) ? data : undefined;
      if (!objects) throw new GeneratorError(`unable to process file '${file}': unable to parse file: neither an object nor a list of objects`);
      return objects.map((object) => {
        const own = goTemplate ? { ...object } : Object.fromEntries(Object.entries(flatten(object)).map(([k, v]) => [k, goPrint(v)]));
        return { ...own, ...pathParams(posix.dirname(file), file, goTemplate, prefix) };
      });
    });
}

/** YAML as sigs.k8s.io/yaml reads it (go-yaml v2, YAML 1.1: `yes` is true, `0777` octal), made JSON. */
export function readYaml11(text: string): unknown {
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false });
  if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message.split('\n')[0]);
  return doc.toJS({ maxAliasCount: 100 });
}
