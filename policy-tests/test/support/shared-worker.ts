/**
 * The suite runs test files one after another in shared workers (vitest's
 * `isolate: false`): each worker's modules, the gate's memos and stores, are
 * loaded once, not once per file. That is sound only while no test changes
 * what the next file in the same worker would see. This finds the ways a test
 * file can do that, read from its syntax tree with the TypeScript compiler.
 */
import ts from 'typescript';
import { readSources } from './sources.ts';

/** Where the tests and their helpers live (vitest.config.ts includes the tests of the first four). */
export const TEST_ROOTS = ['policy-tests/test', 'scripts/test', 'portfolio-api/test', 'monitoring/watchdog/test', 'test-support'] as const;

/**
 * Modules vitest runs in its own main process before any worker starts (vitest.config.ts's globalSetup): the
 * environment they set is every worker's from its start, the same for every file, so it leaks into nothing.
 */
export const MAIN_PROCESS_MODULES: ReadonlySet<string> = new Set(['test-support/scratch.ts']);

/** vi calls that replace a module, a global, the environment or the clock for the rest of the worker's life. */
const PROCESS_WIDE_VI = new Set(['mock', 'doMock', 'spyOn', 'stubEnv', 'stubGlobal', 'useFakeTimers']);
/** process methods that change the process for every later file. */
const PROCESS_WIDE_CALLS = new Set(['chdir', 'on', 'once', 'addListener', 'prependListener', 'setUncaughtExceptionCaptureCallback', 'umask']);

/** Every .ts/.mts/.mjs file under the test roots, by path from the repository root. */
export function testSources(root: string): Map<string, string> {
  return readSources(root, TEST_ROOTS, /\.(m?ts|mjs)$/, new Set(['node_modules']));
}

const isName = (node: ts.Node, name: string): boolean => ts.isIdentifier(node) && node.text === name;
/** `process.<name>`. */
const isProcessProperty = (node: ts.Node, name: string): boolean =>
  ts.isPropertyAccessExpression(node) && isName(node.expression, 'process') && node.name.text === name;
/** `process.env`, `process.env.X` or `process.env[X]`. */
const isEnv = (node: ts.Node): boolean =>
  isProcessProperty(node, 'env') || ((ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) && isEnv(node.expression));

/** What in one file changes the worker for later files, as `file:line: what`. */
function problemsOf(file: string, text: string): string[] {
  // Child scripts (fakes, writers, drivers) run in processes of their own: what they do to `process` stays there.
  if (text.startsWith('#!') || file.endsWith('.mjs') || file.includes('/fixtures/') || MAIN_PROCESS_MODULES.has(file)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const at = (node: ts.Node, what: string) => out.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      if (isEnv(node.left)) at(node, 'assigns to process.env');
      if (isProcessProperty(node.left, 'exitCode')) at(node, 'sets process.exitCode');
      if (ts.isPropertyAccessExpression(node.left) && isName(node.left.expression, 'globalThis')) at(node, `assigns globalThis.${node.left.name.text}`);
    }
    if (ts.isDeleteExpression(node) && isEnv(node.expression)) at(node, 'deletes from process.env');
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const { expression: owner, name } = node.expression;
      if (isName(owner, 'vi') && PROCESS_WIDE_VI.has(name.text)) at(node, `calls vi.${name.text}`);
      if (isName(owner, 'process') && PROCESS_WIDE_CALLS.has(name.text)) at(node, `calls process.${name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Each file's problems by its path and text: the bite tests judge the whole tree again with one file changed. */
const judged = new Map<string, string[]>();

/** Every place in `sources` that would leak into the next test file of a shared worker. */
export function sharedWorkerProblems(sources: ReadonlyMap<string, string>): string[] {
  return [...sources].flatMap(([file, text]) => {
    const key = `${file}\0${text}`;
    let problems = judged.get(key);
    if (!problems) judged.set(key, (problems = problemsOf(file, text)));
    return problems;
  });
}
