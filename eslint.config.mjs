// ESLint with typescript-eslint, type-aware, with the rules this codebase needs:
// no floating promises (the rule that would have caught the restore's missing
// await), no misused promises, consistent type imports. Unused values are
// tsc's job (noUnusedLocals, noUnusedParameters).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'policy-tests/dist/**', 'reports/**', '**/*.mjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // typeof import('...') stays allowed: it types a module loaded lazily (the CEL engine) without loading it.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  // Small functions outside the tests: a body longer than a screen hides what it does; name its parts.
  {
    files: ['**/*.ts'],
    ignores: ['**/test/**', '**/*.test.ts', 'bench/**', 'portfolio-api/bench/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  // A check module is read whole when a check fails: one screenful of files, no file over 300 lines.
  { files: ['policy-tests/checks/**/*.ts'], rules: { 'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }] } },
);
