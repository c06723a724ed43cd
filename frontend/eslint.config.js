// ESLint (flat config): typescript-eslint's recommended rules, the rules of React hooks, and the
// frontend's layers as import rules. Run by `npm run lint` (part of `make test`).
//
// Layers, bottom to top (README.md, "Layers"): each folder imports only from folders below it.
//
//   api/         the generated wire types and the fetch client; imports nothing of the app
//   logic/       pure functions: no React, no DOM; the API's *types* only (never the client)
//   charts/      one D3 chart a file: logic/ and API types; no cells, pages, state, components
//   state/       the URL and the saved document: logic/, API types, and `cells/registry` (the one
//                table of kinds, whose encode/decode a link's cells go through), never a cell's folder
//   components/  shared React pieces: api/, logic/, charts/ and `state/router` (links) only
//   cells/       the notebook's kinds: anything above but pages and state; a cell never imports
//                the registry (it imports them)
//   pages/, App.tsx, main.tsx   the top: anything
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const RULE = '@typescript-eslint/no-restricted-imports';

/** `patterns` entries forbidding the folders `names` (seen from a file `depth` folders below src/). */
function forbid(names, depth, message, extra = {}) {
  const up = depth === 1 ? ['../', '../../'] : ['../../', '../../../'];
  return names.map((n) => ({ group: up.flatMap((u) => [`${u}${n}`, `${u}${n}/**`]), message: `${message} (${n}/)`, ...extra }));
}

const NO_REACT = { paths: [{ name: 'react', message: 'logic/ is pure: no React' }, { name: 'react-dom', message: 'logic/ is pure: no React' }] };

export default tseslint.config(
  { ignores: ['dist/**', 'test-results/**', 'playwright-report/**', 'src/api/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/api/**'],
    rules: {
      [RULE]: ['error', { patterns: forbid(['logic', 'charts', 'state', 'components', 'cells', 'pages'], 1, 'api/ is the bottom layer') }],
    },
  },
  {
    files: ['src/logic/**'],
    rules: {
      [RULE]: [
        'error',
        {
          ...NO_REACT,
          patterns: [
            ...forbid(['charts', 'state', 'components', 'cells', 'pages'], 1, 'logic/ is the pure layer under the UI'),
            ...forbid(['api'], 1, 'logic/ takes the API types only, never the client', { allowTypeImports: true }),
            { group: ['react-dom/*'], message: 'logic/ is pure: no React' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/charts/**'],
    rules: {
      [RULE]: [
        'error',
        {
          patterns: [
            ...forbid(['state', 'components', 'cells', 'pages'], 1, 'charts/ draw numbers they are given'),
            ...forbid(['api'], 1, 'charts/ take the API types only, never the client', { allowTypeImports: true }),
          ],
        },
      ],
    },
  },
  {
    files: ['src/state/**'],
    rules: {
      [RULE]: [
        'error',
        {
          patterns: [
            ...forbid(['charts', 'components', 'pages'], 1, 'state/ holds the URL and document codecs'),
            { group: ['../cells/*', '!../cells/registry', '!../cells/types'], message: "state/ reads cells through cells/registry only, never a cell's folder" },
          ],
        },
      ],
    },
  },
  {
    files: ['src/components/**'],
    rules: {
      [RULE]: [
        'error',
        {
          patterns: [
            ...forbid(['cells', 'pages'], 1, 'components/ sit under the cells and pages'),
            { group: ['../state/*', '!../state/router'], message: 'components/ take links from state/router only (state/url reads the cell registry, which imports components)' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cells/*/**'],
    ignores: ['src/cells/**/*.test.{ts,tsx}'],
    rules: {
      [RULE]: [
        'error',
        {
          patterns: [
            ...forbid(['pages', 'state'], 2, 'cells/ sit under the pages and the URL state'),
            { group: ['../registry'], message: 'a cell never imports the registry (the registry imports the cells)' },
          ],
        },
      ],
    },
  },
);
