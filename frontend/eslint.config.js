// ESLint (flat config): typescript-eslint's recommended rules, the rules of React hooks, and the
// frontend's layers as import rules. Run by `npm run lint` (part of `make test`).
//
// Layers, bottom to top (README.md, "Layers"): LAYERS below. Each folder imports only from folders
// below it, never from one above, so no loop between folders can form; the rules are made from that
// one list, and a folder's own extra limits are added to them:
//
//   api/         the generated wire types and the fetch client; imports nothing of the app
//   logic/       pure functions: no React, no DOM; the API's *types* only (never the client)
//   charts/      one D3 chart a file: logic/ and API types
//   components/  shared React pieces (the router's <Link> among them): api/, logic/, charts/
//   cells/       the notebook's kinds: anything below; a cell never imports the registry (the
//                registry imports them)
//   state/       the URL and the saved document: anything below, but of cells/ only `cells/registry`
//                (the one table of kinds, whose encode/decode a link's cells go through) and `cells/types`
//   pages/, App.tsx, main.tsx, boot.ts, render.tsx   the top: anything
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const RULE = '@typescript-eslint/no-restricted-imports';
const LAYERS = ['api', 'logic', 'charts', 'components', 'cells', 'state', 'pages'];
const WHY = {
  api: 'api/ is the bottom layer',
  logic: 'logic/ is the pure layer under the UI',
  charts: 'charts/ draw numbers they are given',
  components: 'components/ sit under the cells, the URL state and the pages',
  cells: 'cells/ sit under the URL state and the pages',
  state: 'state/ holds the URL and document codecs, under the pages',
};

/** `patterns` entries forbidding the folders `names` (seen from a file `depth` folders below src/). */
function forbid(names, depth, message, extra = {}) {
  const up = depth === 1 ? ['../', '../../'] : ['../../', '../../../'];
  return names.map((n) => ({ group: up.flatMap((u) => [`${u}${n}`, `${u}${n}/**`]), message: `${message} (${n}/)`, ...extra }));
}

const NO_REACT = { paths: [{ name: 'react', message: 'logic/ is pure: no React' }, { name: 'react-dom', message: 'logic/ is pure: no React' }] };

/** Each folder's own limits beside the folder order: extra `patterns` and `paths`, by depth. */
const EXTRA = {
  logic: (depth) => ({
    ...NO_REACT,
    patterns: [
      ...forbid(['api'], depth, 'logic/ takes the API types only, never the client', { allowTypeImports: true }),
      { group: ['react-dom/*'], message: 'logic/ is pure: no React' },
    ],
  }),
  charts: (depth) => ({ patterns: forbid(['api'], depth, 'charts/ take the API types only, never the client', { allowTypeImports: true }) }),
  state: (depth) => ({
    patterns: [
      {
        group: [`${depth === 1 ? '../' : '../../'}cells/*`, `!${depth === 1 ? '../' : '../../'}cells/registry`, `!${depth === 1 ? '../' : '../../'}cells/types`],
        message: "state/ reads cells through cells/registry only, never a cell's folder",
      },
    ],
  }),
};

/** The rules of folder `name` for its files `depth` folders below src/ (1: src/name/x.ts, 2: src/name/sub/x.ts). */
function layer(name, depth) {
  const above = LAYERS.slice(LAYERS.indexOf(name) + 1);
  const extra = EXTRA[name]?.(depth) ?? {};
  const patterns = [...(above.length ? forbid(above, depth, WHY[name]) : []), ...(extra.patterns ?? [])];
  const files = depth === 1 ? [`src/${name}/*.{ts,tsx}`] : [`src/${name}/*/**/*.{ts,tsx}`];
  return { files, rules: { [RULE]: ['error', { ...(extra.paths ? { paths: extra.paths } : {}), patterns }] } };
}

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
  ...LAYERS.filter((n) => n !== 'pages').flatMap((n) => [layer(n, 1), layer(n, 2)]),
  {
    // a cell never imports the registry (its tests may: they check a kind through it)
    files: ['src/cells/*/**/*.{ts,tsx}'],
    ignores: ['src/cells/**/*.test.{ts,tsx}'],
    rules: {
      [RULE]: [
        'error',
        {
          patterns: [
            ...forbid(LAYERS.slice(LAYERS.indexOf('cells') + 1), 2, WHY.cells),
            { group: ['../registry'], message: 'a cell never imports the registry (the registry imports the cells)' },
          ],
        },
      ],
    },
  },
);
