/**
 * A script's --help and usage errors answer before it loads the gate (scripts/lib/front-door.ts): its entry's static
 * imports, the modules Node loads before the script's first line runs, reach the gate's front door only for the
 * scripts whose help names what the gate resolves (the chart cache, a reference file). Read from the sources with the
 * TypeScript compiler's parser: an `import type` loads nothing, an `import()` loads when the command runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/index.ts';
import { FRONT_DOOR } from '../../policy-tests/test/support/import-graph.ts';

/** The relative modules a file loads before its body runs: its value imports and re-exports, not its types or import() calls. */
function staticImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    const loads =
      (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) ||
      (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier !== undefined);
    const specifier = loads ? (statement as ts.ImportDeclaration | ts.ExportDeclaration).moduleSpecifier : undefined;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) out.push(normalize(join(dirname(file), specifier.text)));
  }
  return out;
}

/** Whether `entry`'s static imports reach `target`, followed through the repository's files. */
function reaches(entry: string, target: string): boolean {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length) {
    const file = stack.pop()!;
    if (file === target) return true;
    if (seen.has(file) || !/\.m?[jt]s$/.test(file) || !existsSync(join(REPO_ROOT, file))) continue;
    seen.add(file);
    stack.push(...staticImports(file, readFileSync(join(REPO_ROOT, file), 'utf8')));
  }
  return false;
}

/** Each npm script that npm starts through scripts/run.mjs, with its entry file. */
const scripts = Object.entries((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)
  .map(([name, line]) => ({ name, entry: /^node scripts\/run\.mjs (\S+\.ts)/.exec(line)?.[1] }))
  .filter((s): s is { name: string; entry: string } => s.entry !== undefined);

describe("a script's --help", () => {
  it('loads the gate only in the scripts whose help names what the gate resolves', () => {
    expect(scripts.length).toBeGreaterThan(20);
    const loading = scripts.filter((s) => reaches(s.entry, FRONT_DOOR)).map((s) => s.name);
    expect(loading.sort()).toEqual([
      'alloy:reference',
      'charts:pull',
      'gluetun:reference',
      'loki:reference',
      'tempo:reference',
      'traefik:reference',
      'unpoller:reference',
    ]);
  });

  it('reads a static import as loaded, and an import type, a type re-export or an import() call as not', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from './b.ts';",
      "export { c } from './c.ts';",
      "export type { D } from './d.ts';",
      "const e = () => import('./e.ts');",
      "import 'node:fs';",
    ].join('\n');
    expect(staticImports('scripts/x.ts', text)).toEqual(['scripts/a.ts', 'scripts/c.ts']);
  });
});
