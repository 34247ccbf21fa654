/**
 * Node's command line (`node [options] [script | -e code | -] [arguments]`, doc/api/cli.md), as far as which script it
 * runs: the first word that is no option, nor the value of an option that takes one in the next word; `--` ends the
 * options. Node resolves the script against the working directory as CommonJS resolves a main entry (the file, then
 * with .js, .mjs, .cjs, .json or .node, then its index.js), and a script that is none of the files the image holds
 * stops it at once ("Cannot find module"). An image's facts list the scripts its build holds (`options` with `parser:
 * node`), as paths from its working directory.
 */

/** An image's node and the scripts its build holds, from the image's working directory. */
export interface NodeScripts {
  program: string;
  parser: 'node';
  scripts: string[];
}

/** Whether a facts entry is a NodeScripts. */
export function isNodeScripts(v: unknown): boolean {
  const o = (v ?? {}) as Record<string, unknown>;
  return (
    typeof o.program === 'string' &&
    o.program !== '' &&
    o.parser === 'node' &&
    Array.isArray(o.scripts) &&
    o.scripts.length > 0 &&
    o.scripts.every((s) => typeof s === 'string' && s !== '' && !s.startsWith('/') && !s.startsWith('./'))
  );
}

/** Node's options that take their value in the next word (doc/api/cli.md: `-r module`, `--import module`, ...). */
const WITH_VALUE = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--env-file',
  '--title',
  '--input-type',
  '--inspect-port',
  '--debug-port',
]);
/** Node's options after which no script runs: code, a REPL, the test runner, a package script. */
const NO_SCRIPT = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive', '-', '--test', '--run', '-c', '--check', '-v', '--version', '-h', '--help']);
const EXTENSIONS = ['', '.js', '.mjs', '.cjs', '.json', '.node', '/index.js'];

/** The script a node command line runs (its index among `words`, the words after the program), or undefined where it runs none or the gate cannot tell. */
export function nodeScript(words: readonly string[]): { index: number; script: string } | undefined {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') return i + 1 < words.length ? { index: i + 1, script: words[i + 1]! } : undefined;
    if (NO_SCRIPT.has(word.split('=')[0]!)) return undefined;
    if (!word.startsWith('-')) return { index: i, script: word };
    if (WITH_VALUE.has(word)) i++;
  }
  return undefined;
}

/** Whether Node finds the script among the files the facts list: as written from the working directory, or as CommonJS resolves it. */
export function nodeFindsScript(script: string, scripts: readonly string[]): boolean | undefined {
  // An absolute path, or one that climbs out, is read against a directory the facts do not name: not judged.
  if (script.startsWith('/') || script.split('/').includes('..')) return undefined;
  const relative = script.replace(/^(\.\/)+/, '');
  return EXTENSIONS.some((ext) => scripts.includes(`${relative}${ext}`));
}
