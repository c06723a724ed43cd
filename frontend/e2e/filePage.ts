// `test` with one browser context and page for all the tests of a spec file: a fresh context costs
// Debian's chromium ~2.4 s of CPU, a new renderer that compiles the app's JavaScript again without the
// context's cache (ten notebook loads: 40 s of CPU in fresh contexts, 16 s in one page; 2026-11-28).
// Each test still opens its own URL. Before it, what a context keeps is put back as a fresh one has it:
// - the page goes to the server's /api/health (a JSON document, none of the app's code), which ends
//   the page of the test before, and there the origin's localStorage (typed notes' drafts, the token)
//   and the tab's sessionStorage (the library's ticks) are cleared;
// - routes of the page and of the context removed, permissions granted (the clipboard) revoked,
//   the viewport set back to the config's, the mouse moved off the page (no hover left), and the
//   listeners a test added to the page (page.on) removed.
// A test that needs what only a new context has (a first load's requests, an empty HTTP cache) says
// so with `test.use({ freshContext: true })` in a describe of its own: it gets a context of its own.
// Another file, or a worker restarted after a failure, gets a context of its own.
import { test as base, type BrowserContext, type Page } from '@playwright/test';

let shared: { file: string; context: BrowserContext; page: Page; listeners: Map<string | symbol, Set<unknown>> } | null = null;

/** A Page is an EventEmitter (Playwright's client), which its types do not say. */
type Emitter = { eventNames(): (string | symbol)[]; listeners(e: string | symbol): unknown[]; off(e: string | symbol, l: unknown): void };

/** The page's listeners per event, to tell Playwright's own from those a test adds. */
function listenersOf(page: Page): Map<string | symbol, Set<unknown>> {
  const em = page as unknown as Emitter;
  return new Map(em.eventNames().map((e) => [e, new Set(em.listeners(e))]));
}

export const test = base.extend<{ freshContext: boolean }>({
  freshContext: [false, { option: true }],
  page: async ({ browser, baseURL, viewport, freshContext }, run, testInfo) => {
    if (freshContext) {
      const context = await browser.newContext({ baseURL, viewport });
      await run(await context.newPage());
      await context.close();
      return;
    }
    if (shared && (shared.file !== testInfo.file || shared.page.isClosed())) {
      await shared.context.close();
      shared = null;
    }
    if (!shared) {
      const context = await browser.newContext({ baseURL, viewport });
      const page = await context.newPage();
      shared = { file: testInfo.file, context, page, listeners: listenersOf(page) };
    } else {
      const { page, context, listeners } = shared;
      const em = page as unknown as Emitter;
      for (const e of em.eventNames()) for (const l of em.listeners(e)) if (!listeners.get(e)?.has(l)) em.off(e, l);
      if (page.url() !== 'about:blank') {
        await page.goto(new URL('/api/health', baseURL).href);
        await page.evaluate(() => {
          localStorage.clear();
          sessionStorage.clear();
        });
      }
      await context.clearPermissions();
      await context.unrouteAll({ behavior: 'ignoreErrors' });
      if (viewport && JSON.stringify(page.viewportSize()) !== JSON.stringify(viewport)) await page.setViewportSize(viewport);
    }
    await shared.page.unrouteAll({ behavior: 'ignoreErrors' });
    await shared.page.mouse.move(0, 0);
    await run(shared.page);
  },
});

export { expect } from '@playwright/test';
