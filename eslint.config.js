/**
 * Type-aware checks that tsc does not make: a promise nobody awaits, and one handed to code that
 * expects a plain value (a condition, a callback whose result is ignored). The store is
 * asynchronous (src/store/sql.ts): a forgotten await there is a write that may fail unseen or a
 * check that always passes. Style is left to the code review.
 */
import tseslint from 'typescript-eslint'

export default [
  { ignores: ['dist/**', 'web/**', 'node_modules/**', 'bench/.work/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
]
