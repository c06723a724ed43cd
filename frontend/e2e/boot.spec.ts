// How the built page loads (vite.config.ts, issue 17: a flame notebook's first paint): what
// index.html asks for before any script runs, and what the page's scripts tell V8. Against the
// real `iolens serve` and the built frontend (playwright.config.ts); needs no capture.
import { expect, test } from '@playwright/test';

const HINT = '//# allFunctionsCalledOnLoad';

/** Whether an @font-face block's unicode-range (U+41, U+0-FF, U+00?? wildcards) includes `cp`. */
function covers(face: string, cp: number): boolean {
  const range = face.match(/unicode-range:\s*([^;}]+)/)?.[1] ?? 'U+0-10FFFF';
  return range.split(',').some((part) => {
    const [lo, hi] = part.trim().replace(/^U\+/i, '').split('-');
    const from = parseInt(lo!.replace(/\?/g, '0'), 16);
    const to = parseInt((hi ?? lo!).replace(/\?/g, 'F'), 16);
    return from <= cp && cp <= to;
  });
}

test('index.html preloads the UI font the stylesheet uses for Latin text, and the page downloads it once', async ({ page, request }) => {
  const html = await (await request.get('/compare?v=1')).text();
  const preload = [...html.matchAll(/<link rel="preload" as="font" type="font\/woff2" crossorigin href="([^"]+)">/g)].map((m) => m[1]!);
  expect(preload, 'one font preloaded by index.html').toHaveLength(1);
  // the stylesheet's @font-face of the UI font for basic Latin text ("A") names that same file
  const css = html.match(/<link rel="stylesheet" crossorigin href="([^"]+)">/)![1]!;
  const faces = (await (await request.get(css)).text()).split('@font-face').slice(1);
  const latin = faces.filter((f) => /font-family:\s*"?Inter/.test(f) && /font-style:\s*normal/.test(f) && covers(f, 0x41));
  expect(latin, 'one @font-face of Inter for basic Latin').toHaveLength(1);
  expect(latin[0]!).toContain(`url(${preload[0]})`);

  // in a page: one request for it (the preload is used: crossorigin matches the font's own fetch)
  const fonts: string[] = [];
  page.on('request', (r) => r.url().endsWith('.woff2') && fonts.push(new URL(r.url()).pathname));
  await page.goto('/compare?v=1');
  // polled: `document.fonts.ready` settles at once when it is asked before the page has laid out any
  // text in Inter (the face is still 'unloaded', nothing pending): under load that came first
  await expect
    .poll(() => page.evaluate(() => [...document.fonts].some((f) => /Inter/.test(f.family) && f.status === 'loaded')), { timeout: 30_000 })
    .toBe(true);
  expect(fonts.filter((f) => f === preload[0])).toHaveLength(1);
});

test("the page's first scripts start with V8's compile hint, their source maps one line down", async ({ request }) => {
  const html = await (await request.get('/compare?v=1')).text();
  const scripts = [...html.matchAll(/<(?:script type="module"|link rel="modulepreload") crossorigin (?:src|href)="([^"]+)">/g)].map((m) => m[1]!);
  const page = scripts.filter((s) => /\/(boot|render|flame)-[^/]+\.js$/.test(s));
  expect(page.map((s) => s.match(/\/(boot|render|flame)-/)![1]).sort()).toEqual(['boot', 'flame', 'render']);
  for (const s of page) {
    const code = await (await request.get(s)).text();
    expect(code.split('\n')[0], s).toBe(HINT);
    expect(code.indexOf(HINT, 1), `${s}: the hint once`).toBe(-1);
    const map = (await (await request.get(`${s}.map`)).json()) as { mappings: string };
    // line 1 (the hint) maps nothing; the map has a group per line up to the last mapped one
    expect(map.mappings.startsWith(';'), s).toBe(true);
    const lines = code.split('\n');
    const last = lines.findLastIndex((l) => l.length > 0 && !l.startsWith('//# sourceMappingURL='));
    expect(map.mappings.split(';').length, `${s}: the map's lines`).toBe(last + 1);
  }
  // other scripts (the entry, the runtime, the other cells' chunks) are compiled as they run
  const entry = scripts.find((s) => /\/index-[^/]+\.js$/.test(s))!;
  expect((await (await request.get(entry)).text()).startsWith(HINT)).toBe(false);
});
