/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// How a notebook page loads (issue 17: the flame graph's first paint):
// - src/main.tsx, the first script: the styles and boot.ts, which starts the notebook's requests and
//   its cells' code from the URL; then it imports src/render.tsx (the renderer, the app, the pages).
// - index.html preloads render.tsx's chunk and the flame cell's code (the cell most notebooks show):
//   they download while the first script runs, and boot's requests start before the renderer is
//   evaluated.
// - The flame cell's view is one chunk ('flame'), not the seven scripts and two stylesheets the
//   automatic split made of it (each a request on the critical path of its first paint).
// - index.html preloads the UI font's Latin file, so that it is in when the page is first laid out:
//   otherwise the page is laid out with a fallback font, then again when Inter arrives (traces of a
//   51k-node flame notebook, 2026-11-28: that font request started only at React's first layout).
// - The three page chunks start with V8's compile hint `//# allFunctionsCalledOnLoad`: their
//   functions are compiled when the chunk is, not one by one the first time each runs (the lazy
//   compiles took ~70-110 ms of the main thread during React's first render of the notebook).
const src = fileURLToPath(new URL('./src/', import.meta.url));
const MAIN = `${src}main.tsx`;
const RENDER = `${src}render.tsx`;
const FLAME = `${src}cells/flame/FlameCell.tsx`;
/** The chunks a notebook page with a flame graph runs on load (pageChunks). */
export const PAGE_CHUNKS = ['boot', 'render', 'flame'];
/** V8's explicit compile hint: compile every function of the file eagerly (Chromium 136+). */
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad';
/** The UI font's file for Latin text (@fontsource-variable/inter, the page's text). */
export const UI_FONT = /(^|\/)inter-latin-wght-normal-[^/]+\.woff2$/;

interface ModuleGraph {
  getModuleInfo(id: string): { importedIds: readonly string[] } | null;
}

/** Modules reachable from `roots` through static imports. */
function staticClosure(graph: ModuleGraph, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const dep of graph.getModuleInfo(id)?.importedIds ?? []) stack.push(dep);
  }
  return seen;
}

/**
 * Three chunks for a notebook page with a flame graph, not the twenty small files the automatic
 * split makes of what the page's scripts share with the cells' views: 'boot' (what the first
 * script imports), 'render' (what render.tsx adds), 'flame' (what the flame cell's view adds).
 */
function pageChunks() {
  let groups: Map<string, string> | null = null;
  return (id: string, graph: ModuleGraph): string | null => {
    if (!groups) {
      groups = new Map();
      const boot = staticClosure(graph, [MAIN]);
      const render = staticClosure(graph, [MAIN, RENDER]);
      for (const m of boot) if (m !== MAIN) groups.set(m, 'boot');
      for (const m of render) if (!groups.has(m) && m !== MAIN) groups.set(m, 'render');
      for (const m of staticClosure(graph, [FLAME])) if (!groups.has(m) && !render.has(m)) groups.set(m, 'flame');
    }
    return groups.get(id) ?? null;
  };
}

