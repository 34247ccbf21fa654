/**
 * The lint rules bite: the repository's own ESLint rules, run by ESLint with
 * typescript-eslint's type information on a small project, flag the restore's
 * old defect (a swap nobody awaits before the scale-up), an async request
 * handler, a type imported as a value, an over-long function, and code the
 * formatter would rewrite.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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

describe('the lint rules', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lint-probe-'));
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', types: ['node'], typeRoots: [join(process.cwd(), 'node_modules/@types')] },
        include: ['*.ts'],
      }),
    );
    await writeFile(join(dir, 'restore.ts'), SOURCE);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('catch a floating promise, an async handler and a value import used as a type', async () => {
    // The repository's own config, as `npm test` runs it (a .mjs file: imported by URL, typed here).
    const { default: repoConfig } = (await import(new URL('../../../eslint.config.mjs', import.meta.url).href)) as { default: Linter.Config[] };
    const rules = repoConfig.find((c) => c.rules)?.rules;
    expect(rules, 'eslint.config.mjs has a block with rules').toBeDefined();
    const eslint = new ESLint({
      cwd: dir,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: dir } },
          plugins: { '@typescript-eslint': tseslint.plugin as never },
          rules,
        },
      ],
    });
    const [result] = await eslint.lintFiles(['restore.ts']);
    const found = result!.messages.map((m) => `${m.line}:${m.ruleId}`);
    expect(found).toEqual(
      expect.arrayContaining([
        '2:@typescript-eslint/consistent-type-imports',
        '6:@typescript-eslint/no-floating-promises',
        '9:@typescript-eslint/no-misused-promises',
      ]),
    );
  });

  it('hold a function outside the tests to 80 lines and a check module to 300', async () => {
    const { default: repoConfig } = (await import(new URL('../../../eslint.config.mjs', import.meta.url).href)) as { default: Linter.Config[] };
    const sizeRules = Object.assign({}, ...repoConfig.filter((c) => c.rules?.['max-lines-per-function'] || c.rules?.['max-lines']).map((c) => c.rules));
    const eslint = new ESLint({
      cwd: dir,
      overrideConfigFile: true,
      overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: sizeRules }],
    });
    const long = `export function long(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(77)}  return n;\n}\n`;
    const [result] = await eslint.lintText(long + '\n'.repeat(231), { filePath: join(dir, 'long.ts') });
    expect(result!.messages.map((m) => `${m.line}:${m.ruleId}`)).toEqual(['1:max-lines-per-function', '301:max-lines']);
    const [short] = await eslint.lintText(long.replace('  n += 1;\n', ''), { filePath: join(dir, 'short.ts') });
    expect(short!.messages).toEqual([]);
  });

  it("the formatter, with the repository's settings, flags code it would rewrite and passes what it wrote", async () => {
    const prettier = await import('prettier');
    const options = { ...(await prettier.resolveConfig(join(process.cwd(), 'policy-tests/index.ts'))), filepath: 'x.ts' };
    expect(options.printWidth).toBe(160);
    const messy = 'export const x = {a:1,\n  b:"two"}\n';
    expect(await prettier.check(messy, options)).toBe(false);
    expect(await prettier.check(await prettier.format(messy, options), options)).toBe(true);
  });
});
