// Lint: typescript-eslint's type-aware rules, for the bugs a type checker lets through (floating and
// misused promises, unsafe `any`, unhandled rejections in handlers and workers). Formatting is Prettier's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'demo-dist/',
      'node_modules/',
      'coverage/',
      'bench/out/',
      'bench/models/',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
      '**/*.as.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
