/** A runtime's command line as model/command-lines/script-command.ts reads which script it runs (Node, Python), and whether the build makes it. */
import { describe, expect, it } from 'vitest';
import { findsScript, isScriptRunner, runScript } from '../../model/command-lines/script-command.ts';

const nodeScript = (words: string[]) => runScript('node', words);
const pythonScript = (words: string[]) => runScript('python', words);

describe("node's script", () => {
  it('is the first word that is no option nor the value of one, or the word after --; none after code, a REPL or the test runner', () => {
    expect(nodeScript(['dist/server.js', '--port', '1'])).toEqual({ index: 0, script: 'dist/server.js' });
    expect(nodeScript(['--enable-source-maps', '-r', 'tracing', '--import=otel', 'main.js'])).toEqual({ index: 4, script: 'main.js' });
    expect(nodeScript(['--', '-weird.js'])).toEqual({ index: 1, script: '-weird.js' });
    for (const words of [['-e', 'x'], ['--eval=1'], ['-p', '1'], ['-'], ['--test'], ['-v'], [], ['--inspect']]) expect(nodeScript(words)).toBeUndefined();
  });

  it('is found as written from the working directory or as CommonJS resolves a main entry; a path from elsewhere is not judged', () => {
    const scripts = ['dist/server.js', 'dist/cli/index.js'];
    for (const s of ['dist/server.js', './dist/server.js', 'dist/server', 'dist/cli']) expect(findsScript('node', s, scripts)).toBe(true);
    for (const s of ['dist/sever.js', 'server.js', 'dist/server.mjs']) expect(findsScript('node', s, scripts)).toBe(false);
    for (const s of ['/app/dist/server.js', '../x.js']) expect(findsScript('node', s, scripts)).toBeUndefined();
  });

  it('takes facts of scripts from the working directory, not absolute or dotted ones', () => {
    expect(isScriptRunner({ program: 'node', parser: 'node', scripts: ['dist/a.js'] })).toBe(true);
    for (const scripts of [[], ['/app/a.js'], ['./a.js'], [1]]) expect(isScriptRunner({ program: 'node', parser: 'node', scripts })).toBe(false);
    expect(isScriptRunner({ program: 'python', parser: 'ruby', scripts: ['a.rb'] })).toBe(false);
  });
});

describe("python's script", () => {
  it('is the first word that is no option nor the value of -W or -X; none after -c, -m, - or the version', () => {
    expect(pythonScript(['Tautulli.py', '--datadir', '/config'])).toEqual({ index: 0, script: 'Tautulli.py' });
    expect(pythonScript(['-u', '-W', 'ignore', '-X', 'utf8', 'Tautulli.py'])).toEqual({ index: 5, script: 'Tautulli.py' });
    for (const words of [['-c', 'print(1)'], ['-m', 'http.server'], ['-'], ['-V'], []]) expect(pythonScript(words)).toBeUndefined();
  });

  it('is found as written, or as a folder with __main__.py, with no extension added', () => {
    expect(findsScript('python', 'Tautulli.py', ['Tautulli.py'])).toBe(true);
    expect(findsScript('python', 'app', ['app/__main__.py'])).toBe(true);
    for (const s of ['Tautulil.py', 'Tautulli']) expect(findsScript('python', s, ['Tautulli.py'])).toBe(false);
  });
});
