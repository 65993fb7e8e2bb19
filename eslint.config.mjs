// Type-aware lint. Boundaries: the domain stays pure; libs never import apps; no deep imports into another lib.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      '.services/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver': { typescript: false, node: true } },
    rules: {
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'separate-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['@acm/*/src/*', '@acm/*/src'], message: 'Import a lib through its index: @acm/<lib>.' }],
        },
      ],
    },
  },
  {
    files: ['libs/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@nestjs/*',
                'typeorm',
                'kafkajs',
                'class-*',
                'js-yaml',
                'pg',
                '@acm/*',
                'node:*',
                'fs',
                'crypto',
              ],
              message: 'libs/domain is pure: no framework, no I/O, no other lib.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'libs/domain is pure: configuration arrives as arguments.' },
        { name: 'Date', message: 'libs/domain is pure: time arrives as an argument (Clock port).' },
        { name: 'setTimeout', message: 'libs/domain is pure.' },
        { name: 'globalThis', message: 'libs/domain is pure: what it needs arrives as an argument.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'libs/domain is pure: randomness arrives as an argument.' },
      ],
    },
  },
  {
    files: ['libs/**/*.ts'],
    ignores: ['libs/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/apps/**'], message: 'Libraries never import applications.' },
            { group: ['@acm/*/src/*', '@acm/*/src'], message: 'Import a lib through its index: @acm/<lib>.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The web console is browser code with its own compiler settings (DOM, JSX for Preact).
    files: ['apps/console/**/*.ts', 'apps/console/**/*.tsx'],
    languageOptions: {
      parserOptions: { project: './apps/console/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
);
