/** Node's command line as model/programs/node-command.ts reads which script it runs, and whether the build makes it. */
import { describe, expect, it } from 'vitest';
import { isNodeScripts, nodeFindsScript, nodeScript } from '../../model/programs/node-command.ts';

describe("node's script", () => {
  it('is the first word that is no option nor the value of one, or the word after --; none after code, a REPL or the test runner', () => {
    expect(nodeScript(['dist/server.js', '--port', '1'])).toEqual({ index: 0, script: 'dist/server.js' });
    expect(nodeScript(['--enable-source-maps', '-r', 'tracing', '--import=otel', 'main.js'])).toEqual({ index: 4, script: 'main.js' });
    expect(nodeScript(['--', '-weird.js'])).toEqual({ index: 1, script: '-weird.js' });
    for (const words of [['-e', 'x'], ['--eval=1'], ['-p', '1'], ['-'], ['--test'], ['-v'], [], ['--inspect']]) expect(nodeScript(words)).toBeUndefined();
  });

  it('is found as written from the working directory or as CommonJS resolves a main entry; a path from elsewhere is not judged', () => {
    const scripts = ['dist/server.js', 'dist/cli/index.js'];
    for (const s of ['dist/server.js', './dist/server.js', 'dist/server', 'dist/cli']) expect(nodeFindsScript(s, scripts)).toBe(true);
    for (const s of ['dist/sever.js', 'server.js', 'dist/server.mjs']) expect(nodeFindsScript(s, scripts)).toBe(false);
    for (const s of ['/app/dist/server.js', '../x.js']) expect(nodeFindsScript(s, scripts)).toBeUndefined();
  });

  it('takes facts of scripts from the working directory, not absolute or dotted ones', () => {
    expect(isNodeScripts({ program: 'node', parser: 'node', scripts: ['dist/a.js'] })).toBe(true);
    for (const scripts of [[], ['/app/a.js'], ['./a.js'], [1]]) expect(isNodeScripts({ program: 'node', parser: 'node', scripts })).toBe(false);
  });
});
