/**
 * The lint rules bite: the repository's own `.oxlintrc.json`, run by oxlint
 * with type information (tsgolint) on a small project, flags the restore's
 * old defect (a swap nobody awaits before the scale-up), an async request
 * handler, a type imported as a value, an over-long function and check
 * module, and passes the same length in a test; the formatter, with the
 * repository's settings, flags code it would rewrite.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../../test-support/exec.ts';

const SOURCE = `import { createServer } from 'node:http';
import { Server } from 'node:http';
async function swap(): Promise<void> {}
async function scaleUp(): Promise<void> {}
export async function restore(): Promise<void> {
  swap();
  await scaleUp();
}
export const server: Server = createServer(async (_req, res) => {
  await swap();
  res.end();
});
`;

/** A module of `lines` lines whose one function spans `body + 4` lines (80 is the most allowed). */
function module(body: number, lines: number): string {
  const fn = `export function long(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(body)}  return n;\n}\n`;
  return fn + '\n'.repeat(lines - fn.split('\n').length + 1);
}

const PROBE: Record<string, string> = {
  'restore.ts': SOURCE,
  'policy-tests/checks/long.ts': module(77, 301),
  'policy-tests/checks/short.ts': module(76, 300),
  'policy-tests/test/long.test.ts': module(120, 400),
  // Five positional parameters are refused, four pass: past four, a call names its values (options).
  'scripts/params.ts':
    'export const five = (a: number, b: number, c: number, d: number, e: number): number => a + b + c + d + e;\n' +
    'export const four = (a: number, b: number, c: number, d: number): number => a + b + c + d;\n',
};

interface Diagnostic {
  code: string;
  filename: string;
  labels: { span: { line: number } }[];
}

describe('the lint rules', () => {
  const repo = process.cwd();
  let dir: string;
  let found: string[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lint-probe-'));
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', types: ['node'], typeRoots: [join(repo, 'node_modules/@types')] },
        include: ['**/*.ts'],
      }),
    );
    for (const [path, text] of Object.entries(PROBE)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    // The repository's own config, as `npm test` runs it; its globs are relative to where it sits.
    await copyFile(join(repo, '.oxlintrc.json'), join(dir, '.oxlintrc.json'));
    // tsgolint is found beside oxlint in a project; the probe has no node_modules, so it is named.
    const env = { ...process.env, OXLINT_TSGOLINT_PATH: join(repo, 'node_modules/.bin/tsgolint') };
    const run = await exec(join(repo, 'node_modules/.bin/oxlint'), ['--format', 'json'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(1);
    const { diagnostics } = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
    found = diagnostics.map((d) => `${d.filename}:${d.labels[0]!.span.line}:${d.code}`).sort();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('catch a floating promise, an async handler and a value import used as a type', () => {
    expect(found.filter((f) => f.startsWith('restore.ts:'))).toEqual([
      'restore.ts:2:typescript(consistent-type-imports)',
      'restore.ts:6:typescript(no-floating-promises)',
      'restore.ts:9:typescript(no-misused-promises)',
    ]);
  });

  it('hold a function outside the tests to 80 lines and a check module to 300', () => {
    expect(found.filter((f) => f.startsWith('policy-tests/'))).toEqual([
      'policy-tests/checks/long.ts:1:eslint(max-lines-per-function)',
      'policy-tests/checks/long.ts:301:eslint(max-lines)',
    ]);
  });

  it('refuse a function of more than four parameters', () => {
    expect(found.filter((f) => f.startsWith('scripts/'))).toEqual(['scripts/params.ts:1:eslint(max-params)']);
  });

  it("the formatter, with the repository's settings, flags code it would rewrite and passes what it wrote", async () => {
    const oxfmt = join(repo, 'node_modules/.bin/oxfmt');
    const format = join(dir, 'format');
    await mkdir(format);
    await copyFile(join(repo, '.oxfmtrc.json'), join(format, '.oxfmtrc.json'));
    // 120 columns: past Prettier's default of 80, within the repository's 160, which keeps it on one line.
    const wide = `export const wide = [${Array.from({ length: 20 }, (_, i) => `'v${i}'`).join(', ')}];\n`;
    await writeFile(join(format, 'wide.ts'), wide);
    await writeFile(join(format, 'messy.ts'), 'export const x = {a:1,\n  b:"two"}\n');
    const check = (file: string) => exec(oxfmt, ['--check', file], { cwd: format });
    expect((await check('wide.ts')).code).toBe(0);
    expect((await check('messy.ts')).code).toBe(1);
    expect((await exec(oxfmt, ['messy.ts'], { cwd: format })).code).toBe(0);
    expect(await readFile(join(format, 'messy.ts'), 'utf8')).toBe("export const x = { a: 1, b: 'two' };\n");
    expect((await check('messy.ts')).code).toBe(0);
  });
});
