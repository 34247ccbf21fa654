/**
 * The lint rules bite: the repository's own ESLint rules, run by ESLint with
 * typescript-eslint's type information on a small project, flag the restore's
 * old defect (a swap nobody awaits before the scale-up), an async request
 * handler, and a type imported as a value.
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
    const { default: repoConfig } = (await import(new URL('../../eslint.config.mjs', import.meta.url).href)) as { default: Linter.Config[] };
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
});
