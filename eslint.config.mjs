// ESLint with typescript-eslint, type-aware, with the rules this codebase needs:
// no floating promises (the rule that would have caught the restore's missing
// await), no misused promises, consistent type imports. Unused values are
// tsc's job (noUnusedLocals, noUnusedParameters).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'policy-tests/dist/**', 'monitoring/watchdog/**', 'reports/**', '**/*.mjs', '**/*.js'] },
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
);