/** index.html preloads render.tsx's chunk and the flame chunk, with the chunks they import, and the UI font. */
function preloadPage(): Plugin {
  return {
    name: 'iolens-preload-page',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return [];
        const chunks = Object.values(bundle).flatMap((c) => (c.type === 'chunk' ? [c] : []));
        const roots = [RENDER, FLAME].map((id) => chunks.find((c) => c.facadeModuleId === id || c.moduleIds.includes(id)));
        const entry = chunks.find((c) => c.isEntry);
        if (!entry || roots.some((c) => !c)) throw new Error('vite.config.ts: no chunk for render.tsx or FlameCell.tsx, or no entry chunk');
        const have = new Set([entry.fileName]);
        for (const m of html.matchAll(/<link rel="modulepreload"[^>]* href="\/([^"]+)"/g)) have.add(m[1]!);
        const files: string[] = [];
        const add = (name: string) => {
          if (have.has(name)) return;
          have.add(name);
          files.push(name);
          const c = bundle[name];
          if (c?.type === 'chunk') c.imports.forEach(add);
        };
        roots.forEach((c) => add(c!.fileName));
        const font = Object.keys(bundle).find((name) => UI_FONT.test(name));
        if (!font) throw new Error('vite.config.ts: no Latin file of the UI font (inter-latin-wght-normal) in the bundle');
        return [
          { tag: 'link', attrs: { rel: 'preload', as: 'font', type: 'font/woff2', crossorigin: true, href: `/${font}` }, injectTo: 'head' as const },
          ...files.map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${f}` }, injectTo: 'head' as const })),
        ];
      },
    },
  };
}

/**
 * The page chunks start with COMPILE_HINT. V8 heeds it only as the file's first line: added last,
 * after minification and Vite's own first line (`__vite__mapDeps`), with the source map moved one
 * line down to match.
 */
function compileHint(): Plugin {
  return {
    name: 'iolens-compile-hint',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== 'chunk' || !PAGE_CHUNKS.includes(chunk.name)) continue;
          chunk.code = `${COMPILE_HINT}\n${chunk.code}`;
          if (chunk.map) chunk.map.mappings = `;${chunk.map.mappings}`;
          const asset = bundle[`${chunk.fileName}.map`];
          if (asset?.type === 'asset') {
            const map = JSON.parse(String(asset.source)) as { mappings: string };
            map.mappings = `;${map.mappings}`;
            asset.source = JSON.stringify(map);
          }
        }
      },
    },
  };
}

// Served by `iolens serve` at / (index.html fallback for every non-/api path), so assets use
// absolute paths. In development the API runs separately: `iolens serve --port 8000`.
// React's API from Preact (preact/compat): the page runs Preact, ~15 KB minified against react-dom's
// ~207 KB, which V8 compiled (off the page's thread, but before React's first render could start)
// and whose first render of the notebook cost more of the page's thread (issue 17: the 51k flame
// graph's first paint). The code imports 'react' and is typechecked against React's types; every
// import of React's packages, in the build and in Vitest (and in @testing-library/react, inlined
// for that), is Preact's, so that the tests test what ships.
export const REACT_ALIASES = [
  { find: /^react$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/compat/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/compat/jsx-dev-runtime' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom\/server$/, replacement: 'preact/compat/server' },
  { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
];

export default defineConfig({
  base: '/',
  resolve: { alias: REACT_ALIASES },
  plugins: [react(), preloadPage(), compileHint()],
  server: {
    proxy: { '/api': 'http://127.0.0.1:8000' },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    rolldownOptions: { output: { codeSplitting: { includeDependenciesRecursively: false, groups: [{ name: pageChunks() }] } } },
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    environment: 'node',
    // The test files share their worker's modules (no fresh module graph per file): no test sets a
    // global that another reads (zoom.test.tsx's fake timers are undone after each test; the files
    // also pass in shuffled order, --sequence.shuffle), and the fresh graphs were two thirds of
    // Vitest's CPU (39.6 s against 12.6 s of user+system, 57 files, 2026-11-28, load 10).
    isolate: false,
    // A limit against hangs, not a measure (no test times itself): Vitest's default 5 s ran out for
    // registry.test.ts, whose test imports every cell's view, when the machine was loaded (make test
    // runs the other suites beside Vitest; `npm test` alone has the same limit).
    testTimeout: 20_000,
    env: { TZ: 'UTC', LC_ALL: 'C' },
    // What the page installs before its first render (main.tsx): React's DOM behaviours that
    // preact/compat lacks, so that the components are tested as they run.
    setupFiles: ['src/reactParity.ts'],
    // @testing-library/react's ES module, through Vite's resolver, so that its imports of react and
    // react-dom are Preact's (REACT_ALIASES); its CommonJS main would require React's own
    alias: [{ find: /^@testing-library\/react$/, replacement: '@testing-library/react/dist/@testing-library/react.esm.js' }],
    server: { deps: { inline: ['@testing-library/react'] } },
  },
});
