/**
 * Which script a runtime's command line runs, and whether the image's build holds it. Node (`node [options] [script |
 * -e code | -] [arguments]`, doc/api/cli.md) resolves the script against the working directory as CommonJS resolves a
 * main entry (the file, then with .js, .mjs, .cjs, .json or .node, then its index.js), and stops at once on one it
 * does not find ("Cannot find module"). Python (`python [option] ... [-c cmd | -m mod | file | -] [args]`, "Command
 * line and environment" of its docs) runs the file as written, or a folder's __main__.py, and exits 2 on one it
 * cannot open ("can't open file ... No such file or directory"). The script is the first word that is no option, nor
 * the value of an option that takes one in the next word; `--` ends the options. An image's facts list the scripts its
 * build holds (`options` with `parser: node` or `parser: python`), as paths from its working directory.
 */

/** An image's runtime and the scripts its build holds, from the image's working directory. */
export interface ScriptRunner {
  program: string;
  parser: 'node' | 'python';
  scripts: string[];
}

/** How each runtime reads its command line: the options taking the next word, those after which no script runs, and the files it tries. */
const RUNTIMES = {
  node: {
    withValue: [
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
    ],
    // Code, a REPL, the test runner, a package script.
    noScript: ['-e', '--eval', '-p', '--print', '-i', '--interactive', '-', '--test', '--run', '-c', '--check', '-v', '--version', '-h', '--help'],
    extensions: ['', '.js', '.mjs', '.cjs', '.json', '.node', '/index.js'],
    missing: 'node stops at once ("Cannot find module")',
  },
  python: {
    withValue: ['-W', '-X', '--check-hash-based-pycs'],
    // A command, a module, standard input, or only the interpreter's own answer.
    noScript: ['-c', '-m', '-', '-h', '-?', '--help', '--help-env', '--help-xoptions', '--help-all', '-V', '--version'],
    extensions: ['', '/__main__.py'],
    missing: 'python exits 2 at once ("can\'t open file")',
  },
} as const;

/** What a runtime does when its script is not there. */
export const missingScript = (parser: ScriptRunner['parser']): string => RUNTIMES[parser].missing;

/** Whether a facts entry is a ScriptRunner. */
export function isScriptRunner(v: unknown): boolean {
  const o = (v ?? {}) as Record<string, unknown>;
  return (
    typeof o.program === 'string' &&
    o.program !== '' &&
    (o.parser === 'node' || o.parser === 'python') &&
    Array.isArray(o.scripts) &&
    o.scripts.length > 0 &&
    o.scripts.every((s) => typeof s === 'string' && s !== '' && !s.startsWith('/') && !s.startsWith('./'))
  );
}

/** The script a runtime's command line runs (its index among `words`, the words after the program), or undefined where it runs none or the gate cannot tell. */
export function runScript(parser: ScriptRunner['parser'], words: readonly string[]): { index: number; script: string } | undefined {
  const { withValue, noScript } = RUNTIMES[parser];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') return i + 1 < words.length ? { index: i + 1, script: words[i + 1]! } : undefined;
    if ((noScript as readonly string[]).includes(word.split('=')[0]!)) return undefined;
    if (!word.startsWith('-')) return { index: i, script: word };
    if ((withValue as readonly string[]).includes(word)) i++;
  }
  return undefined;
}

/** Whether the runtime finds the script among the files the facts list: as written from the working directory, or as it resolves one. */
export function findsScript(parser: ScriptRunner['parser'], script: string, scripts: readonly string[]): boolean | undefined {
  // An absolute path, or one that climbs out, is read against a directory the facts do not name: not judged.
  if (script.startsWith('/') || script.split('/').includes('..')) return undefined;
  const relative = script.replace(/^(\.\/)+/, '');
  return RUNTIMES[parser].extensions.some((ext) => scripts.includes(`${relative}${ext}`));
}
